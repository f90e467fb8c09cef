import { constants } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { gitProtectedReason } from './git-repository';
import {
  type Descriptor,
  lstatBeneath,
  openChildFolder,
  openFileBeneath,
  openFolderBeneath,
  readFolderInTurns,
  removeInterruptedWritesBeneath,
  removeTreeBeneath,
  replaceFileBeneath,
  unlinkBeneath,
} from './open-beneath';
import { resolveInWorkspace, workspaceRelative } from './resolve-in-workspace';
import { productStateFolder } from './sandbox';
import type { AnyTool } from './tool';
import { ToolError } from './tool-error';
import { beginWorkspaceActivity } from './workspace-activity';

/** Options the file tools share. */
export interface FileToolsOptions {
  root: string;
  /** `read_file` refuses larger files. Default 5 MiB. */
  maxReadBytes?: number;
  /** `edit_file` refuses larger files (it reads and searches them whole). Default 16 MiB. */
  maxEditBytes?: number;
  /** `list_dir` stops after this many entries. Default 1000. */
  maxListEntries?: number;
}

const skippedInRecursiveListing: ReadonlySet<string> = new Set(['.git', 'node_modules']);

function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

function notFound(relative: string, cause: unknown): Error {
  return new Error(`${relative} does not exist. Use list_dir to see what is there.`, { cause });
}

function parentIsFile(relative: string, cause: unknown): Error {
  return new Error(`A parent of ${relative} is a file, not a folder.`, { cause });
}

async function realRootOf(root: string): Promise<string> {
  return resolveInWorkspace(root, '.');
}

/** Refuses writes into git directories (by content, bare ones included): config and hooks run commands. */
async function assertNotProtected(userPath: string, realRoot: string, absolute: string): Promise<void> {
  const first = path.relative(realRoot, absolute).split(path.sep)[0];
  const reason =
    first?.toLowerCase() === productStateFolder
      ? `${productStateFolder} is closedloop's own folder (run journals): it is not written with file tools`
      : await gitProtectedReason(realRoot, absolute);
  if (reason !== undefined) {
    throw new ToolError({
      code: 'path-escape',
      message: `Path ${JSON.stringify(userPath)} is refused: ${reason}.`,
      details: { path: userPath, reason: 'protected' },
    });
  }
}

/** A file with several names may be a link to a file outside the workspace. */
function refuseHardLink(relative: string, links: number, action: 'write' | 'read'): ToolError {
  return new ToolError({
    code: 'path-escape',
    message: `${relative} has ${links} hard links: one may be outside the workspace, so it is not ${action === 'write' ? 'written through' : 'read'}. ${action === 'write' ? 'Delete it and write a new file instead.' : 'Copy what you need with a command.'}`,
    details: { path: relative, reason: 'hard link', links },
  });
}

/** Package managers (pnpm's store, npm's cache) hard-link files into `node_modules`: those may be read. */
function readableHardLink(relative: string): boolean {
  return relative.split('/').includes('node_modules');
}

function looksBinary(buffer: Buffer): boolean {
  return buffer.subarray(0, 8192).includes(0);
}

/**
 * Replaces `relative` (the file `name` of the open `folder`) with `text`, atomically (see
 * {@link replaceFileBeneath}): a kill at any moment leaves the file as it was or whole, never
 * torn. When the write fails (a full disk: ENOSPC / EFBIG) the file is untouched and the error
 * says so: a failed write never leaves a half-written file behind that looks like the call's result.
 */
