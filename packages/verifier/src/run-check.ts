import { linkedAbortController, onAbort } from '@closedloop/model';
import type { Finding, Priority } from './finding';
import type { CheckTiming } from './verdict';
import { VerifierError } from './verifier-error';

/** What a step check may use while it runs. */
export interface CheckScope {
  /**
   * Aborts when the caller aborts, when the check times out and when it has finished (to end
   * what it left running). Created on first read: a check that never reads it costs no signal.
   */
  readonly signal: AbortSignal;
}

/**
 * One of `verifyStep`'s checks. `input` is what {@link runCheck} was given: checks defined once
 * (module-level) get the verification's data there instead of closing over it.
 */
export interface StepCheck<I = undefined> {
  name: string;
  priority: Priority;
  run(scope: CheckScope, input: I): Finding[] | Promise<Finding[]>;
}

/** Where {@link runCheck} records what a check found and how long it took. */
export interface RunCheckContext {
  findings: Finding[];
  timings: CheckTiming[];
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function crashed(check: StepCheck<never>, error: unknown): Finding {
  return {
    check: check.name,
    priority: check.priority,
    status: 'error',
    message: `The ${check.name} check crashed: ${error instanceof Error ? error.message : String(error)} (infrastructure error, not a failure of the work).`,
  };
}

/**
 * The scope of one running check, and what ends it: one object per check (no closures), whose
 * signal is made only when the check reads it.
 */
class CheckRun implements CheckScope {
  readonly #check: StepCheck<never>;
  readonly #context: RunCheckContext;
  readonly #started = performance.now();
  #controller: AbortController | undefined;
  #unlink: (() => void) | undefined;
  /** Set once the check is over: a signal read later is born aborted with its end reason. */
  #ended = false;
  /** Why the check ended (its timeout), else made on demand: an Error captures a stack. */
  #endReason: Error | undefined;

  constructor(check: StepCheck<never>, context: RunCheckContext) {
    this.#check = check;
    this.#context = context;
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      if (this.#ended) {
        this.#controller = new AbortController();
        this.#controller.abort(this.#reasonOfEnd());
      } else {
        const { controller, dispose } = linkedAbortController(this.#context.signal);
        this.#controller = controller;
        this.#unlink = dispose;
      }
    }
    return this.#controller.signal;
  }

  #reasonOfEnd(): Error {
    this.#endReason ??= new Error(`the ${this.#check.name} check finished`);
    return this.#endReason;
  }

  /** Ends the check's signal (with `reason`, else "finished") and records its time. */
  finish(reason?: Error): void {
    this.#ended = true;
    this.#endReason = reason;
    const controller = this.#controller;
    if (controller !== undefined) {
      this.#unlink?.();
      if (!controller.signal.aborted) controller.abort(this.#reasonOfEnd());
    }
    this.#context.timings.push({ check: this.#check.name, ms: performance.now() - this.#started });
  }
}

/**
 * Runs one step check and records its findings (a crash or a timeout becomes an `error`
 * finding: an infrastructure error, not a failure of the work; a `VerifierError` is rethrown).
 *
 * A check that returns its findings synchronously costs no timer, controller or promise: the
 * call returns `undefined` and everything is recorded already. Only a check that returns a
 * promise gets the timeout (`timeoutMs`) and is answered as soon as the caller's signal aborts
 * (even if it ignores its own signal); the call then returns a promise that settles when the
 * check is recorded. The check's signal ({@link CheckScope}) is made only when the check reads
 * it (before or after it returned), and is aborted once the check is over — a signal read after
 * that is born aborted.
 */
export function runCheck<I>(
  check: StepCheck<I>,
  context: RunCheckContext,
  input?: I,
): Promise<void> | undefined {
  const run = new CheckRun(check, context);
  let result: Finding[] | Promise<Finding[]>;
  try {
    result = check.run(run, input as I);
  } catch (error) {
    run.finish();
    if (VerifierError.isInstance(error)) throw error;
    context.findings.push(crashed(check, error));
    return undefined;
  }
  if (!isPromiseLike(result)) {
    for (let i = 0; i < result.length; i++) context.findings.push(result[i] as Finding);
    run.finish();
    return undefined;
  }
  return settle(check, context, result, run);
}

/** The slow path: a check that returned a promise, raced against its timeout and the caller. */
async function settle(
  check: StepCheck<never>,
  context: RunCheckContext,
  pending: Promise<Finding[]>,
  run: CheckRun,
): Promise<void> {
  const caller = context.signal;
  let reason: Error | undefined;
  let timer: NodeJS.Timeout | undefined;
  let cancelWait: (() => void) | undefined;
  const interrupted = new Promise<'timeout' | 'aborted'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), context.timeoutMs);
    if (caller?.aborted) resolve('aborted');
    else if (caller !== undefined) cancelWait = onAbort(caller, () => resolve('aborted'));
  });
  try {
    const result = await Promise.race([pending, interrupted]);
    if (result === 'timeout') {
      reason = new Error(`${check.name} timed out`);
      context.findings.push({
        check: check.name,
        priority: check.priority,
        status: 'error',
        message: `The ${check.name} check timed out after ${context.timeoutMs} ms (infrastructure error, not a failure of the work).`,
      });
    } else if (result !== 'aborted') {
      context.findings.push(...result);
    }
    // 'aborted': nothing is recorded; the caller's abort is reported by `verifyStep`.
  } catch (error) {
    if (VerifierError.isInstance(error)) throw error;
    context.findings.push(crashed(check, error));
  } finally {
    clearTimeout(timer);
    cancelWait?.();
    // A check answered by its timeout or the caller's abort may still reject later: not unhandled.
    pending.then(undefined, () => undefined);
    run.finish(reason);
  }
}
