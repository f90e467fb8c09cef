import type { ProtocolContext } from '../protocol';

/** One line the change added. */
export interface AddedLine {
  line: string;
  /** 1-based line number in the changed file. */
  number: number;
}

/**
 * Lines added by the change, per changed file: new files entirely, tracked files from `git diff`
 * against the base (1-based line numbers in the new version). Without git, hinted files count
 * entirely.
 */
export async function addedLines(ctx: ProtocolContext): Promise<Map<string, AddedLine[]>> {
  const result = new Map<string, AddedLine[]>();
  const changes = await ctx.facts.changes();
  const files = await ctx.changedFiles();
  const diff = changes ? await ctx.facts.diff(2_000_000) : '';
  const fromDiff = new Map<string, AddedLine[]>();
  let current: string | undefined;
  let lineNumber = 0;
  for (const line of diff.split('\n')) {
    const header = /^\+\+\+ b\/(.+)$/.exec(line);
    if (header) {
      current = header[1];
      continue;
    }
    const hunk = /^@@ -\d+(?:,\d+)? \+(\d+)/.exec(line);
    if (hunk) {
      lineNumber = Number(hunk[1]);
      continue;
    }
    if (current === undefined) continue;
    if (line.startsWith('+')) {
      const list = fromDiff.get(current) ?? [];
      list.push({ line: line.slice(1), number: lineNumber });
      fromDiff.set(current, list);
      lineNumber += 1;
    } else if (!line.startsWith('-')) {
      lineNumber += 1;
    }
  }
  for (const file of files) {
    if (fromDiff.has(file)) {
      result.set(file, fromDiff.get(file) ?? []);
    } else if (changes?.get(file)?.kind !== 'modified') {
      // Not a git workspace (or a new file): every line counts.
      const text = ctx.facts.read(file) ?? '';
      result.set(
        file,
        text.split('\n').map((line, index) => ({ line, number: index + 1 })),
      );
    }
  }
  return result;
}
