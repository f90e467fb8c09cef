/**
 * What the tests of resource limits share: a Python program that forks until refused, a count of
 * the processes still running a file, and a runner started where it cannot make a cgroup.
 */
import { spawnSync } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Forks `count` children (each sleeps 30 s) until refused; prints `refused <made> <errno>` or `made <count>`. */
export function forkerScript(count: number): string {
  return `
import os, sys, time
made = 0
try:
    for _ in range(${count}):
        pid = os.fork()
        if pid == 0:
            time.sleep(30)
            os._exit(0)
        made += 1
except OSError as error:
    print("refused", made, error.errno)
    sys.exit(0)
print("made", made)
`;
}

/**
 * How many processes of the machine have `needle` in their command line. Asynchronous: reading
 * the command line of a process that is forking waits for it, and a fork bomb would otherwise
 * hold the event loop (and the runner's timeout) for seconds.
 */
export async function countRunning(needle: string): Promise<number> {
  let count = 0;
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.includes(needle)) count++;
  }
  return count;
}

/** What `run-command.ts` prints. */
export interface FixtureRunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  sandboxed: boolean;
  timedOut: boolean;
}

/**
 * Runs a command through a runner (`run-command.ts`) that cannot make a cgroup: in a mount
 * namespace of its own where `/sys/fs/cgroup` is an empty folder, as in a container that does not
 * delegate one. Needs root. `env` sets SANDBOX, LIMITS, TIMEOUT_MS; `setup` is more shell run (as
 * root, in the mount namespace) before the runner starts.
 */
export function runWithoutCgroup(options: {
  root: string;
  argv: string[];
  env?: Record<string, string>;
  setup?: string;
}): FixtureRunResult {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const child = spawnSync(
    'unshare',
    [
      '--mount',
      '--propagation',
      'private',
      'sh',
      '-c',
      `mount -t tmpfs none /sys/fs/cgroup && ${options.setup || 'true'} && exec "$@"`,
      'no-cgroup',
      process.execPath,
      '--import',
      'tsx',
      '--conditions=@closedloop/source',
      path.join(here, 'run-command.ts'),
    ],
    {
      cwd: path.join(here, '..', '..'),
      env: { ...process.env, ROOT: options.root, ARGV: JSON.stringify(options.argv), ...options.env },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (child.status !== 0) throw new Error(`run-command.ts exited ${child.status}: ${child.stderr}`);
  return JSON.parse(child.stdout) as FixtureRunResult;
}
