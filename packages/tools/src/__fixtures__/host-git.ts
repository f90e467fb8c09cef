/**
 * Helpers of the tests of what a sandboxed command leaves for git run later outside the sandbox.
 */
import { spawnSync } from 'node:child_process';
import { createCommandRunner } from '../create-command-runner';
import type { TempWorkspace } from '../create-temp-workspace';

/**
 * git as the user runs it outside the sandbox: no hardening, the repository's own settings (never
 * waiting more than 30 s: a test of a git directory that holds git must end).
 */
export const hostGit = (cwd: string, ...args: string[]) =>
  spawnSync('git', ['-c', 'user.name=u', '-c', 'user.email=u@u', ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, GIT_EDITOR: 'true', GIT_SEQUENCE_EDITOR: 'true', GIT_PAGER: 'cat' },
  });

/** Runs a shell script, written to the workspace as `step.cjs`, in the sandbox (required). */
export async function sandboxedShell(ws: TempWorkspace, script: string, timeoutMs?: number) {
  await ws.write(
    'step.cjs',
    `require('node:child_process').execFileSync('sh', ['-c', ${JSON.stringify(script)}], { stdio: 'inherit' });`,
  );
  return createCommandRunner({ root: ws.root, sandbox: 'required' }).run(
    ['node', 'step.cjs'],
    timeoutMs === undefined ? {} : { timeoutMs },
  );
}
