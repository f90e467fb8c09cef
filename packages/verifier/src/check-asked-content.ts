import { readdirSync } from 'node:fs';
import { addedChangelogLines, askedChangelogEntries, CHANGELOG_FILE } from './asked-changelog-entries';
import {
  askedConstantValues,
  CONSTANT_FILE,
  constantDefinition,
  constantMismatch,
} from './asked-constant-values';
import { everyFileFolders, filesLeftOut } from './asked-every-file';
import { filesInOtherLanguage } from './asked-language';
import { askedSections, sectionContent } from './asked-sections';
import { askedValueChanges, staleValue } from './asked-value-changes';
import { addedBroadHandlers, oneErrorAsked } from './broad-catches';
import { changedTexts } from './changed-text';
import { exampleGuards } from './example-guards';
import { excerpt, type Finding } from './finding';

/** What {@link askedContentFinding} reads of the step. */
export interface AskedContentEnvironment {
  description: string;
  facts: { read(file: string): string | undefined; absolute?(relativePath: string): string };
  changes: { textBefore(file: string): Promise<string | undefined> };
}

/**
 * Content the description spells out that the step's files do not hold: a document section asked
 * that is only a heading, a changelog entry written under another version than the one asked, a
 * constant defined with another value (or the text of the number asked), a value asked "from A
 * to B" whose A the code still holds, work asked in one language's package done in another's,
 * a file of a folder asked "every file in" left out, a handler of one error that catches every
 * error, a fix that only special-cases the inputs the request names. Undefined when all hold or
 * nothing of the kind was asked.
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
    ...(await staleValues(env, known, changed)),
    ...otherLanguage(env, changed),
    ...leftOutFiles(env, changed),
    ...(await broadHandlers(env, known, changed)),
    ...(await guardedExamples(env, known, changed)),
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

async function staleValues(
  env: AskedContentEnvironment,
  known: { created: readonly string[] },
  changed: readonly string[],
): Promise<string[]> {
  const asked = askedValueChanges(env.description);
  if (asked.length === 0) return [];
  const texts = await textsOf(env, known, changed);
  const wrong: string[] = [];
  for (const change of asked) {
    const stale = await staleValue(change, texts);
    if (stale !== undefined)
      wrong.push(
        `${change.from} changed to ${change.to}, but the code of ${stale.slice(0, 3).join(', ')} holds ${change.from} as often as before`,
      );
  }
  return wrong;
}

function otherLanguage(env: AskedContentEnvironment, changed: readonly string[]): string[] {
  const other = filesInOtherLanguage(env.description, changed);
  return other.length === 0
    ? []
    : [`work in the language the request names, but the step changed only ${other.slice(0, 3).join(', ')}`];
}

/** The files directly in a workspace folder, as workspace paths (none when it cannot be read). */
function filesOf(env: AskedContentEnvironment, folder: string): string[] {
  const absolute = env.facts.absolute?.(folder);
  if (absolute === undefined) return [];
  try {
    return readdirSync(absolute, { withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => `${folder}/${entry.name}`);
  } catch {
    return [];
  }
}

function leftOutFiles(env: AskedContentEnvironment, changed: readonly string[]): string[] {
  const wrong: string[] = [];
  for (const folder of everyFileFolders(env.description)) {
    const left = filesLeftOut(folder, filesOf(env, folder), changed);
    if (left.length > 0)
      wrong.push(`every file in ${folder}/, but ${left.slice(0, 3).join(', ')} is left as it was`);
  }
  return wrong;
}

async function broadHandlers(
  env: AskedContentEnvironment,
  known: { created: readonly string[] },
  changed: readonly string[],
): Promise<string[]> {
  if (!oneErrorAsked(env.description)) return [];
  const broad = await addedBroadHandlers(await textsOf(env, known, changed));
  return broad.length === 0
    ? []
    : [
        `one kind of error handled, but ${broad.slice(0, 3).join(', ')} adds a handler that catches every error without looking at it`,
      ];
}

async function guardedExamples(
  env: AskedContentEnvironment,
  known: { created: readonly string[] },
  changed: readonly string[],
): Promise<string[]> {
  const guards = exampleGuards(env.description, await textsOf(env, known, changed));
  return guards.length === 0
    ? []
    : [
        `a fix of the rule, but the whole change is an early return for the inputs the request names (${guards.slice(0, 2).join('; ')}): every other input gets the old answer`,
      ];
}

/** The texts before and after of the files the step changed. */
function textsOf(
  env: AskedContentEnvironment,
  known: { created: readonly string[] },
  changed: readonly string[],
) {
  const created = changed.filter((file) => known.created.includes(file));
  const modified = changed.filter((file) => !known.created.includes(file));
  return changedTexts(env, { created, modified }, () => true);
}
