import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTempWorkspace } from './create-temp-workspace';
import { startLinkSwapper } from './start-link-swapper';

describe('startLinkSwapper', () => {
  it('swaps the folder for a link out and back, and stop() leaves the folder in place', async () => {
    await using ws = await createTempWorkspace({ files: { 'd/f.txt': 'inside\n' } });
    await using outside = await createTempWorkspace({ files: { 'f.txt': 'outside\n' } });
    const folder = path.join(ws.root, 'd');
    const swapper = startLinkSwapper({ folder, target: outside.root, pauseMs: 1 });
    const seen = new Set<string>();
    try {
      const end = Date.now() + 10_000;
      while (Date.now() < end && seen.size < 2) {
        const entry = await lstat(folder).catch(() => undefined);
        if (entry) seen.add(entry.isSymbolicLink() ? 'link' : 'folder');
      }
    } finally {
      await swapper.stop();
    }
    expect([...seen].sort()).toEqual(['folder', 'link']);
    expect((await lstat(folder)).isDirectory()).toBe(true);
    expect(await readFile(path.join(folder, 'f.txt'), 'utf8')).toBe('inside\n');
    expect(await readFile(path.join(outside.root, 'f.txt'), 'utf8')).toBe('outside\n');
  });
});
