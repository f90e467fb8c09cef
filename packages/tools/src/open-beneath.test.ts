import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Descriptor, replaceFileBeneath } from './open-beneath';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
const folder = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'closedloop-open-beneath-'));
  folders.push(dir);
  return dir;
};

describe('Descriptor', () => {
  it('close() never throws; closeReportingErrors() reports what close(2) reports', () => {
    const dir = folder();
    const file = path.join(dir, 'a.txt');
    writeFileSync(file, 'a');
    const quiet = new Descriptor(openSync(file, 'r'));
    closeSync(quiet.fd);
    expect(() => quiet.close()).not.toThrow();

    const loud = new Descriptor(openSync(file, 'r'));
    closeSync(loud.fd);
    expect(() => loud.closeReportingErrors()).toThrow(/EBADF/);
    // Closed either way: a second close of either kind does nothing.
    expect(() => loud.closeReportingErrors()).not.toThrow();
    expect(() => loud.close()).not.toThrow();
  });
});

describe('replaceFileBeneath', () => {
  it('replaces the file whole and leaves no temporary file behind', async () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'a.txt'), 'old');
    const handle = new Descriptor(openSync(dir, 'r'));
    try {
      await replaceFileBeneath({
        folder: handle,
        name: 'a.txt',
        bytes: Buffer.from('new'),
        root: dir,
        relative: 'a.txt',
        fallbackAbsolute: path.join(dir, 'a.txt'),
      });
    } finally {
      handle.close();
    }
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['a.txt']);
  });

  it('a failure before the rename leaves the old file untouched and removes the temporary file', async () => {
    const dir = folder();
    writeFileSync(path.join(dir, 'a.txt'), 'old');
    const handle = new Descriptor(openSync(dir, 'r'));
    try {
      await expect(
        replaceFileBeneath({
          folder: handle,
          name: 'a.txt',
          bytes: Buffer.from('new'),
          root: dir,
          relative: 'a.txt',
          fallbackAbsolute: path.join(dir, 'a.txt'),
          onTemporary: () => {
            throw new Error('the disk went away');
          },
        }),
      ).rejects.toThrow('the disk went away');
    } finally {
      handle.close();
    }
    expect(readFileSync(path.join(dir, 'a.txt'), 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['a.txt']);
  });
});
