import { existsSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, resolve } from 'node:path';
import type { CliIo } from './cli-context';

function quote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** A path as the user can type it from `cwd`: relative inside it, absolute outside. */
export function displayPath(path: string, cwd: string): string {
  const absolute = resolve(cwd, path);
  const inside = relative(cwd, absolute);
  return quote(inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : absolute);
}

/**
 * How the user can run this CLI again from `cwd`, as a shell command prefix: `npx closedloop`
 * where the project's `node_modules/.bin` has it (a clone of this repository, or a project that
 * installed it), `closedloop` when it is on PATH, else `node <the file that was run>`.
 */
export function cliCommand(io: Pick<CliIo, 'env' | 'cwd' | 'binPath'>): string {
  if (existsSync(join(io.cwd, 'node_modules', '.bin', 'closedloop'))) return 'npx closedloop';
  for (const dir of (io.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'closedloop'))) return 'closedloop';
  }
  return `node ${displayPath(io.binPath, io.cwd)}`;
}
