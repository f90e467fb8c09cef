import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processScopeVariable } from '@closedloop/tools/internal';
import { describe, expect, it } from 'vitest';
import {
  identifyProcess,
  isLeftover,
  settleLeftoverProcesses,
  stopLeftoverVerification,
  verificationScopeOf,
} from './leftover-processes';

/** A detached process group (like run_command's) that lives `ms` milliseconds. */
function detached(ms: number): number {
  const child = spawn(process.execPath, ['-e', `setTimeout(() => {}, ${ms})`], {
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  return child.pid!;
}

describe('leftover processes of a dead owner', () => {
  it('waits for a process that ends on its own', async () => {
    const pid = detached(300);
    const recorded = { pid, identity: identifyProcess(pid) };
    expect(isLeftover(recorded)).toBe(true);
    const settled = await settleLeftoverProcesses([recorded], { timeoutMs: 5_000 });
    expect(settled).toEqual({ waitedFor: [pid], killed: [] });
    expect(isLeftover(recorded)).toBe(false);
  });

  it('kills the process group of one that outlives the wait', async () => {
    const pid = detached(60_000);
    const recorded = { pid, identity: identifyProcess(pid) };
    const settled = await settleLeftoverProcesses([recorded], { timeoutMs: 100 });
    expect(settled).toEqual({ waitedFor: [pid], killed: [pid] });
    expect(isLeftover(recorded)).toBe(false);
  });

  it("stops the killed owner's verification, not that of another run with the same id", async () => {
    const base = mkdtempSync(join(tmpdir(), 'closedloop-scope-'));
    const mine = join(base, 'mine');
    const theirs = join(base, 'theirs');
    const verifying = (workspace: string) => {
      const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, [processScopeVariable]: verificationScopeOf('r', workspace) },
      });
      child.unref();
      return child.pid!;
    };
    const leftover = verifying(mine);
    const other = verifying(theirs);
    try {
      expect(verificationScopeOf('r', mine)).not.toBe(verificationScopeOf('r', theirs));
      expect(verificationScopeOf('r', mine)).toBe(verificationScopeOf('r', join(mine, '.')));
      expect(await stopLeftoverVerification('r', { workspace: mine })).toEqual([leftover]);
      // Killed (our own child: gone once Node has reaped it).
      await expect
        .poll(() => isLeftover({ pid: leftover, identity: identifyProcess(leftover) }), { timeout: 5_000 })
        .toBe(false);
      expect(isLeftover({ pid: other, identity: identifyProcess(other) })).toBe(true);
    } finally {
      process.kill(-other, 'SIGKILL');
      rmSync(base, { recursive: true, force: true });
    }
  });

  it('never touches a later process with the same pid, or one on another host', async () => {
    const pid = detached(60_000);
    try {
      expect(isLeftover({ pid, identity: { ...identifyProcess(pid), startTime: '1' } })).toBe(false);
      expect(isLeftover({ pid, identity: { host: 'elsewhere' } })).toBe(false);
      expect(await settleLeftoverProcesses([{ pid, identity: { host: 'elsewhere' } }])).toEqual({
        waitedFor: [],
        killed: [],
      });
    } finally {
      process.kill(-pid, 'SIGKILL');
    }
  });
});
