import { abortableSleep, abortedError, linkedAbortController, raceAbort } from './abortable-sleep';
import { ModelError } from './model-error';

/** Passed to `onRetry` before each backoff sleep. */
export interface RetryEvent {
  /** The attempt that just failed (1-based). */
  attempt: number;
  error: ModelError;
  /** How long the policy waits before the next attempt. */
  delayMs: number;
}

/** Options of the retry policy ({@link withRetry}). Every field is optional. */
export interface RetryOptions {
  /** Total attempts including the first. Default 3; 1 disables retries. */
  maxAttempts?: number;
  /** Backoff cap for the first retry. Default 500 ms. */
  initialDelayMs?: number;
  /** Upper bound of the exponential backoff (not of Retry-After). Default 20 000 ms. */
  maxDelayMs?: number;
  /** Growth per attempt. Default 2. */
  factor?: number;
  /** Full jitter: sleep a uniform random time in [0, backoff]. Default true. */
  jitter?: boolean;
  /**
   * Total time budget in ms from the first attempt. No attempt starts (and no sleep is begun)
   * that would end past it, and an attempt still running when it expires is aborted with
   * `ModelError('timeout')`.
   */
  deadlineMs?: number;
  /** A Retry-After longer than this is not waited for: the error is thrown. Default 60 000 ms. */
  maxRetryAfterMs?: number;
  /** Aborting rejects at once with `ModelError('aborted')`, also during a backoff sleep. */
  signal?: AbortSignal;
  /** Called before each backoff sleep (for logging/metrics). */
  onRetry?: (event: RetryEvent) => void;
  /** Random source in [0, 1) for jitter (inject for deterministic tests). */
  random?: () => number;
  /** Sleep implementation (inject for instant tests). It is raced against `signal` anyway. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock for the deadline (inject together with `sleep` in tests). */
  now?: () => number;
}

/** What {@link withRetry} hands the wrapped function for each attempt. */
export interface RetryAttempt {
  /** 1-based attempt number. */
  attempt: number;
  /** Aborts when the caller aborts or the deadline expires; pass it to the model call. */
  signal: AbortSignal;
}

/**
 * The exponential backoff for a given failed attempt, before jitter:
 * `min(maxDelayMs, initialDelayMs * factor^(attempt-1))`.
 */
export function backoffDelay(
  attempt: number,
  options: Pick<RetryOptions, 'initialDelayMs' | 'maxDelayMs' | 'factor'> = {},
): number {
  const { initialDelayMs = 500, maxDelayMs = 20_000, factor = 2 } = options;
  return Math.min(maxDelayMs, initialDelayMs * factor ** Math.max(0, attempt - 1));
}

/** The error of an attempt cut short by the retry deadline. */
function deadlineError(deadlineMs: number | undefined, attempt: number, cause: unknown): ModelError {
  return new ModelError({
    code: 'timeout',
    message: `retry deadline of ${deadlineMs} ms exceeded during attempt ${attempt}`,
    isRetryable: false,
    cause,
  });
}

/**
 * closedloop's one retry policy. Runs `fn`, retrying only errors where
 * `ModelError.isRetryable` is true (rate limits, overload, timeouts, network) with exponential
 * backoff and full jitter, waiting at least `error.retryAfterMs` when the provider sent one.
 * Stops at `maxAttempts` or the deadline and rethrows the last error; other errors are thrown at
 * once. Aborting `signal` rejects immediately with `ModelError('aborted')`.
 *
 * Adapters must not retry on their own (create the SDK clients with `maxRetries: 0`).
 */
export async function withRetry<T>(
  fn: (attempt: RetryAttempt) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const {
    maxAttempts = 3,
    jitter = true,
    deadlineMs,
    maxRetryAfterMs = 60_000,
    signal,
    onRetry,
    random = Math.random,
    sleep = abortableSleep,
    now = Date.now,
  } = options;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new ModelError({
      code: 'bad-request',
      message: `retry.maxAttempts must be an integer >= 1, got ${String(maxAttempts)}`,
    });
  }
  if (signal?.aborted) throw abortedError(signal);

  const startedAt = now();
  const deadlineAt = deadlineMs === undefined ? undefined : startedAt + deadlineMs;
  // The attempts' signal: the caller's own when there is no deadline (no signal, controller or
  // listener per call); with a deadline, a child of it that the deadline aborts too.
  let attemptSignal: AbortSignal;
  let unlink: (() => void) | undefined;
  let deadlineTimer: ReturnType<typeof setTimeout> | undefined;
  let deadlineHit = false;
  if (deadlineMs === undefined && signal !== undefined) {
    attemptSignal = signal;
  } else {
    const { controller, dispose } = linkedAbortController(signal);
    attemptSignal = controller.signal;
    unlink = dispose;
    if (deadlineMs !== undefined) {
      deadlineTimer = setTimeout(() => {
        deadlineHit = true;
        controller.abort(new Error(`deadline of ${deadlineMs} ms exceeded`));
      }, deadlineMs);
    }
  }

  try {
    for (let attempt = 1; ; attempt++) {
      let error: unknown;
      try {
        return await raceAbort(fn({ attempt, signal: attemptSignal }), attemptSignal);
      } catch (caught) {
        error = caught;
      }
      if (signal?.aborted) {
        throw ModelError.isInstance(error) && error.code === 'aborted' ? error : abortedError(signal);
      }
      if (deadlineHit) throw deadlineError(deadlineMs, attempt, error);
      if (!ModelError.isInstance(error) || !error.isRetryable || attempt >= maxAttempts) throw error;

      const backoff = backoffDelay(attempt, options);
      let delayMs = jitter ? random() * backoff : backoff;
      if (error.retryAfterMs !== undefined) {
        if (error.retryAfterMs > maxRetryAfterMs) throw error;
        delayMs = Math.max(delayMs, error.retryAfterMs);
      }
      delayMs = Math.round(delayMs);
      if (deadlineAt !== undefined && now() + delayMs >= deadlineAt) throw error;
      onRetry?.({ attempt, error, delayMs });
      await raceAbort(sleep(delayMs, signal), signal);
      if (deadlineHit || (deadlineAt !== undefined && now() >= deadlineAt)) throw error;
    }
  } finally {
    if (deadlineTimer !== undefined) clearTimeout(deadlineTimer);
    unlink?.();
  }
}
