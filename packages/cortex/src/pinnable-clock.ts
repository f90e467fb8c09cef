/** An epoch-ms clock that can be held at a given time while an action runs. */
export interface PinnableClock {
  (): number;
  /** Runs `action` (synchronously) with the clock reading `at`; the clock runs on after it. */
  pin<T>(at: number, action: () => T): T;
}

/**
 * Wraps `base` so that events replayed from elsewhere (a step run in another process) keep the
 * times they happened at: every reading inside `pin(at, action)` is `at`.
 *
 * `notBefore` (epoch ms: the last time a resumed run journaled) makes the clock's own readings
 * never run backwards — never below it, nor below an earlier reading — so a wall clock set back
 * between a crash and its resume (or during a run) gives no negative duration. Pinned readings
 * are kept as they are.
 */
export function createPinnableClock(base: () => number, options: { notBefore?: number } = {}): PinnableClock {
  let pinned: number | undefined;
  let floor = options.notBefore ?? Number.NEGATIVE_INFINITY;
  const monotonic = options.notBefore === undefined ? base : () => (floor = Math.max(floor, base()));
  const clock = (() => pinned ?? monotonic()) as PinnableClock;
  clock.pin = (at, action) => {
    const previous = pinned;
    pinned = at;
    try {
      return action();
    } finally {
      pinned = previous;
    }
  };
  return clock;
}
