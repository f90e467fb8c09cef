import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startLinkSwapper } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { snapshotWorkspace } from './snapshot-workspace';

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});
async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'closedloop-demo-snapshot-'));
  made.push(dir);
  return dir;
}

describe.runIf(process.platform === 'linux')('snapshotWorkspace (the changes view)', () => {
  it('never shows a file outside while a folder of the workspace is swapped for a link out', async () => {
    const root = await folder();
    const outside = await folder();
    await mkdir(path.join(root, 'd'));
    // Many files: many moments between a listing and a read for the swap to land in.
    for (let index = 0; index < 30; index += 1) {
      await writeFile(path.join(root, 'd', `f${index}.txt`), 'inside\n');
      await writeFile(path.join(outside, `f${index}.txt`), 'host secret\n');
    }
    // A command still running swaps `d` for a link to a host folder and back, as fast as it can.
    const swapper = startLinkSwapper({ folder: path.join(root, 'd'), target: outside, durationMs: 20_000 });
    let leaks = 0;
    let insides = 0;
    try {
      const end = Date.now() + 3000;
      while (Date.now() < end) {
        for (const file of snapshotWorkspace(root).files.values()) {
          if (file.text?.includes('host secret')) leaks += 1;
          if (file.text?.includes('inside')) insides += 1;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await swapper.stop();
    }
    expect(insides).toBeGreaterThan(0);
    expect(leaks).toBe(0);
  }, 15_000);
});
