import { onAbort } from '@closedloop/model';

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
    const cancel = onAbort(signal, () => {
      promise.catch(() => {});
      resolve(aborted);
    });
    promise.then(
      (value) => {
        cancel();
        resolve(value);
      },
      (error: unknown) => {
        cancel();
        reject(error);
      },
    );
  });
}
