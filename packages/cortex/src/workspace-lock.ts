import type { CommandRunner } from '@closedloop/tools';

/**
 * A readers-writer lock over the run's workspace, for journaled runs: most tool calls act on it
 * side by side (`shared`), but a call that resume can only judge by the whole workspace's
 * fingerprint (a command, a custom non-idempotent tool) acts alone (`exclusive`), so a change
 * found after a crash is its own, never a concurrent step's. Waiting exclusive calls go before
 * later shared ones (no starvation); grants are in arrival order otherwise.
 */
export interface WorkspaceLock {
  /** Resolves once the call may act; the returned function (idempotent) lets others act again. */
  acquire(mode: 'shared' | 'exclusive'): Promise<() => void>;
}

/** Creates a {@link WorkspaceLock}. */
export function createWorkspaceLock(): WorkspaceLock {
  let shared = 0;
  let exclusive = false;
  const queue: { mode: 'shared' | 'exclusive'; grant: () => void }[] = [];
  const pump = () => {
    while (queue.length > 0 && !exclusive) {
      const head = queue[0]!;
      if (head.mode === 'exclusive') {
        if (shared > 0) return;
        exclusive = true;
      } else shared++;
      queue.shift();
      head.grant();
    }
  };
  return {
    acquire(mode) {
      return new Promise((resolve) => {
        queue.push({
          mode,
          grant: () => {
            let released = false;
            resolve(() => {
              if (released) return;
              released = true;
              if (mode === 'exclusive') exclusive = false;
              else shared--;
              pump();
            });
          },
        });
        pump();
      });
    },
  };
}

/**
 * `runner` whose commands act on the workspace under `lock`, shared: a step's verification
 * re-running a claimed command waits while another step's call acts alone.
 */
export function lockedRunner(runner: CommandRunner, lock: WorkspaceLock): CommandRunner {
  return {
    get root() {
      return runner.root;
    },
    get policy() {
      return runner.policy;
    },
    check: (argv, options) => runner.check(argv, options),
    sandboxStatus: () => runner.sandboxStatus(),
    async run(argv, options) {
      const release = await lock.acquire('shared');
      try {
        return await runner.run(argv, options);
      } finally {
        release();
      }
    },
  };
}
