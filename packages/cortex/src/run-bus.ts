import type { ExecutorEvent } from '@closedloop/executor';
import type { Redactor } from '@closedloop/model';
import type { PlanEvent } from '@closedloop/plan';
import { type CortexEvent, isJournaled, type RunEvent } from './run-events';
import type { RunStore } from './run-store';

/** A cortex event before the bus stamps `runId` and `at` on it. */
export type CortexEventInput = CortexEvent | ExecutorEvent;

/**
 * The run's event hub: redacts every event as it enters (so nothing unredacted is journaled,
 * streamed or kept in the history), stamps `runId`/`at`, appends journaled events to the store in order,
 * keeps the run's history in memory, and fans out to `onEvent` and live subscribers. Listener
 * failures are swallowed (a broken UI must not stop a run); the first store failure is kept in
 * `storeError` and journaling stops (the run goes on, but can no longer be resumed).
 */
export class RunBus {
  readonly runId: string;
  /** Every journaled event of the run, the ones read back from the store on resume included. */
  readonly history: RunEvent[];
  storeError: unknown;
  readonly #store: RunStore | undefined;
  readonly #clock: () => number;
  readonly #redactor: Redactor | undefined;
  readonly #listeners = new Set<(event: RunEvent) => void>();
  #pending: Promise<void> | undefined;

  constructor(options: {
    runId: string;
    store: RunStore | undefined;
    clock: () => number;
    history?: RunEvent[];
    onEvent?: ((event: RunEvent) => void) | undefined;
    /** Applied to every event before anything else sees it. */
    redactor?: Redactor | undefined;
  }) {
    this.runId = options.runId;
    this.#redactor = options.redactor;
    this.#store = options.store;
    this.#clock = options.clock;
    this.history = options.history ?? [];
    if (options.onEvent) this.#listeners.add(options.onEvent);
  }

  /** Adds a live listener; returns the unsubscribe function. */
  subscribe(listener: (event: RunEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Emits a cortex or executor event. */
  emit(event: CortexEventInput): RunEvent {
    const stamped = this.#redact({ ...event, runId: this.runId, at: this.#clock() } as RunEvent);
    this.#dispatch(stamped);
    return stamped;
  }

  /** Forwards a plan event (it already has `at`). */
  forwardPlan(event: PlanEvent): void {
    this.#dispatch(this.#redact({ ...event, runId: this.runId } as RunEvent));
  }

  /** The one place events enter: nothing past it holds a secret the redactor knows. */
  #redact(event: RunEvent): RunEvent {
    return this.#redactor ? this.#redactor.redactValue(event) : event;
  }

  /** Resolves once every append the store returned a promise for has settled. */
  async flush(): Promise<void> {
    while (this.#pending) {
      const pending = this.#pending;
      await pending;
      if (this.#pending === pending) this.#pending = undefined;
    }
  }

  #dispatch(event: RunEvent): void {
    if (isJournaled(event)) {
      this.history.push(event);
      if (this.#store && this.storeError === undefined) this.#append(event);
    }
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener must not stop the run.
      }
    }
  }

  #append(event: RunEvent): void {
    const store = this.#store!;
    const fail = (error: unknown) => {
      this.storeError ??= error;
    };
    const write = (): void | Promise<void> => {
      if (this.storeError === undefined) return store.append(this.runId, event);
    };
    if (this.#pending) {
      this.#pending = this.#pending.then(write).catch(fail);
      return;
    }
    try {
      const result = write();
      if (result && typeof result.then === 'function') this.#pending = Promise.resolve(result).catch(fail);
    } catch (error) {
      fail(error);
    }
  }
}
