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

const noop = (): void => {};

/** Callbacks waiting on a signal, behind the one listener {@link onAbort} adds to it. */
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `callback` once when `signal` aborts; returns the function that cancels the wait.
 * The one abort helper of closedloop: however many waits a signal has (a step's model calls,
 * tool calls, checks, sleeps…), it carries ONE `abort` listener — added by the first wait,
 * kept for the signal's life — so a long-lived signal never piles up listeners (no
 * `MaxListenersExceededWarning`) and a wait costs a `Set` entry, not an `addEventListener` /
 * `removeEventListener` pair. Waits are called in the order they were added; a callback that
 * throws does not stop the others. When `signal` has already aborted, `callback` is not called:
 * check `signal.aborted` first.
 *
 * @example
 * const cancel = onAbort(signal, () => reject(abortedError(signal)));
 * try { return await work; } finally { cancel(); }
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) return noop;
  let callbacks = waiting.get(signal);
  if (callbacks === undefined) {
    const created = new Set<() => void>();
    callbacks = created;
    waiting.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        waiting.delete(signal);
        const due = [...created];
        created.clear();
        for (const wait of due) {
          try {
            wait();
          } catch {
            // One failing wait must not stop the others.
          }
        }
      },
      { once: true },
    );
  }
  // A fresh function per wait: the same callback may wait twice.
  const entry = () => callback();
  callbacks.add(entry);
  const owner = callbacks;
  return () => {
    owner.delete(entry);
  };
}

/**
 * A signal that aborts when `signal` aborts (with its reason) and when `abort` is called:
 * a child of `signal` linked through {@link onAbort}, so it adds no listener of its own.
 * `dispose()` unlinks it (call it when the child's work is over).
 */
export function linkedAbortController(signal: AbortSignal | undefined): {
  controller: AbortController;
  dispose(): void;
} {
  const controller = new AbortController();
  if (signal === undefined) return { controller, dispose: noop };
  if (signal.aborted) {
    controller.abort(signal.reason);
    return { controller, dispose: noop };
  }
  const dispose = onAbort(signal, () => controller.abort(signal.reason));
  return { controller, dispose };
}

/**
 * Waits `ms` milliseconds; rejects at once with `ModelError('aborted')` when `signal` aborts
 * (before or during the wait). Never leaves a timer or listener behind.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(abortedError(signal));
  if (ms <= 0 && !signal) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => {
        cancel();
        resolve();
      },
      Math.max(0, ms),
    );
    const cancel = signal
      ? onAbort(signal, () => {
          clearTimeout(timer);
          reject(abortedError(signal));
        })
      : noop;
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
    const cancel = onAbort(signal, () => reject(abortedError(signal)));
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
