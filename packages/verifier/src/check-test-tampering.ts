import type { Finding } from './finding';
import { collectedPythonTests } from './hollow-code';
import type { HumanReviewHandler } from './protocol';
import type { StepChanges } from './step-changes';
import { harnessProblems } from './test-harness-changes';
import type { WorkspaceFacts } from './workspace-facts';
import { TEST_FILE } from './workspace-snapshot';

/** What {@link checkTestTampering} needs. */
export interface TamperingEnvironment {
  facts: WorkspaceFacts;
  changes: StepChanges;
  /** The step is a fix (by its description or its claims). */
  fix: boolean;
  /** The step's description makes the tests the object of the work. */
  testsAreTarget: boolean;
  /** The step's notes and final text (a justification is looked for there). */
  text: string;
  request: string;
  onHumanReview?: HumanReviewHandler;
  signal?: AbortSignal;
}

/** Lines that assert something in a test (JS/TS, Python, Go, Rust, Java, Ruby). */
const ASSERTION =
  /\b(?:expect|assert\w*|should|t\.(?:Error|Fatal|Errorf|Fatalf|Fail)|assert_eq!?|assert_ne!?|assert!?|assertEquals|assertTrue|assertFalse|assertThat|toBe|toEqual|toStrictEqual|toThrow|toMatch|equal|deepEqual|strictEqual|ok)\s*[(.!]/;
/** Markers that switch a test off. */
const SKIP_MARKER =
  /\b(?:it|test|describe|context)\.(?:skip|todo)\s*\(|\bx(?:it|describe|test)\s*\(|@pytest\.mark\.(?:skip|xfail)|@unittest\.skip|\bt\.Skip(?:Now|f)?\s*\(|#\[ignore\]|@Disabled|@Ignore|\bpending\s*\(|\.only\s*\(/;
const JUSTIFICATION =
  /\b(?:because|since|as|the\s+test\s+(?:was|is)\s+(?:wrong|incorrect|outdated|obsolete|flaky|invalid)|wrong\s+expectation|incorrect\s+(?:expectation|assertion|test)|outdated|obsolete|typo\s+in\s+the\s+test|expected\s+the\s+old|no\s+longer\s+(?:valid|applies)|per\s+the\s+(?:spec|request|requirement))\b|因为|因為|由于|由於|错误的断言|錯誤的斷言|过时|過時|ため|誤り|間違|古い/iu;
const TEST_MENTION = /\btests?\b|\bspecs?\b|\bassert\w*|测试|測試|断言|斷言|テスト|アサーション/iu;

function assertionLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => ASSERTION.test(line) && !line.startsWith('//') && !line.startsWith('#'));
}

/**
 * A fix that edits or deletes tests is suspect: deleting a test file, removing assertions or
 * switching tests off (`it.skip`, `@pytest.mark.skip`, `t.Skip`) while claiming a fix makes the
 * tests pass by weakening them. Each such change is a P1 finding that needs a human's approval
 * (`onHumanReview`) or a justification in the step's notes (then a P2 warning). Steps whose
 * description asks to change the tests are not checked; added tests and assertions are fine.
 */
export async function checkTestTampering(env: TamperingEnvironment): Promise<Finding[]> {
  if (!env.fix || env.testsAreTarget) return [];
  const { created, modified, deleted } = await env.changes.changed();
  const problems: string[] = [];
  for (const file of deleted)
    if (TEST_FILE.test(file) || TEST_FILE.test(`${file}/`)) problems.push(`deleted the tests in ${file}`);
  // The test script itself, rewritten so it checks nothing ("test": "echo ok").
  if (modified.includes('package.json')) {
    const scriptOf = (text: string | undefined) => {
      try {
        return (JSON.parse(text ?? '') as { scripts?: Record<string, string> }).scripts?.test;
      } catch {
        return undefined;
      }
    };
    const was = scriptOf(await env.changes.textBefore('package.json'));
    const now = scriptOf(env.facts.read('package.json'));
    if (was !== undefined && was !== now)
      problems.push(`changed the test script in package.json from \`${was}\` to \`${now ?? '(none)'}\``);
  }
  for (const file of modified) {
    if (!TEST_FILE.test(file)) continue;
    const before = await env.changes.textBefore(file);
    const after = env.facts.read(file) ?? '';
    if (before === undefined) {
      problems.push(`edited the test file ${file}`);
      continue;
    }
    const was = assertionLines(before);
    const now = new Set(assertionLines(after));
    const removed = was.filter((line) => !now.has(line));
    const skipsBefore = before.split('\n').filter((line) => SKIP_MARKER.test(line)).length;
    const skipsAfter = after.split('\n').filter((line) => SKIP_MARKER.test(line)).length;
    if (removed.length > 0)
      problems.push(
        `changed or removed ${removed.length} assertion(s) in ${file} (e.g. \`${removed[0]?.slice(0, 100)}\`)`,
      );
    if (skipsAfter > skipsBefore)
      problems.push(`switched tests off in ${file} (${skipsAfter - skipsBefore} skip marker(s) added)`);
  }
  // Tests pointed at a stand-in, a runner configured to leave tests out.
  for (const file of [...created, ...modified]) {
    const after = env.facts.read(file);
    if (after === undefined) continue;
    const before = created.includes(file) ? undefined : await env.changes.textBefore(file);
    problems.push(...harnessProblems(file, before, after, new Set(created)));
    // Python tests the runner no longer collects (deleted, renamed, hidden under `if __name__`).
    const was =
      before !== undefined && TEST_FILE.test(file) ? await collectedPythonTests(file, before) : undefined;
    const now = was !== undefined ? await collectedPythonTests(file, after) : undefined;
    const lost = was !== undefined && now !== undefined ? [...was].filter((name) => !now.has(name)) : [];
    if (lost.length > 0) problems.push(`made ${file} stop collecting ${lost.slice(0, 3).join(', ')}`);
  }
  if (problems.length === 0) return [];
  const summary = `The step is a fix but it ${problems.join('; ')}: a fix that weakens the tests needs a human's approval or a justification.`;
  if (env.onHumanReview !== undefined) {
    try {
      const decision = await env.onHumanReview(
        {
          request: env.request,
          reasons: ['a fix changed or removed tests'],
          summary,
          changedFiles: [...modified, ...deleted].filter((file) => TEST_FILE.test(file)),
          risks: problems,
          diff: problems.join('\n'),
        },
        { signal: env.signal ?? new AbortController().signal },
      );
      if (decision.decision === 'approve')
        return [
          {
            check: 'tampering',
            priority: 'P1',
            status: 'pass',
            message: `${summary} A human approved it${decision.comment ? `: ${decision.comment}` : '.'}`,
          },
        ];
      return [
        {
          check: 'tampering',
          priority: 'P1',
          status: 'fail',
          message: `${summary} A human did not approve it${decision.comment ? `: ${decision.comment}` : '.'}`,
        },
      ];
    } catch (error) {
      if (env.signal?.aborted) throw error;
    }
  }
  const justified = env.text
    .split(/(?<=[.!?。！？\n])/u)
    .find((sentence) => TEST_MENTION.test(sentence) && JUSTIFICATION.test(sentence));
  if (justified !== undefined)
    return [
      {
        check: 'tampering',
        priority: 'P2',
        status: 'warn',
        message: `${summary} The step justifies it: "${justified.trim().slice(0, 200)}".`,
      },
    ];
  return [{ check: 'tampering', priority: 'P1', status: 'fail', message: summary }];
}
