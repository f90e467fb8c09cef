import { accessSync, constants, mkdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { DemoError } from '../demo-error';

function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Checks, without creating anything, that `path` is or can become a folder we can write to:
 * an existing folder, or missing below an existing writable folder with no file in the way.
 * Returns the absolute path; anything else is a `DemoError('invalid-argument')` naming `label`
 * (the flag) and saying why.
 */
export function checkFolder(path: string, label: string): string {
  const absolute = resolve(path);
  const refuse = (why: string): never => {
    throw new DemoError('invalid-argument', `${label} "${path}" ${why}`);
  };
  for (let current = absolute; ; current = dirname(current)) {
    let isFolder: boolean;
    try {
      isFolder = statSync(current).isDirectory();
    } catch (error) {
      const code = errnoCode(error);
      if ((code === 'ENOENT' || code === 'ENOTDIR') && current !== dirname(current)) continue;
      return refuse(`cannot be used (${code ?? String(error)}).`);
    }
    if (!isFolder) {
      return current === absolute
        ? refuse('is a file, not a folder. Give a folder (it is created when missing).')
        : refuse(`cannot be a folder: ${current} is a file.`);
    }
    if (!writable(current)) {
      return current === absolute
        ? refuse('is not writable. Give a folder you can write to.')
        : refuse(`cannot be created: ${current} is not writable.`);
    }
    return absolute;
  }
}

/** {@link checkFolder}, then creates the folder (and its parents) when missing. */
export function ensureFolder(path: string, label: string): string {
  const absolute = checkFolder(path, label);
  try {
    mkdirSync(absolute, { recursive: true });
  } catch (error) {
    throw new DemoError(
      'invalid-argument',
      `${label} "${path}" cannot be created (${errnoCode(error) ?? String(error)}).`,
    );
  }
  return absolute;
}

/**
 * Refuses a journal folder inside the workspace: the agent's tools write the workspace, so it
 * could rewrite its own journal — the events a resume trusts, and the workspace it confines the
 * resumed run to.
 */
export function checkJournalOutsideWorkspace(journal: string, workspace: string): void {
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  const inside = relative(real(workspace), real(journal));
  if (inside === '' || (!inside.startsWith('..') && !isAbsolute(inside))) {
    throw new DemoError(
      'invalid-argument',
      `The journal folder "${journal}" is inside the workspace "${workspace}": the agent could rewrite its own journal. Pass a --journal outside the workspace.`,
    );
  }
}
