import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { inspectInside } from './inspect-inside';
import { startLinkSwapper } from './start-link-swapper';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'closedloop-inside-'));
  made.push(dir);
  return dir;
}

describe.runIf(process.platform === 'linux')('inspectInside', () => {
  it('never reads a file outside while a folder above it is swapped for a link out', async () => {
    const root = await folder();
    const outside = await folder();
    await mkdir(path.join(root, 'd'));
    await writeFile(path.join(root, 'd', 'f'), 'inside\n');
    await writeFile(path.join(outside, 'f'), 'outside\n');
    // Another process swaps `d` for a link to the outside folder and back, as fast as it can.
    const swapper = startLinkSwapper({ folder: path.join(root, 'd'), target: outside, durationMs: 20_000 });
    const seen = new Map<string, number>();
    try {
      const end = Date.now() + 3000;
      while (Date.now() < end) {
        const entry = inspectInside(root, path.join(root, 'd', 'f'), 1024);
        const key = entry.type === 'file' ? entry.content.toString().trim() : entry.type;
        seen.set(key, (seen.get(key) ?? 0) + 1);
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await swapper.stop();
    }
    expect(seen.get('inside')).toBeGreaterThan(0);
    expect(seen.has('outside')).toBe(false);
  }, 15_000);

  it('reads a regular file inside up to the limit, and nothing more', async () => {
    const root = await folder();
    await writeFile(path.join(root, 'small'), 'x'.repeat(100));
    await writeFile(path.join(root, 'big'), 'x'.repeat(70_000));
    expect(inspectInside(root, path.join(root, 'small'), 100)).toMatchObject({ type: 'file' });
    expect(inspectInside(root, path.join(root, 'small'), 99)).toEqual({ type: 'other' });
    const big = inspectInside(root, path.join(root, 'big'), 70_000);
    expect(big.type === 'file' ? big.content.length : -1).toBe(70_000);
  });
});
