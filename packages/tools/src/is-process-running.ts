import { readFileSync } from 'node:fs';

/**
 * Whether process `pid` still runs: it exists and, on Linux, is not a zombie (a killed process
 * nobody has reaped yet has done all it will do). For tests that check a command, its
 * descendants or a leftover of a killed owner are gone (`@closedloop/tools/testing`).
 *
 * @example
 * ```ts
 * process.kill(pid, 'SIGKILL');
 * await expect.poll(() => isProcessRunning(pid)).toBe(false);
 * ```
 */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  if (process.platform !== 'linux') return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    // Gone between the two looks.
    return false;
  }
}
