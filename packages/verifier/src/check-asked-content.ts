import { addedChangelogLines, askedChangelogEntries, CHANGELOG_FILE } from './asked-changelog-entries';
import {
  askedConstantValues,
  CONSTANT_FILE,
  constantDefinition,
  constantMismatch,
} from './asked-constant-values';
import { askedSections, sectionContent } from './asked-sections';
import { excerpt, type Finding } from './finding';

/** What {@link askedContentFinding} reads of the step. */
export interface AskedContentEnvironment {
  description: string;
  facts: { read(file: string): string | undefined };
  changes: { textBefore(file: string): Promise<string | undefined> };
}

/**
 * Content the description spells out that the step's files do not hold: a document section asked
 * that is only a heading, a changelog entry written under another version than the one asked, a
 * constant defined with another value (or the text of the number asked). Undefined when all hold
 * or nothing of the kind was asked.
 */
export async function askedContentFinding(
  env: AskedContentEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const changed = [...known.created, ...known.modified].filter(own);
  const wrong = [
    ...emptySections(env, changed),
    ...(await misfiledChangelogEntries(env, known, changed)),
    ...otherConstantValues(env, changed),
  ];
  if (wrong.length === 0) return undefined;
  return {
    check: 'outcome',
    priority: 'P1',
    status: 'fail',
    message: `The step was asked for content its files do not hold: ${wrong.slice(0, 3).join('; ')}.`,
  };
}

function emptySections(env: AskedContentEnvironment, changed: readonly string[]): string[] {
  const wrong: string[] = [];
  for (const { title, files } of askedSections(env.description)) {
    for (const file of files.filter((file) => changed.includes(file))) {
      const text = env.facts.read(file);
      if (text !== undefined && sectionContent(text, title) === 'empty')
        wrong.push(`a "${title}" section in ${file}, but its heading is followed by no text`);
    }
  }
  return wrong;
}

async function misfiledChangelogEntries(
  env: AskedContentEnvironment,
  known: { created: readonly string[] },
  changed: readonly string[],
): Promise<string[]> {
  const wrong: string[] = [];
  for (const { version, files } of askedChangelogEntries(env.description)) {
    const targets = (files.length > 0 ? files : changed).filter(
      (file) => changed.includes(file) && CHANGELOG_FILE.test(file),
    );
    for (const file of targets) {
      const after = env.facts.read(file);
      if (after === undefined) continue;
      const before = known.created.includes(file) ? undefined : await env.changes.textBefore(file);
      const added = addedChangelogLines(before, after);
      if (added.length === 0 || added.some((line) => line.release === version.toLowerCase())) continue;
      const first = added[0];
      if (first === undefined) continue;
      const where = first.release === '' ? 'above every version heading' : `under ${first.release}`;
      wrong.push(
        `an entry under ${version} in ${file}, but ${file}:${first.line} adds "${excerpt(first.text, 60)}" ${where}`,
      );
    }
  }
  return wrong;
}

function otherConstantValues(env: AskedContentEnvironment, changed: readonly string[]): string[] {
  const wrong: string[] = [];
  for (const { name, value, files } of askedConstantValues(env.description)) {
    const targets = (files.length > 0 ? files : changed).filter(
      (file) => changed.includes(file) && CONSTANT_FILE.test(file),
    );
    for (const file of targets) {
      const text = env.facts.read(file);
      const actual = text === undefined ? undefined : constantDefinition(file, text, name);
      if (actual === undefined) continue;
      const mismatch = constantMismatch(actual.value, value);
      if (mismatch !== undefined)
        wrong.push(
          `\`${name} = ${value}\`, but ${file}:${actual.line} defines it as ${excerpt(mismatch, 60)}`,
        );
    }
  }
  return wrong;
}
