import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { isProcessRunning } from './is-process-running';

describe('isProcessRunning', () => {
  it('is true while a process runs, false once it was killed (zombie or reaped) or never existed', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('spawn', resolve));
    const pid = child.pid!;
    expect(isProcessRunning(pid)).toBe(true);
    expect(isProcessRunning(process.pid)).toBe(true);
    child.kill('SIGKILL');
    await expect.poll(() => isProcessRunning(pid), { timeout: 5_000 }).toBe(false);
    expect(isProcessRunning(2 ** 22 + 1)).toBe(false);
  });
});
