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

/** The waits of a signal, behind the one listener {@link onAbort} adds to it: cancel function → callback. */
type Waits = Map<() => void, () => void>;

/** Where a signal keeps its waits: a property of its own (no `WeakMap` entry for the GC to trace). */
const waitsKey = Symbol('closedloop.model.abort-waits');
type WaitsHolder = { [waitsKey]?: Waits | undefined };
/** The waits of signals that take no new property (frozen or sealed look-alikes). */
const sealedWaits = new WeakMap<AbortSignal, Waits>();

function waitsOf(signal: AbortSignal): Waits | undefined {
  const own = (signal as WaitsHolder)[waitsKey];
  if (own !== undefined || Object.isExtensible(signal)) return own;
  return sealedWaits.get(signal);
}

function setWaits(signal: AbortSignal, waits: Waits | undefined): void {
  if (Object.isExtensible(signal) || (signal as WaitsHolder)[waitsKey] !== undefined)
    (signal as WaitsHolder)[waitsKey] = waits;
  else if (waits === undefined) sealedWaits.delete(signal);
  else sealedWaits.set(signal, waits);
}

/**
 * Calls `callback` once when `signal` aborts; returns the function that cancels the wait.
 * The one abort helper of closedloop: however many waits a signal has (a step's model calls,
 * tool calls, checks, sleeps…), it carries ONE `abort` listener — added by the first wait,
 * kept for the signal's life — so a long-lived signal never piles up listeners (no
 * `MaxListenersExceededWarning`) and a wait costs a `Map` entry and its cancel function, not an
 * `addEventListener` / `removeEventListener` pair. Waits are called in the order they were added;
 * a callback that throws does not stop the others. When `signal` has already aborted, `callback`
 * is not called: check `signal.aborted` first.
 *
 * @example
 * const cancel = onAbort(signal, () => reject(abortedError(signal)));
 * try { return await work; } finally { cancel(); }
 */
export function onAbort(signal: AbortSignal, callback: () => void): () => void {
  if (signal.aborted) return noop;
  let waits = waitsOf(signal);
  if (waits === undefined) {
    const created: Waits = new Map();
    waits = created;
    setWaits(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        setWaits(signal, undefined);
        const due = [...created.values()];
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
  // The cancel function is the wait's key: a fresh one per wait, so the same callback may wait twice.
  const owner = waits;
  const cancel = (): void => {
    owner.delete(cancel);
  };
  owner.set(cancel, callback);
  return cancel;
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
