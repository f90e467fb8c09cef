/** A file the step changed: its text before the step (none when it created it) and after. */
export interface ChangedText {
  file: string;
  before: string | undefined;
  after: string;
}

/** The lines of `after` that `before` did not have (as many times as they were added). */
export function addedText(before: string | undefined, after: string): string {
  const left = new Map<string, number>();
  for (const line of (before ?? '').split('\n')) left.set(line, (left.get(line) ?? 0) + 1);
  const added: string[] = [];
  for (const line of after.split('\n')) {
    const count = left.get(line) ?? 0;
    if (count > 0) left.set(line, count - 1);
    else added.push(line);
  }
  return added.join('\n');
}

/** Whether a file is JS/TS or Python code (the languages the asked-behaviour checks read). */
export const SCRIPT_FILE = /\.(?:[cm]?[jt]sx?|py)$/i;

/**
 * The files of `known` that `keep` keeps, with their text before the step (none when it created
 * them) and after; a modified file whose earlier text cannot be read is left out.
 */
export async function changedTexts(
  env: {
    facts: { read(file: string): string | undefined };
    changes: { textBefore(file: string): Promise<string | undefined> };
  },
  known: { created: readonly string[]; modified: readonly string[] },
  keep: (file: string) => boolean,
): Promise<ChangedText[]> {
  const files = await Promise.all(
    [...known.created, ...known.modified].filter(keep).map(async (file) => ({
      file,
      before: known.created.includes(file) ? undefined : await env.changes.textBefore(file),
      after: env.facts.read(file) ?? '',
    })),
  );
  return files.filter((entry) => known.created.includes(entry.file) || entry.before !== undefined);
}
