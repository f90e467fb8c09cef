import { spawn } from 'node:child_process';
import { lstat, rename, unlink } from 'node:fs/promises';

/** Options of {@link startLinkSwapper}. */
export interface LinkSwapperOptions {
  /** The folder that is swapped, again and again, for a symbolic link to `target`. */
  folder: string;
  /** Where the link points (a folder outside the workspace, in the attacks). */
  target: string;
  /** Where the folder waits while the link stands in for it. Default `<folder>.kept`. */
  keep?: string;
  /**
   * The longest either state holds, in milliseconds: round `i` holds the link `i % (pauseMs + 1)`
   * ms and the folder `(i + 1) % (pauseMs + 1)` ms, so checks and opens land on both. Default 0:
   * as fast as it can.
   */
  pauseMs?: number;
  /** The swapper stops by itself after this long (a test that forgot it). Default 60 000 ms. */
  durationMs?: number;
}

/** A running {@link startLinkSwapper}. */
export interface LinkSwapper {
  /** Stops the swapper and puts the folder back in place. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts a separate process that swaps `folder` for a symbolic link to `target` and back in a
 * loop: the race a hostile command runs against tools that check a path and then open it. For
 * tests of path confinement (`@closedloop/tools/testing`).
 *
 * @example
 * ```ts
 * const swapper = startLinkSwapper({ folder: path.join(ws.root, 'inside'), target: outside.root });
 * try {
 *   // call the file tools on inside/… many times: none may reach outside
 * } finally {
 *   await swapper.stop();
 * }
 * ```
 */
export function startLinkSwapper(options: LinkSwapperOptions): LinkSwapper {
  const keep = options.keep ?? `${options.folder}.kept`;
  const script = `const fs = require('node:fs');
const [folder, keep, target, pauseMs, durationMs] = process.argv.slice(1);
const pause = new Int32Array(new SharedArrayBuffer(4));
const hold = (ms) => { if (ms > 0) Atomics.wait(pause, 0, 0, ms); };
const cycle = Number(pauseMs) + 1;
const end = Date.now() + Number(durationMs);
for (let i = 0; Date.now() < end; i++) {
  try { fs.renameSync(folder, keep); fs.symlinkSync(target, folder); } catch {}
  hold(i % cycle);
  try { fs.unlinkSync(folder); fs.renameSync(keep, folder); } catch {}
  hold((i + 1) % cycle);
}`;
  const child = spawn(
    process.execPath,
    [
      '-e',
      script,
      options.folder,
      keep,
      options.target,
      String(options.pauseMs ?? 0),
      String(options.durationMs ?? 60_000),
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      child.kill('SIGKILL');
      await exited;
      // Killed between two renames: the link may stand where the folder was, or neither is there.
      if ((await lstat(options.folder).catch(() => undefined))?.isSymbolicLink())
        await unlink(options.folder);
      if (!(await lstat(options.folder).catch(() => undefined)) && (await lstat(keep).catch(() => undefined)))
        await rename(keep, options.folder);
    })();
    return stopping;
  };
  return { stop, [Symbol.asyncDispose]: stop };
}
