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
