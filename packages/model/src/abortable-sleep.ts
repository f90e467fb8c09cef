import { ModelError } from './model-error';

/** The error every helper in this package throws when the caller's signal aborts. */
export function abortedError(signal: AbortSignal | undefined, provider?: string): ModelError {
  return new ModelError({
    code: 'aborted',
    message: provider ? `${provider}: request aborted` : 'request aborted',
    provider,
    cause: signal?.reason,
  });
}

/**
 * Waits `ms` milliseconds; rejects at once with `ModelError('aborted')` when `signal` aborts
 * (before or during the wait). Never leaves a timer or listener behind.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(signal));
  if (ms <= 0 && !signal) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Races `promise` against `signal`: rejects with `ModelError('aborted')` as soon as the signal
 * aborts, even if `promise` ignores it.
 */
export function raceAbort<T>(promise: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(abortedError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal));
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