async function replaceContent(options: {
  folder: Descriptor;
  name: string;
  realRoot: string;
  relative: string;
  absolute: string;
  text: string;
  /** The permission bits to keep (the file's before the call); none for a new file. */
  mode?: number;
  /** The owner to keep (the file's before the call). */
  owner?: { uid: number; gid: number };
}): Promise<void> {
  try {
    await replaceFileBeneath({
      folder: options.folder,
      name: options.name,
      bytes: Buffer.from(options.text, 'utf8'),
      root: options.realRoot,
      relative: options.relative,
      fallbackAbsolute: options.absolute,
      ...(options.mode === undefined ? {} : { mode: options.mode }),
      ...(options.owner === undefined ? {} : { owner: options.owner }),
    });
  } catch (error) {
    if (ToolError.isInstance(error)) throw error;
    throw new Error(
      `Could not write ${options.relative} (${errnoCode(error) ?? (error instanceof Error ? error.message : String(error))}): it was left as it was before the call.`,
      { cause: error },
    );
  }
}

function closeBoth(opened: { file: Descriptor; folder: Descriptor }): void {
  opened.file.close();
  opened.folder.close();
}

/**
 * Removes what a `write_file` / `edit_file` of `userPath` killed in the middle left beside it: the
 * temporary file it was writing before renaming it into place (the file itself is as it was, or
 * whole). Resume calls this for each interrupted file call; nothing else is touched, nothing
 * outside the workspace is followed. Returns the workspace-relative paths removed.
 */
export async function removeInterruptedWrites(root: string, userPath: string): Promise<string[]> {
  const ended = beginWorkspaceActivity();
  try {
    return await removeInterruptedWritesOf(root, userPath);
  } finally {
    ended();
  }
}

async function removeInterruptedWritesOf(root: string, userPath: string): Promise<string[]> {
  const normalized = path.posix.normalize(userPath.replace(/\\/g, '/')).replace(/\/+$/, '');
  let parent: string;
  try {
    parent = await resolveInWorkspace(root, path.posix.dirname(normalized));
  } catch {
    return []; // the folder is gone (or was never there): nothing was left in it
  }
  const realRoot = await realRootOf(root);
  let folder: Descriptor;
  try {
    folder = await openFolderBeneath(realRoot, path.relative(realRoot, parent));
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return [];
    throw error;
  }
  try {
    const removed = removeInterruptedWritesBeneath(folder, path.posix.basename(normalized), parent);
    return removed.map((name) => workspaceRelative(realRoot, path.join(parent, name)));
  } finally {
    folder.close();
  }
}

