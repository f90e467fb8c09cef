import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const skipped = new Set(['.git', 'node_modules', '.closedloop']);
const maxFiles = 5_000;
const maxFileBytes = 1 << 20;

/**
 * A content fingerprint of a workspace folder: SHA-256 over every file's relative path and
 * content hash (files over 1 MiB by size and mtime), skipping `.git`, `node_modules` and
 * `.closedloop`, at most 5 000 files. Unreadable entries are skipped. Returns `''` for no workspace.
 */
export function fingerprintWorkspace(root: string | undefined): string {
  if (root === undefined) return '';
  const hash = createHash('sha256');
  const stack = [root];
  const files: string[] = [];
  while (stack.length > 0 && files.length < maxFiles) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      if (skipped.has(name)) continue;
      const path = join(dir, name);
      try {
        const stat = lstatSync(path);
        if (stat.isDirectory()) stack.push(path);
        else if (stat.isFile()) files.push(path);
      } catch {
        // vanished while walking
      }
    }
  }
  files.sort();
  for (const path of files.slice(0, maxFiles)) {
    try {
      const stat = lstatSync(path);
      const content =
        stat.size > maxFileBytes
          ? `${stat.size}:${stat.mtimeMs}`
          : createHash('sha256').update(readFileSync(path)).digest('hex');
      hash.update(`${relative(root, path).split(sep).join('/')}\0${content}\n`);
    } catch {
      // vanished while hashing
    }
  }
  return hash.digest('hex');
}

/** SHA-256 of a JSON value (keys in the order given). */
export function hashJson(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}
