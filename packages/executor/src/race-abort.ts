/** What {@link raceAbort} resolves with when the signal wins. */
export const aborted: unique symbol = Symbol('closedloop.executor.aborted');

/**
 * Races `promise` against `signal`: resolves with {@link aborted} as soon as the signal aborts
 * (also when it already has), even if `promise` ignores the signal. A later rejection of the
 * losing promise is swallowed, so it never surfaces as an unhandled rejection.
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | typeof aborted> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve(aborted);
  }
  return new Promise<T | typeof aborted>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      resolve(aborted);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
