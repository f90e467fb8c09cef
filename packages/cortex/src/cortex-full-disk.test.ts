import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashPlan, createCrashCortex } from './__fixtures__/crash-world';
import { bundleChild } from './__fixtures__/spawn-child';
import { createJsonlRunStore } from './jsonl-run-store';

const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cortex-full-disk-'));
let command: string[] = [];
beforeAll(async () => {
  command = await bundleChild(join(here, '__fixtures__', 'crash-child.ts'), 'full-disk-child');
}, 60_000);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (command.length === 1) rmSync(command[0]!, { force: true });
});

/**
 * Runs the crash world's child with its journal on a real 256 KiB tmpfs (bubblewrap's `--size`)
 * filled up to `freeKb` free: a write past that fails with ENOSPC, as on a full disk. The store
 * is copied out when the child ends (the tmpfs goes with the sandbox): there is room again.
 */
function runOnFullDisk(name: string, freeKb: number) {
  const dir = join(scratch, name);
  const root = join(dir, 'ws');
  const out = join(dir, 'out');
  mkdirSync(root, { recursive: true });
  mkdirSync(out);
  const script = `dd if=/dev/zero of=/jdisk/filler bs=1k count=${256 - freeKb} status=none; "$@" > ${out}/stdout 2> ${out}/stderr; echo $? > ${out}/code; if [ -d /jdisk/store ]; then cp -a /jdisk/store ${dir}/store; fi`;
  const sandbox = spawnSync(
    'bwrap',
    [
      '--dev-bind',
      '/',
      '/',
      '--size',
      String(256 * 1024),
      '--tmpfs',
      '/jdisk',
      'bash',
      '-c',
      script,
      'run',
      process.execPath,
      ...command,
    ],
    {
      cwd: join(here, '..'),
      env: {
        ...process.env,
        STORE_DIR: '/jdisk/store',
        ROOT: root,
        LOG: join(dir, 'log'),
        RUN_ID: 'run-full',
        KILL_AT: '1000000',
      },
    },
  );
  expect(sandbox.status, String(sandbox.stderr)).toBe(0);
  const read = (file: string) => readFileSync(join(out, file), 'utf8');
  return {
    root,
    log: join(dir, 'log'),
    storeDir: join(dir, 'store'),
    code: Number(read('code')),
    stdout: read('stdout'),
    stderr: read('stderr'),
  };
}

describe('a real full disk under the journal (ENOSPC on a small tmpfs)', () => {
  it('mid-run: the run stops failed, the journal stays readable, and the resume completes without re-running a completed step', async () => {
    let resumedAfterWork = 0;
    for (const freeKb of [10, 24, 32]) {
      const context = `${freeKb} KiB free`;
      const child = runOnFullDisk(`free-${freeKb}`, freeKb);
      expect(child.code, `${context}: ${child.stderr}`).toBe(0);
      expect(JSON.parse(child.stdout).stopReason, context).toBe('failed');
      const store = createJsonlRunStore({ dir: child.storeDir });
      // No torn line: the journal ends on a whole record (or holds nothing, not even its header).
      const text = readFileSync(store.pathOf('run-full'), 'utf8');
      expect(text === '' || text.endsWith('\n'), context).toBe(true);
      const inspection = await store.inspect('run-full');
      // Readable: whole, or (not even the first group fitted) empty, which a resume starts over.
      expect([undefined, 'journal-empty'], context).toContain(inspection.problem?.code);
      const completedAtStop = inspection.events.flatMap((event) =>
        event.type === 'step-marked' && event.status === 'completed' ? [event.stepId] : [],
      );
      if (completedAtStop.length > 0) resumedAfterWork++;
      const resumed = await createCrashCortex({
        root: child.root,
        log: child.log,
        phase: 'resume',
        store,
      }).resume('run-full');
      await store.close();
      expect(resumed.stopReason, context).toBe('completed');
      const lines = readFileSync(child.log, 'utf8').trim().split('\n');
      for (const step of crashPlan.steps) {
        expect(readFileSync(join(child.root, `${step.id}.txt`), 'utf8'), context).toBe(`done ${step.id}\n`);
      }
      for (const stepId of completedAtStop) {
        expect(
          lines.filter((line) => line.startsWith(`${stepId} `)),
          `${context}: ${stepId} ran again`,
        ).toEqual([`${stepId} first`]);
      }
    }
    // At least one limit let steps complete before the disk filled.
    expect(resumedAfterWork).toBeGreaterThanOrEqual(1);
  }, 60_000);

  it('before the run starts (no room for its lease or metadata): a typed store-failed error, and no run to resume', async () => {
    const child = runOnFullDisk('free-2', 2);
    expect(child.code).not.toBe(0);
    expect(child.stderr).toMatch(/CortexError: Run store could not .*ENOSPC/);
    expect(child.stdout).toBe('');
    const store = createJsonlRunStore({ dir: child.storeDir });
    await expect(
      createCrashCortex({ root: child.root, log: child.log, phase: 'resume', store }).resume('run-full'),
    ).rejects.toMatchObject({ code: 'unknown-run' });
    expect(existsSync(child.log)).toBe(false);
  }, 30_000);
});
