/** An epoch-ms clock that can be held at a given time while an action runs. */
export interface PinnableClock {
  (): number;
  /** Runs `action` (synchronously) with the clock reading `at`; the clock runs on after it. */
  pin<T>(at: number, action: () => T): T;
}

/**
 * Wraps `base` so that events replayed from elsewhere (a step run in another process) keep the
 * times they happened at: every reading inside `pin(at, action)` is `at`.
 */
export function createPinnableClock(base: () => number): PinnableClock {
  let pinned: number | undefined;
  const clock = (() => pinned ?? base()) as PinnableClock;
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
