import { askedCliFlags, flagValueNames, unreadCliFlag } from './asked-cli-flags';
import { askedEdgeCases, edgeCaseMissed } from './asked-edge-tests';
import { askedRoutes, routeMismatch } from './asked-routes';
import { askedThrows, otherMessagesThrown, throwAnsweredByReturn } from './asked-throws';
import type { ChangedText } from './changed-text';
import type { OutcomeEnvironment } from './check-outcome';
import type { Finding } from './finding';
import { TEST_FILE } from './workspace-snapshot';

/**
 * Behaviour a step was asked for, checked against the code it changed: a throw (not a return), an
 * exact error message, a route's method and path, an edge-case test's value, a CLI flag that is
 * read. Each problem names what was asked and what was found.
 */

/** What the behaviour checks read. */
export interface BehaviourInput {
  description: string;
  /** The step's own changed files (created or modified), with their text before and after. */
  changed: readonly ChangedText[];
  /** Whether code outside `files` refers to one of `names` (a flag's value read in another module). */
  referencedElsewhere(names: readonly string[], files: readonly string[]): Promise<boolean>;
  /** Whether a file is a test file. */
  isTest(file: string): boolean;
}

/** `a ParseError`, `an Error`. */
const article = (word: string) => `${/^[AEIOU]/i.test(word) ? 'an' : 'a'} ${word}`;
const quote = (text: string) => `\`${text.length > 100 ? `${text.slice(0, 100)}…` : text}\``;

/** The problems found between the behaviour asked for and the step's code (none when it matches or nothing is asked). */
export async function askedBehaviourProblems(input: BehaviourInput): Promise<string[]> {
  const { description } = input;
  const code = input.changed.filter((entry) => !input.isTest(entry.file));
  const tests = input.changed.filter((entry) => input.isTest(entry.file));
  const problems: string[] = [];

  const throws = askedThrows(description);
  if (throws.length > 0) {
    const answered = await throwAnsweredByReturn(code);
    if (answered !== undefined) {
      const what = throws[0]?.type ?? 'an error';
      problems.push(
        `The step was asked to throw ${what === 'an error' ? what : article(what)}, but its changes add no throw or raise: ${answered.file} hands the failure back with ${quote(answered.line)}.`,
      );
    }
    for (const asked of throws) {
      if (asked.message === undefined) continue;
      const others = await otherMessagesThrown(code, asked.message);
      if (others.length > 0)
        problems.push(
          `The step was asked to throw${asked.type ? ` ${article(asked.type)}` : ''} with the message ${JSON.stringify(asked.message)}, but the message it throws is ${others
            .slice(0, 3)
            .map((other) => JSON.stringify(other))
            .join(', ')}.`,
        );
    }
  }

  for (const route of askedRoutes(description)) {
    const found = await routeMismatch(code, route);
    if (found.length > 0)
      problems.push(
        `The step was asked for a ${route.method ?? ''}${route.method ? ' ' : ''}${route.path} route, but it registered ${found.slice(0, 3).join(', ')}.`,
      );
  }

  for (const edge of askedEdgeCases(description)) {
    const missed = await edgeCaseMissed(tests, edge);
    if (missed !== undefined)
      problems.push(
        `The step was asked for a test of ${edge.name ? quote(edge.asked) : edge.asked}, but the tests it added in ${missed.slice(0, 3).join(', ')} never pass ${edge.kind === 'null' || edge.kind === 'zero' ? edge.kind : `an ${edge.kind}`}${edge.name ? ` to ${edge.name}` : ''}.`,
      );
  }

  for (const flag of askedCliFlags(description)) {
    const declaring = await unreadCliFlag(code, flag);
    if (declaring.length === 0) continue;
    if (
      await input.referencedElsewhere(
        flagValueNames(flag),
        code.map((entry) => entry.file),
      )
    )
      continue;
    problems.push(
      `The step was asked to add a --${flag} flag, but ${declaring.slice(0, 3).join(', ')} only declare${declaring.length > 1 ? '' : 's'} it: no code reads its value (${flagValueNames(flag).join(' / ')}).`,
    );
  }
  return problems;
}

/**
 * The outcome finding of {@link askedBehaviourProblems} for a step's own created and modified
 * files: a `fail` naming each problem, or none.
 */
export async function askedBehaviourFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const changed: ChangedText[] = [];
  for (const file of [...known.created, ...known.modified].filter(own)) {
    const after = env.facts.read(file);
    if (after === undefined) continue;
    const before = known.created.includes(file) ? undefined : await env.changes.textBefore(file);
    changed.push({ file, before, after });
  }
  if (changed.length === 0) return undefined;
  const problems = await askedBehaviourProblems({
    description: env.description,
    changed,
    isTest: (file) => TEST_FILE.test(file),
    referencedElsewhere: async (names, files) => {
      const args = names.flatMap((name) => ['-e', name]);
      const result = await env.git(['grep', '-l', '--untracked', '-w', '-F', ...args]);
      return (
        result.exitCode === 0 &&
        result.stdout
          .split('\n')
          .some(
            (file) =>
              file !== '' &&
              !files.includes(file) &&
              !TEST_FILE.test(file) &&
              /\.(?:[cm]?[jt]sx?|py)$/.test(file),
          )
      );
    },
  });
  if (problems.length === 0) return undefined;
  return { check: 'outcome', priority: 'P1', status: 'fail', message: problems.join(' ') };
}
