import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** Every file of a workspace (skipping `.git` and `node_modules`) and its content. */
export function snapshotWorkspace(root: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      if (name === '.git' || name === 'node_modules') continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(root, path).split(sep).join('/'), readFileSync(path, 'utf8'));
    }
  };
  walk(root);
  return files;
}

/** The guard line the scenario's `edit_file` inserts into src/is-prime.js. */
const guardLine = 'if (!Number.isInteger(n) || n < 2) return false;';

/**
 * How many times each of the scenario's non-idempotent effects shows in a workspace, read from
 * the files themselves (never from the journal, which could be wrong): the `edit_file`
 * insertion (guard lines in src/is-prime.js) and the release script (the patch number of
 * package.json's version, from 1.0.0).
 */
export function countEffects(files: ReadonlyMap<string, string>): { edits: number; releases: number } {
  const source = files.get('src/is-prime.js') ?? '';
  const edits = source.split(guardLine).length - 1;
  let releases = 0;
  try {
    const version = String(
      (JSON.parse(files.get('package.json') ?? '{}') as { version?: unknown }).version ?? '',
    );
    const patch = /^1\.0\.(\d+)$/.exec(version);
    releases = patch ? Number(patch[1]) : -1;
  } catch {
    releases = -1;
  }
  return { edits, releases };
}

/** The files that differ between two snapshots (added, removed or changed). */
export function diffWorkspaces(
  expected: ReadonlyMap<string, string>,
  actual: ReadonlyMap<string, string>,
): string[] {
  const differ: string[] = [];
  for (const [path, content] of expected) if (actual.get(path) !== content) differ.push(path);
  for (const path of actual.keys()) if (!expected.has(path)) differ.push(path);
  return differ.sort();
}
