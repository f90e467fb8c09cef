import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { blobOid, parseHiddenIndexEntries, parseLsFilesTags } from './hidden-index-entries';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real repository whose index hides two files, written by git at `version` (and `format`). */
function repository(version: number, format: 'sha1' | 'sha256' = 'sha1') {
  const dir = mkdtempSync(path.join(tmpdir(), 'closedloop-index-'));
  made.push(dir);
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
      encoding: 'utf8',
    });
  git('init', '-q', `--object-format=${format}`);
  // Long shared prefixes exercise version 4's path compression.
  for (const name of ['src/deep/folder/one.ts', 'src/deep/folder/two.ts', 'src/deep/other.ts', 'z.txt'])
    writeFileSync(path.join(dir, name.replaceAll('/', '-')), `${name}\n`);
  git('add', '.');
  git('commit', '-qm', 'init');
  git('update-index', `--index-version=${version}`);
  git('update-index', '--assume-unchanged', 'src-deep-folder-two.ts');
  git('update-index', '--skip-worktree', 'z.txt');
  return {
    index: readFileSync(path.join(dir, '.git', 'index')),
    listed: git('ls-files', '-v', '-s', '-z'),
    dir,
  };
}

describe('parseHiddenIndexEntries', () => {
  it.each([2, 3, 4])('reads the hidden entries of a real index, version %i', (version) => {
    const { index, listed, dir } = repository(version);
    const hidden = parseHiddenIndexEntries(index, 20);
    expect(hidden?.map(({ path: file, bit }) => [file, bit])).toEqual([
      ['src-deep-folder-two.ts', 'assume-unchanged'],
      ['z.txt', 'skip-worktree'],
    ]);
    // The same object ids git lists, and the one the file's content has.
    expect(hidden).toEqual(parseLsFilesTags(listed));
    expect(hidden?.[1]?.oid).toBe(blobOid(readFileSync(path.join(dir, 'z.txt')), 20));
  });

  it('reads a SHA-256 repository with 32-byte object ids', () => {
    const { index, listed } = repository(2, 'sha256');
    const hidden = parseHiddenIndexEntries(index, 32);
    expect(hidden).toHaveLength(2);
    expect(hidden).toEqual(parseLsFilesTags(listed));
    expect(hidden?.[0]?.oid).toHaveLength(64);
  });

  it('answers undefined (ask git) for bytes it does not understand', () => {
    const { index } = repository(2);
    expect(parseHiddenIndexEntries(Buffer.from('not an index'), 20)).toBeUndefined();
    expect(parseHiddenIndexEntries(index.subarray(0, 40), 20)).toBeUndefined();
    const future = Buffer.from(index);
    future.writeUInt32BE(5, 4);
    expect(parseHiddenIndexEntries(future, 20)).toBeUndefined();
  });
});

describe('readHiddenIndexEntries against special files a command left in the git directory', () => {
  // Read in a child process: a synchronous read of a FIFO would hold this one for good.
  const reader = path.join(path.dirname(new URL(import.meta.url).pathname), 'hidden-index-entries.ts');
  const readIn = (top: string) =>
    spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const m = await import(${JSON.stringify(reader)}); console.log(JSON.stringify(m.readHiddenIndexEntries(${JSON.stringify(top)}) ?? null));`,
      ],
      { encoding: 'utf8', timeout: 20_000 },
    );

  it.each([
    ['.git/index', 'fifo'],
    ['.git/index', '/dev/zero'],
    ['.git/commondir', 'fifo'],
    ['.git', 'fifo'],
  ])('%s as a %s: an answer (ask git), never a hang', (file, kind) => {
    const top = mkdtempSync(path.join(tmpdir(), 'hidden-special-'));
    made.push(top);
    execFileSync('git', ['init', '-q', top]);
    writeFileSync(path.join(top, 'a.txt'), 'a\n');
    execFileSync('git', ['add', 'a.txt'], { cwd: top });
    const target = path.join(top, file);
    rmSync(target, { recursive: true, force: true });
    if (kind === 'fifo') execFileSync('mkfifo', [target]);
    else symlinkSync(kind, target);
    const started = Date.now();
    const result = readIn(top);
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('still reads an ordinary index (honest twin)', () => {
    const top = mkdtempSync(path.join(tmpdir(), 'hidden-special-'));
    made.push(top);
    execFileSync('git', ['init', '-q', top]);
    writeFileSync(path.join(top, 'a.txt'), 'a\n');
    execFileSync('git', ['add', 'a.txt'], { cwd: top });
    execFileSync('git', ['update-index', '--assume-unchanged', 'a.txt'], { cwd: top });
    expect(JSON.parse(readIn(top).stdout)).toMatchObject([{ path: 'a.txt', bit: 'assume-unchanged' }]);
  });
});
