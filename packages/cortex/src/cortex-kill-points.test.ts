import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, runNode } from './__fixtures__/spawn-child';
import { createJsonlRunStore } from './jsonl-run-store';
import { isRunEventOf } from './run-events';

const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cortex-kill-points-'));
let child: string[] = [];
beforeAll(async () => {
  child = await bundleChild(join(here, '__fixtures__', 'kill-point-child.ts'), 'kill-point-child');
}, 60_000);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (child.length === 1) rmSync(child[0]!, { force: true });
});

/** A fresh run folder: its store, its workspace. */
function world(name: string) {
  const dir = join(scratch, name);
  const root = join(dir, 'ws');
  mkdirSync(root, { recursive: true });
  return { storeDir: join(dir, 'store'), root, runId: `run-${name}` };
}

describe('kill -9 in the middle of a write_file', () => {
  // 3-byte characters: a cut at a page boundary (4096 bytes) falls inside one of them.
  const content = `${'✓'.repeat(3000)}\n`;
  for (const cut of [4096, 1, 0]) {
    it(`cut after ${cut} of ${Buffer.byteLength(content)} bytes: resume completes the write once, as an uninterrupted run`, async () => {
      const { storeDir, root, runId } = world(`mid-write-${cut}`);
      const env = { STORE_DIR: storeDir, ROOT: root, RUN_ID: runId, CONTENT: content };
      const first = await runNode(child, { ...env, KILL: `mid-write:${cut}` });
      expect(first.signal, first.stderr).toBe('SIGKILL');
      expect(readFileSync(join(root, 'notes.txt')).length).toBe(cut);

      const resumed = await runNode(child, { ...env, PHASE: 'resume' });
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(JSON.parse(resumed.stdout).stopReason).toBe('completed');
      expect(readFileSync(join(root, 'notes.txt'), 'utf8')).toBe(content);
      const events = await createJsonlRunStore({ dir: storeDir }).read(runId);
      expect(events.filter(isRunEventOf('tool-call-reconciled'))).toEqual([
        expect.objectContaining({ tool: 'write_file', outcome: 'applied' }),
      ]);
    }, 60_000);
  }
});
