import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DemoError } from '../demo-error';

function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
}

/** The nearest existing ancestor of `path` that is not a folder, if any (`/dev/null` for `/dev/null/x`). */
function fileInTheWay(path: string): string | undefined {
  for (let current = dirname(path); current !== dirname(current); current = dirname(current)) {
    try {
      return statSync(current).isDirectory() ? undefined : current;
    } catch {
      // Missing: look further up.
    }
  }
  return undefined;
}

/**
 * Makes sure `path` is a folder we can write to, creating it (and its parents) when missing.
 * Returns the absolute path; anything else is a `DemoError('invalid-argument')` naming `label`
 * (the flag) and saying why.
 */
export function ensureFolder(path: string, label: string): string {
  const absolute = resolve(path);
  const refuse = (why: string): never => {
    throw new DemoError('invalid-argument', `${label} "${path}" ${why}`);
  };
  try {
    if (!statSync(absolute).isDirectory())
      refuse('is a file, not a folder. Give a folder (it is created when missing).');
  } catch (error) {
    if (DemoError.isInstance(error)) throw error;
    const code = errnoCode(error);
    if (code === 'ENOTDIR')
      refuse(`cannot be a folder: ${fileInTheWay(absolute) ?? 'a part of it'} is a file.`);
    if (code !== 'ENOENT') refuse(`cannot be used (${code ?? String(error)}).`);
    try {
      mkdirSync(absolute, { recursive: true });
    } catch (mkdirError) {
      const mkdirCode = errnoCode(mkdirError);
      if (mkdirCode === 'ENOTDIR' || mkdirCode === 'EEXIST') {
        refuse(`cannot be created: ${fileInTheWay(absolute) ?? 'a part of it'} is a file.`);
      }
      refuse(`cannot be created (${mkdirCode ?? String(mkdirError)}). Give a folder you can write to.`);
    }
  }
  try {
    accessSync(absolute, constants.W_OK);
  } catch {
    refuse('is not writable. Give a folder you can write to.');
  }
  return absolute;
}
