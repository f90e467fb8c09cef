import { ModelError } from './model-error';

/**
 * The default longest silence of a model stream between two events, in ms (2 minutes): long
 * enough for a reasoning model that streams nothing while it thinks, short enough that a stalled
 * server (headers then nothing, keep-alives forever) does not hold a step for its whole timeout.
 */
export const defaultStreamIdleTimeoutMs = 120_000;

/** The default wait for a stream's end once its answer is complete, in ms. */
export const defaultStreamTailTimeoutMs = 1_000;

/** Options of {@link withStallTimeout}. */
export interface StallTimeoutOptions {
  /** Longest wait for the next item, in ms. `0` or `Infinity` turns the guard off. */
  idleMs: number;
  /**
   * Once {@link StallGuardedStream.complete} was called: the longest wait for any further item
   * or the end, in ms; then the stream ends as done (the answer is whole). Default
   * {@link defaultStreamTailTimeoutMs}.
   */
  tailMs?: number;
  /** The error a stall throws (see {@link streamStallError}). */
  onStall: (idleMs: number) => Error;
  /**
   * Cancels the request when the guard gives up on it (a stall, or the tail after `complete()`):
   * an SDK stream's `controller.abort()`. The source's `return` is called too, but an async
   * generator's `return` waits behind its pending read, so it alone would leave the connection open.
   */
  cancel?: () => void;
}

/** An async iterator whose reads time out: see {@link withStallTimeout}. */
export interface StallGuardedStream<T> extends AsyncIterableIterator<T> {
  /**
   * Says the answer is complete (the terminal event arrived): from now on a silence longer than
   * `tailMs` ends the stream as done instead of failing it.
   */
  complete(): void;
}

class StallGuard<T> implements StallGuardedStream<T> {
  readonly #source: AsyncIterator<T>;
  readonly #idleMs: number;
  readonly #tailMs: number;
  readonly #onStall: (idleMs: number) => Error;
  readonly #cancel: (() => void) | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerMs = 0;
  #pending: ((stalled: true) => void) | undefined;
  #completed = false;
  #closed = false;

  constructor(source: AsyncIterable<T>, options: StallTimeoutOptions) {
    this.#source = source[Symbol.asyncIterator]();
    this.#idleMs = options.idleMs;
    this.#tailMs = options.tailMs ?? defaultStreamTailTimeoutMs;
    this.#onStall = options.onStall;
    this.#cancel = options.cancel;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  complete(): void {
    this.#completed = true;
  }

  #fire = (): void => {
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.(true);
  };

  /** Arms the one timer for `ms` (re-armed with `refresh()`, not a new timer per read). */
  #arm(ms: number): void {
    if (this.#timer !== undefined && this.#timerMs === ms) this.#timer.refresh();
    else {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = setTimeout(this.#fire, ms);
      this.#timerMs = ms;
    }
  }

  #stop(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
  }

  next(): Promise<IteratorResult<T>> {
    const ms = this.#completed ? this.#tailMs : this.#idleMs;
    if (this.#closed || !(ms > 0 && ms < Number.POSITIVE_INFINITY)) return this.#source.next();
    return new Promise<IteratorResult<T>>((resolve, reject) => {
      let settled = false;
      this.#pending = () => {
        if (settled) return;
        settled = true;
        const completed = this.#completed;
        this.#stop();
        // Cancel the request and the read; do not wait for them.
        try {
          this.#cancel?.();
        } catch {
          // cancelling is best effort
        }
        void Promise.resolve(this.#source.return?.()).catch(() => {});
        if (completed) resolve({ done: true, value: undefined });
        else reject(this.#onStall(ms));
      };
      this.#arm(ms);
      this.#source.next().then(
        (result) => {
          if (settled) return;
          settled = true;
          this.#pending = undefined;
          if (result.done) this.#stop();
          resolve(result);
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          this.#stop();
          reject(error);
        },
      );
    });
  }

  async return(value?: unknown): Promise<IteratorResult<T>> {
    this.#stop();
    await this.#source.return?.(value);
    return { done: true, value: undefined };
  }
}

/**
 * Wraps a stream read (an SDK's event stream) so that a silence longer than `idleMs` between
 * two items — a server that sent its headers and then nothing, or only keep-alives the SDK
 * swallows — cancels the source and throws `onStall(idleMs)` instead of waiting for the caller's
 * whole timeout. After {@link StallGuardedStream.complete} (the answer's terminal event came), a
 * silence longer than `tailMs` ends the stream as done: a complete answer is never rejected
 * because the server did not close the connection. One timer per stream, re-armed per read.
 *
 * @example
 * const events = withStallTimeout(sdkStream, { idleMs: 120_000, onStall: (ms) => streamStallError('openai', ms) });
 * for await (const event of events) if (event.type === 'message_delta') events.complete();
 */
export function withStallTimeout<T>(
  source: AsyncIterable<T>,
  options: StallTimeoutOptions,
): StallGuardedStream<T> {
  return new StallGuard(source, options);
}

/**
 * The retryable `network` error of a stream that went silent: `provider: the stream stalled (no
 * event for N ms …)`.
 */
export function streamStallError(
  provider: string,
  idleMs: number,
  details: { received?: number; requestId?: string | undefined } = {},
): ModelError {
  const { received, requestId } = details;
  return new ModelError({
    code: 'network',
    message: `${provider}: the stream stalled (no event for ${idleMs} ms${
      received === undefined ? '' : ` after ${received} characters`
    }; the answer is incomplete)${requestId ? ` (request ${requestId})` : ''}`,
    provider,
    ...(requestId ? { requestId } : {}),
  });
}
