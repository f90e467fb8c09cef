import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

const script = join(import.meta.dirname, 'scale-out-process.ts');
const repoRoot = join(import.meta.dirname, '..', '..', '..', '..');

/** One line a coordinator or worker process printed. */
export interface ProcessEvent {
  pid: number;
  type: string;
  [key: string]: unknown;
}

/** A coordinator or worker in its own process. */
export interface ScaleOutProcess {
  child: ChildProcess;
  events: ProcessEvent[];
  /** Resolves with the first event that matches. */
  waitFor(match: (event: ProcessEvent) => boolean, timeoutMs?: number): Promise<ProcessEvent>;
  /** SIGKILL: the process dies at once, mid-step or mid-run. */
  kill(): Promise<void>;
  /** SIGTERM: a clean shutdown. */
  stop(): Promise<void>;
}

/** Starts `scale-out-process.ts` with the scenario cortex and waits until it is ready. */
export async function startProcess(options: {
  role: 'worker' | 'coordinator';
  url: string;
  prefix: string;
  concurrency?: number;
  lockMs?: number;
  /** Leave out a worker's per-step lines (`step-taken`, `step-done`): a benchmark that reads none. */
  quiet?: boolean;
  /** Extra environment of the process (e.g. `CLOSEDLOOP_FREEZE`, see `freeze-points.ts`). */
  env?: Record<string, string>;
}): Promise<ScaleOutProcess> {
  const child = spawn(
    process.execPath,
    [
      // CLOSEDLOOP_PROFILE_DIR=<dir>: write a CPU profile of each process there (for benchmarks).
      ...(process.env.CLOSEDLOOP_PROFILE_DIR
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CLOSEDLOOP_PROFILE_DIR}`]
        : []),
      '--import',
      'tsx',
      '--conditions=@closedloop/source',
      script,
      options.role,
      options.url,
      options.prefix,
      String(options.concurrency ?? 4),
      String(options.lockMs ?? 2000),
      ...(options.quiet ? ['quiet'] : []),
    ],
    {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
    },
  );
  const events: ProcessEvent[] = [];
  const waiters = new Set<{
    match: (event: ProcessEvent) => boolean;
    resolve: (event: ProcessEvent) => void;
  }>();
  let buffer = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      let event: ProcessEvent;
      try {
        event = JSON.parse(line) as ProcessEvent;
      } catch {
        continue;
      }
      events.push(event);
      for (const waiter of waiters) {
        if (waiter.match(event)) {
          waiters.delete(waiter);
          waiter.resolve(event);
        }
      }
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    // CLOSEDLOOP_PRINT_STDERR=1: pass the process's stderr through (debugging benchmarks and tests).
    if (process.env.CLOSEDLOOP_PRINT_STDERR) process.stderr.write(chunk);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const waitFor = (match: (event: ProcessEvent) => boolean, timeoutMs = 30_000) => {
    const found = events.find(match);
    if (found) return Promise.resolve(found);
    return new Promise<ProcessEvent>((resolve, reject) => {
      const waiter = { match, resolve };
      waiters.add(waiter);
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(
          new Error(`${options.role} ${child.pid}: no matching event within ${timeoutMs} ms\n${stderr}`),
        );
      }, timeoutMs);
      exited.then(() => {
        if (waiters.has(waiter)) {
          clearTimeout(timer);
          waiters.delete(waiter);
          reject(new Error(`${options.role} ${child.pid} exited:\n${stderr}`));
        }
      });
      const resolveOnce = waiter.resolve;
      waiter.resolve = (event) => {
        clearTimeout(timer);
        resolveOnce(event);
      };
    });
  };
  const handle: ScaleOutProcess = {
    child,
    events,
    waitFor,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
  await waitFor((event) => event.type === 'ready', 60_000);
  return handle;
}