/** Builds `read_file`, `write_file`, `edit_file`, `list_dir` and `delete_file` for `root`. */
export function fileTools(options: FileToolsOptions): AnyTool[] {
  const { root } = options;
  const maxReadBytes = options.maxReadBytes ?? 5 * 1024 * 1024;
  const maxEditBytes = options.maxEditBytes ?? 16 * 1024 * 1024;
  const maxListEntries = options.maxListEntries ?? 1000;

  const readFile = defineTool({
    name: 'read_file',
    description:
      'Read a UTF-8 text file in the workspace. Paths are relative to the workspace root. Optionally pass start_line/end_line (1-based, inclusive) to read part of a large file.',
    input: z.object({
      path: z.string().min(1).describe('File path relative to the workspace root'),
      start_line: z.number().int().min(1).optional().describe('First line to return (1-based)'),
      end_line: z.number().int().min(1).optional().describe('Last line to return (inclusive)'),
    }),
    idempotent: true,
    async execute(input) {
      const absolute = await resolveInWorkspace(root, input.path);
      const realRoot = await realRootOf(root);
      const relative = workspaceRelative(realRoot, absolute);
      if (absolute === realRoot) throw new Error('The workspace root is a directory: use list_dir.');
      let opened: { file: Descriptor; folder: Descriptor };
      try {
        opened = await openFileBeneath(realRoot, path.relative(realRoot, absolute), constants.O_RDONLY);
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') throw notFound(relative, error);
        if (errnoCode(error) === 'EISDIR') throw new Error(`${relative} is a directory: use list_dir.`);
        if (errnoCode(error) === 'ENOTDIR') throw parentIsFile(relative, error);
        throw error;
      }
      try {
        const stats = opened.file.stat();
        if (stats.isDirectory()) throw new Error(`${relative} is a directory: use list_dir.`);
        if (stats.nlink > 1 && !readableHardLink(relative))
          throw refuseHardLink(relative, stats.nlink, 'read');
        const overLimit = (size: string) =>
          new Error(
            `${relative} is ${size}, over the ${maxReadBytes}-byte read limit. Search it with run_command (rg/grep) instead.`,
          );
        if (stats.size > maxReadBytes) throw overLimit(`${stats.size} bytes`);
        // Bounded whatever the stat said: the file may grow while it is read.
        const buffer = opened.file.readAtMost(maxReadBytes, stats.size);
        if (buffer.length > maxReadBytes) throw overLimit('growing');
        if (looksBinary(buffer))
          throw new Error(
            `${relative} is a binary file (${buffer.length} bytes); read_file reads text only.`,
          );
        const text = buffer.toString('utf8');
        if (input.start_line === undefined && input.end_line === undefined) return text;
        const lines = text.split('\n');
        const start = input.start_line ?? 1;
        const end = Math.min(input.end_line ?? lines.length, lines.length);
        if (start > lines.length)
          throw new Error(`${relative} has ${lines.length} lines; start_line ${start} is past the end.`);
        if (end < start) throw new Error(`end_line ${end} is before start_line ${start}.`);
        return lines.slice(start - 1, end).join('\n');
      } finally {
        closeBoth(opened);
      }
    },
  });

  const writeFile = defineTool({
    name: 'write_file',
    description:
      'Create or overwrite a UTF-8 text file in the workspace with the given content. Missing parent folders are created. Paths are relative to the workspace root.',
    input: z.object({
      path: z.string().min(1).describe('File path relative to the workspace root'),
      content: z.string().describe('The complete new content of the file'),
    }),
    idempotent: true,
    async execute(input) {
      const absolute = await resolveInWorkspace(root, input.path);
      const realRoot = await realRootOf(root);
      const relative = workspaceRelative(realRoot, absolute);
      if (absolute === realRoot)
        throw new Error('The workspace root is a directory, not a file: give a file path.');
      await assertNotProtected(input.path, realRoot, absolute);
      // The file there now (if any) is opened for writing, not changed: that checks it may be
      // written (a read-only file is refused) and is a regular file with one name. The new content
      // then replaces it atomically (a temporary file renamed over it).
      const target = path.relative(realRoot, absolute);
      const name = path.basename(target);
      let existing: { file: Descriptor; folder: Descriptor } | undefined;
      let folder: Descriptor;
      try {
        try {
          existing = await openFileBeneath(realRoot, target, constants.O_RDWR, { createParents: true });
          folder = existing.folder;
        } catch (error) {
          if (errnoCode(error) !== 'ENOENT') throw error;
          const parent = path.dirname(target);
          folder = await openFolderBeneath(realRoot, parent === '.' ? '' : parent, { create: true });
        }
      } catch (error) {
        if (errnoCode(error) === 'EISDIR') throw new Error(`${relative} is a directory: give a file path.`);
        if (errnoCode(error) === 'ENOTDIR')
          throw new Error(`A parent of ${relative} is a file, not a folder.`, { cause: error });
        throw error;
      }
      try {
        let mode: number | undefined;
        let owner: { uid: number; gid: number } | undefined;
        if (existing !== undefined) {
          const stats = existing.file.stat();
          if (stats.isDirectory()) throw new Error(`${relative} is a directory: give a file path.`);
          if (stats.nlink > 1) throw refuseHardLink(relative, stats.nlink, 'write');
          mode = stats.mode & 0o7777;
          owner = { uid: stats.uid, gid: stats.gid };
        }
        await replaceContent({
          folder,
          name,
          realRoot,
          relative,
          absolute,
          text: input.content,
          ...(mode === undefined ? {} : { mode }),
          ...(owner === undefined ? {} : { owner }),
        });
        return {
          path: relative,
          bytes: Buffer.byteLength(input.content, 'utf8'),
          created: existing === undefined,
        };
      } finally {
        if (existing !== undefined) closeBoth(existing);
        else folder.close();
      }
    },
  });

  const editFile = defineTool({
    name: 'edit_file',
    description:
      'Replace one exact occurrence of old_string with new_string in a workspace file. old_string must match exactly once (including whitespace); include surrounding lines to make it unique.',
    input: z.object({
      path: z.string().min(1).describe('File path relative to the workspace root'),
      old_string: z.string().min(1).describe('Exact text to replace; must occur exactly once'),
      new_string: z.string().describe('Replacement text'),
    }),
    // Applying an edit twice changes the file again (an insertion is inserted twice).
    idempotent: false,
    async execute(input) {
      const absolute = await resolveInWorkspace(root, input.path);
      const realRoot = await realRootOf(root);
      const relative = workspaceRelative(realRoot, absolute);
      await assertNotProtected(input.path, realRoot, absolute);
      let opened: { file: Descriptor; folder: Descriptor };
      try {
        opened = await openFileBeneath(realRoot, path.relative(realRoot, absolute), constants.O_RDWR);
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') throw notFound(relative, error);
        if (errnoCode(error) === 'EISDIR') throw new Error(`${relative} is a directory, not a file.`);
        if (errnoCode(error) === 'ENOTDIR') throw parentIsFile(relative, error);
        throw error;
      }
      try {
        const stats = opened.file.stat();
        if (stats.nlink > 1) throw refuseHardLink(relative, stats.nlink, 'write');
        // Read, searched and rewritten whole, synchronously: bounded, so no file holds the event loop.
        const overLimit = (size: string) =>
          new Error(
            `${relative} is ${size}, over the ${maxEditBytes}-byte edit limit. Change it with run_command instead.`,
          );
        if (stats.size > maxEditBytes) throw overLimit(`${stats.size} bytes`);
        const original = opened.file.readAtMost(maxEditBytes, stats.size);
        if (original.length > maxEditBytes) throw overLimit('growing');
        const text = original.toString('utf8');
        const first = text.indexOf(input.old_string);
        if (first === -1) {
          throw new Error(
            `old_string was not found in ${relative}. Read the file again and copy the exact text, including whitespace.`,
          );
        }
        let count = 0;
        for (let at = first; at !== -1; at = text.indexOf(input.old_string, at + 1)) count++;
        if (count > 1) {
          throw new Error(
            `old_string occurs ${count} times in ${relative}; it must be unique. Include more surrounding lines.`,
          );
        }
        const next = text.slice(0, first) + input.new_string + text.slice(first + input.old_string.length);
        await replaceContent({
          folder: opened.folder,
          name: path.basename(absolute),
          realRoot,
          relative,
          absolute,
          text: next,
          mode: stats.mode & 0o7777,
          owner: { uid: stats.uid, gid: stats.gid },
        });
        const line = text.slice(0, first).split('\n').length;
        return { path: relative, replacements: 1, line };
      } finally {
        closeBoth(opened);
      }
    },
  });

  const listDir = defineTool({
    name: 'list_dir',
    description:
      'List a workspace folder: name, type (file, directory, symlink) and size. recursive=true walks sub-folders (skipping .git and node_modules).',
    input: z.object({
      path: z.string().min(1).default('.').describe('Folder path relative to the workspace root'),
      recursive: z.boolean().default(false),
    }),
    idempotent: true,
    async execute(input) {
      const absolute = await resolveInWorkspace(root, input.path);
      const realRoot = await realRootOf(root);
      const relative = workspaceRelative(realRoot, absolute);
      let top: Descriptor;
      try {
        top = await openFolderBeneath(realRoot, path.relative(realRoot, absolute));
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') throw notFound(relative, error);
        if (errnoCode(error) === 'ENOTDIR')
          throw new Error(`${relative} is a file, not a folder: use read_file.`);
        throw error;
      }
      const entries: { path: string; type: 'file' | 'directory' | 'symlink' | 'other'; size?: number }[] = [];
      let truncated = false;
      const walk = async (folder: Descriptor, folderAbsolute: string): Promise<void> => {
        const dirents = (await readFolderInTurns(folder, folderAbsolute)).sort((a, b) =>
          a.name.localeCompare(b.name),
        );
        for (const dirent of dirents) {
          if (entries.length >= maxListEntries) {
            truncated = true;
            return;
          }
          const full = path.join(folderAbsolute, dirent.name);
          const entryPath = workspaceRelative(realRoot, full);
          if (dirent.isSymbolicLink()) entries.push({ path: entryPath, type: 'symlink' });
          else if (dirent.isDirectory()) {
            entries.push({ path: entryPath, type: 'directory' });
            if (input.recursive && !skippedInRecursiveListing.has(dirent.name)) {
              let child: Descriptor;
              try {
                child = await openChildFolder(folder, dirent.name, realRoot, path.relative(realRoot, full));
              } catch (error) {
                if (ToolError.isInstance(error)) continue; // swapped for a link meanwhile: not followed
                throw error;
              }
              try {
                await walk(child, full);
              } finally {
                child.close();
              }
            }
          } else if (dirent.isFile()) {
            const size = lstatBeneath(folder, dirent.name, full).size;
            entries.push({ path: entryPath, type: 'file', size });
          } else entries.push({ path: entryPath, type: 'other' });
        }
      };
      try {
        await walk(top, absolute);
      } finally {
        top.close();
      }
      return { path: relative, entries, truncated };
    },
  });

  const deleteFile = defineTool({
    name: 'delete_file',
    description:
      'Delete a file (or a symlink) in the workspace. Folders need recursive=true. The workspace root and git repositories cannot be deleted.',
    input: z.object({
      path: z.string().min(1).describe('Path relative to the workspace root'),
      recursive: z.boolean().default(false).describe('Required to delete a folder and its contents'),
    }),
    destructive: true,
    async execute(input) {
      const absolute = await resolveInWorkspace(root, input.path);
      const realRoot = await realRootOf(root);
      if (absolute === realRoot) throw new Error('The workspace root cannot be deleted.');
      // The link itself, not its target, is what a path naming a symlink deletes.
      const normalized = path.posix.normalize(input.path.replace(/\\/g, '/')).replace(/\/+$/, '');
      const parent = await resolveInWorkspace(root, path.posix.dirname(normalized));
      const name = path.posix.basename(normalized);
      const named = path.join(parent, name);
      const relative = workspaceRelative(realRoot, named);
      await assertNotProtected(input.path, realRoot, absolute);
      await assertNotProtected(input.path, realRoot, named);
      let folder: Descriptor;
      try {
        folder = await openFolderBeneath(realRoot, path.relative(realRoot, parent));
      } catch (error) {
        if (errnoCode(error) === 'ENOENT') throw notFound(relative, error);
        if (errnoCode(error) === 'ENOTDIR') throw parentIsFile(relative, error);
        throw error;
      }
      try {
        let stats: Awaited<ReturnType<typeof lstatBeneath>>;
        try {
          stats = lstatBeneath(folder, name, named);
        } catch (error) {
          if (errnoCode(error) === 'ENOENT') throw notFound(relative, error);
          throw error;
        }
        if (stats.isSymbolicLink()) {
          unlinkBeneath(folder, name, named);
          return { path: relative, deleted: 'symlink' as const };
        }
        if (stats.isDirectory()) {
          if (!input.recursive)
            throw new Error(`${relative} is a folder: pass recursive=true to delete it and its contents.`);
          await removeTreeBeneath(folder, name, named);
          return { path: relative, deleted: 'directory' as const };
        }
        unlinkBeneath(folder, name, named);
        return { path: relative, deleted: 'file' as const };
      } finally {
        folder.close();
      }
    },
  });

  return [readFile, writeFile, editFile, listDir, deleteFile];
}
