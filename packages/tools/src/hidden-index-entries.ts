import { createHash } from 'node:crypto';
import { lstatSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import { MAX_GIT_INDEX_BYTES, MAX_GIT_TEXT_BYTES, readBoundedSync } from './read-bounded';

/**
 * A file of the git directory or the work tree as UTF-8, read without blocking and bounded: a
 * command writes both, and a FIFO or a link to `/dev/zero` left there (`.git`, `commondir`,
 * `index`) read the ordinary way would hold the whole process for good.
 */
const readGitText = (file: string) => readBoundedSync(file, MAX_GIT_TEXT_BYTES)?.toString('utf8');

/**
 * A file the git index tells `git status` and `git diff` not to look at: its `assume-unchanged`
 * bit (`git update-index --assume-unchanged`) or its `skip-worktree` bit (sparse checkouts,
 * `git update-index --skip-worktree`). A command can set either to hide a change from every git
 * view of the workspace — a reviewer's diff included.
 */
export interface HiddenIndexEntry {
  /** The path in the repository (forward slashes). */
  path: string;
  /** The object id the index holds for it (hex). */
  oid: string;
  /** Which bit hides it. */
  bit: 'assume-unchanged' | 'skip-worktree';
}

const ASSUME_VALID = 0x8000;
const EXTENDED = 0x4000;
const SKIP_WORKTREE = 0x4000;

/** The repository's git directory (`.git`, or where a `.git` file of a linked worktree points). */
export function gitDirOf(gitTop: string): string | undefined {
  const dotGit = path.join(gitTop, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return dotGit;
    const pointer = /^gitdir:\s*(.+?)\s*$/m.exec(readGitText(dotGit) ?? '')?.[1];
    return pointer === undefined ? undefined : path.resolve(gitTop, pointer);
  } catch {
    return undefined;
  }
}

/**
 * Reads the entries of a git index (versions 2, 3 and 4) whose `assume-unchanged` or
 * `skip-worktree` bit is set. `undefined` when the bytes are not an index this reader understands
 * with object ids of `oidBytes` (20: SHA-1, 32: SHA-256): the caller then asks git.
 */
export function parseHiddenIndexEntries(index: Buffer, oidBytes: 20 | 32): HiddenIndexEntry[] | undefined {
  if (index.length < 12 || index.toString('latin1', 0, 4) !== 'DIRC') return undefined;
  const version = index.readUInt32BE(4);
  if (version < 2 || version > 4) return undefined;
  const count = index.readUInt32BE(8);
  const hidden: HiddenIndexEntry[] = [];
  let offset = 12;
  let previous = '';
  for (let entry = 0; entry < count; entry++) {
    const start = offset;
    const fixed = 40 + oidBytes + 2;
    if (offset + fixed > index.length) return undefined;
    const oid = index.toString('hex', offset + 40, offset + 40 + oidBytes);
    const flags = index.readUInt16BE(offset + 40 + oidBytes);
    offset += fixed;
    let extended = 0;
    if (flags & EXTENDED) {
      if (version < 3 || offset + 2 > index.length) return undefined;
      extended = index.readUInt16BE(offset);
      offset += 2;
    }
    let name: string;
    if (version === 4) {
      // The path is the previous one less N trailing bytes, plus a NUL-terminated suffix.
      let byte = index[offset++];
      if (byte === undefined) return undefined;
      let strip = byte & 127;
      while (byte & 128) {
        byte = index[offset++];
        if (byte === undefined) return undefined;
        strip = ((strip + 1) << 7) + (byte & 127);
      }
      const end = index.indexOf(0, offset);
      if (end < 0 || strip > previous.length) return undefined;
      name = previous.slice(0, previous.length - strip) + index.toString('utf8', offset, end);
      offset = end + 1;
    } else {
      const end = index.indexOf(0, offset);
      if (end < 0) return undefined;
      name = index.toString('utf8', offset, end);
      // Padded with 1–8 NULs to a multiple of 8 bytes from the entry's start.
      offset = start + ((end - start + 8) & ~7);
      if (offset > index.length) return undefined;
    }
    const stage = (flags >> 12) & 3;
    if (stage === 0 && (flags & ASSUME_VALID || extended & SKIP_WORKTREE)) {
      hidden.push({ path: name, oid, bit: extended & SKIP_WORKTREE ? 'skip-worktree' : 'assume-unchanged' });
    }
    previous = name;
  }
  return hidden;
}

/** Parses `git ls-files -v -s -z` output (the fallback when the index cannot be read directly). */
export function parseLsFilesTags(output: string): HiddenIndexEntry[] {
  const hidden: HiddenIndexEntry[] = [];
  for (const line of output.split('\0')) {
    const match = /^(\S) \d+ ([0-9a-f]+) 0\t(.+)$/s.exec(line);
    if (!match) continue;
    const [, tag = '', oid = '', file = ''] = match;
    // Lower case: assume-unchanged; S (or s, both bits): skip-worktree.
    if (tag === 'S' || tag === 's') hidden.push({ path: file, oid, bit: 'skip-worktree' });
    else if (tag !== tag.toUpperCase()) hidden.push({ path: file, oid, bit: 'assume-unchanged' });
  }
  return hidden;
}

/** The object id git gives `content` as a blob (no clean filters applied). */
export function blobOid(content: Buffer, oidBytes: 20 | 32): string {
  return createHash(oidBytes === 32 ? 'sha256' : 'sha1')
    .update(`blob ${content.length}\0`)
    .update(content)
    .digest('hex');
}

/** The length of the repository's object ids: 32 bytes when it uses SHA-256, else 20. */
export function oidBytesOf(gitDir: string | undefined): 20 | 32 {
  if (gitDir === undefined) return 20;
  let common = gitDir;
  const commondir = readGitText(path.join(gitDir, 'commondir'));
  // Without one, not a linked worktree: the config is in the git directory itself.
  if (commondir !== undefined) common = path.resolve(gitDir, commondir.trim());
  return /^\s*objectformat\s*=\s*sha256\s*$/im.test(readGitText(path.join(common, 'config')) ?? '') ? 32 : 20;
}

/**
 * The hidden entries of the index of the repository at `gitTop`, read from the index file (no
 * process): `[]` without an index, `undefined` when the index is one this reader does not
 * understand (the caller then asks `git ls-files -v -s -z` and uses {@link parseLsFilesTags}).
 */
export function readHiddenIndexEntries(gitTop: string): HiddenIndexEntry[] | undefined {
  const gitDir = gitDirOf(gitTop);
  if (gitDir === undefined) return undefined;
  const indexFile = path.join(gitDir, 'index');
  const index = readBoundedSync(indexFile, MAX_GIT_INDEX_BYTES);
  if (index === undefined) {
    // No index yet (a repository before its first add): nothing can be hidden. A FIFO, a device
    // or a huge file: git is asked.
    return lstatSync(indexFile, { throwIfNoEntry: false }) === undefined ? [] : undefined;
  }
  return parseHiddenIndexEntries(index, oidBytesOf(gitDir));
}

/**
 * How a hidden entry's file changed: its content against the index's (`modified`), gone
 * (`deleted`, assume-unchanged only: a sparse checkout leaves skip-worktree files out on
 * purpose), not a file any more (`other`); undefined when it did not change.
 */
export function hiddenEntryChange(
  gitTop: string,
  entry: HiddenIndexEntry,
): 'modified' | 'deleted' | 'other' | undefined {
  const file = path.join(gitTop, entry.path);
  let content: Buffer;
  try {
    const info = lstatSync(file);
    if (info.isSymbolicLink()) content = Buffer.from(readlinkSync(file));
    else if (!info.isFile()) return 'other';
    // Too large to hash here: changed as far as anyone can tell (never "unchanged" unseen).
    else if (info.size > 64 * 1024 * 1024) return 'modified';
    else {
      // Swapped for a FIFO or a device since the lstat: changed.
      const read = readBoundedSync(file, 64 * 1024 * 1024);
      if (read === undefined) return 'other';
      content = read;
    }
  } catch {
    return entry.bit === 'skip-worktree' ? undefined : 'deleted';
  }
  return blobOid(content, entry.oid.length === 64 ? 32 : 20) === entry.oid ? undefined : 'modified';
}
