import type { ExecutorEvent } from '@closedloop/executor';
import type { Redactor } from '@closedloop/model';
import { redactsToItselfWith } from '@closedloop/model/provider';
import type { PlanEvent } from '@closedloop/plan';
import type { JournalRecord } from './journal-format';
import { type CortexEvent, isJournaled, type RunEvent } from './run-events';
import type { RunStore } from './run-store';

/** A cortex event before the bus stamps `runId` and `at` on it. */
export type CortexEventInput = CortexEvent | ExecutorEvent;

/** The text of one stream of deltas, and how much of its redaction was sent. */
interface DeltaStream {
  raw: string;
  /** Characters of the stream's redacted text already sent. */
  emitted: number;
  last: RunEvent;
}

/** Characters that never occur inside a key or token: a stream may be cut after one. */
const streamBoundary = /[\s"'`,;<>(){}[\]]/;

/** The text field of a streamed delta event, or undefined for any other event. */
function deltaField(event: RunEvent): 'delta' | 'argumentsDelta' | undefined {
  if (event.type === 'text-delta') return 'delta';
  if (event.type === 'tool-call-delta') return 'argumentsDelta';
  return undefined;
}

/** The stream a delta belongs to: a response's text, or one of its tool calls' arguments. */
function streamKey(event: RunEvent): string {
  const { stepId, iteration, index } = event as unknown as Record<string, unknown>;
  return JSON.stringify([event.type, stepId, iteration, index ?? null]);
}

/**
 * The journal record of an event, serialized now: the journal keeps the event as it was emitted,
 * whatever a listener does to the object afterwards, and the store writes this text instead of
 * serializing the event again. An event JSON cannot hold (a cycle, a BigInt) is left to the store,
 * whose serialization fails the commit (a store error), as it always did.
 */
function journalRecord(seq: number, event: RunEvent): JournalRecord {
  let json: string | undefined;
  try {
    json = JSON.stringify(event);
  } catch {
    return { seq, event };
  }
  return json === undefined ? { seq, event } : { seq, event, json };
}

/**
 * Sets `runId` (and `at`) on an event the bus owns: the fields `{ ...event, runId, at }` would
 * have, in the same order (new keys go last; a key the event already has keeps its place), without
 * the copy — a spread over the run's many event shapes is one of the costliest steps of an emit.
 */
function stampInPlace(event: object, runId: string, at: number | undefined): RunEvent {
  const target = event as { runId?: string; at?: number };
  target.runId = runId;
  if (at !== undefined) target.at = at;
  return event as RunEvent;
}

/** Default wait before staged events are committed when nothing asks for a commit sooner. */
const defaultCommitDelayMs = 10;

/**
 * The run's event hub: redacts every event as it enters (so nothing unredacted is journaled,
 * streamed or kept in the history), stamps `runId`/`at`, keeps the run's history in memory, fans
 * out to `onEvent` and live subscribers, and journals the events that are journaled (everything
 * but streaming deltas) with their seq (the position in the run).
 *
 * Each event is redacted once, into one object that the history, every listener and the journal
 * share (listeners must treat it as read-only). An event without a secret is not deep-copied: an
 * emitted one (the bus owns it) is stamped in place, a forwarded plan event is copied shallowly;
 * either way its nested objects are the emitter's (as with no redactor). A journaled event is serialized once, as it is
 * emitted, before any listener sees it: the store writes that text, and the journal holds the
 * event as it was emitted whatever a listener does to the object.
 *
 * Journaling is a group commit: emitted events are staged, and `flush()` writes everything staged
 * as one `store.append` (one write and, with the JSONL store's default, one fsync); events staged
 * while a commit is in flight form the next group. Whoever is about to act on an event — run a
 * tool, ask a human, end the run — awaits `flush()` first, so nothing is acted on before it is
 * durable; staged events are also committed on their own after a few milliseconds.
 *
 * Listener failures are swallowed (a broken UI must not stop a run). The first store failure is
 * kept in `storeError`, journaling stops and `onStoreError` is called (the session stops the run:
 * it can no longer act on events it cannot journal).
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
  readonly #onStoreError: ((error: unknown) => void) | undefined;
  readonly #commitDelayMs: number;
  /** Streamed texts (`text-delta`, `tool-call-delta`) being redacted across their deltas. */
  readonly #streams = new Map<string, DeltaStream>();
  #staged: JournalRecord[] = [];
  /** Seq of the next journaled event. */
  #nextSeq: number;
  /** Every seq below this is durable in the store. */
  #durableSeq: number;
  #inFlight: Promise<void> | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Events that start no commit by themselves (see the `lazy` option). */
  readonly #lazy: ((event: RunEvent) => boolean) | undefined;
  /** Something staged asks for a commit of its own (an event that is not lazy). */
  #due = false;

  constructor(options: {
    runId: string;
    store: RunStore | undefined;
    clock: () => number;
    /** The journal read back on resume: durable, seqs 0…length − 1. */
    history?: RunEvent[];
    onEvent?: ((event: RunEvent) => void) | undefined;
    onStoreError?: (error: unknown) => void;
    /** How long staged events may wait for a commit nobody asked for. Default 10 ms. */
    commitDelayMs?: number;
    /** Applied to every event before anything else sees it. */
    redactor?: Redactor | undefined;
    /**
     * Events that start no commit of their own: staged, they wait for the next commit that
     * something else starts (a `flush()`, or the timer of an event that is not lazy) and are
     * written with it, in order. Only for events nothing recovers from (an announcement such as
     * `model-call-started`): a clean end flushes them, a crash may lose them. Default: none.
     */
    lazy?: (event: RunEvent) => boolean;
  }) {
    this.runId = options.runId;
    this.#redactor = options.redactor;
    this.#store = options.store;
    this.#clock = options.clock;
    this.history = options.history ?? [];
    this.#nextSeq = this.history.length;
    this.#durableSeq = this.history.length;
    this.#onStoreError = options.onStoreError;
    this.#commitDelayMs = options.commitDelayMs ?? defaultCommitDelayMs;
    if (options.onEvent) this.#listeners.add(options.onEvent);
    this.#lazy = options.lazy;
  }

  /** Adds a live listener; returns the unsubscribe function. */
  subscribe(listener: (event: RunEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /**
   * Emits a cortex or executor event. The bus takes the object over: every caller hands it a
   * fresh one it keeps no reference to (a literal, the executor's event), so an event without a
   * secret is stamped in place — `runId` and `at` added after its own fields, exactly the copy
   * `{ ...event, runId, at }` would be — instead of being copied. An event the redactor changes
   * is still redacted into a copy.
   */
  emit(event: CortexEventInput): RunEvent {
    if (this.#redactor && deltaField(event as RunEvent) !== undefined)
      return this.#emitDelta({ ...event, runId: this.runId, at: this.#clock() } as RunEvent);
    this.#flushStreams((event as { stepId?: unknown }).stepId);
    const stamped = this.#stamp(event, this.#clock(), true);
    this.#dispatch(stamped);
    return stamped;
  }

  /**
   * Forwards a plan event (it already has `at`). The plan keeps the event in its own log and
   * hands it to its other listeners: it is copied, never changed.
   */
  forwardPlan(event: PlanEvent): void {
    this.#dispatch(this.#stamp(event, undefined, false));
  }

  /**
   * The one place events enter: nothing past it holds a secret the redactor knows. The event
   * gets `runId` (and `at` for a cortex or executor event) after its own fields, redacted, exactly
   * as redacting `{ ...event, runId, at }` would give; the redactor's copy (a new object, the input
   * untouched) is stamped in place rather than copied once more, and an event the redactor would
   * not change (nearly all) is only copied shallowly — or, when the bus `owns` it (see `emit`),
   * not copied at all: stamped in place, the same fields in the same order as the copy.
   */
  #stamp(event: CortexEventInput | PlanEvent, at: number | undefined, owns: boolean): RunEvent {
    const redactor = this.#redactor;
    if (redactor !== undefined) {
      // Nearly every event holds no secret: then the event stamped with the redacted run id is
      // what redacting would give, without copying every nested object.
      if (redactsToItselfWith(redactor, event)) {
        const runId = redactor.redact(this.runId);
        if (owns && Object.isExtensible(event)) return stampInPlace(event, runId, at);
        return (at === undefined ? { ...event, runId } : { ...event, runId, at }) as RunEvent;
      }
      const copy = redactor.redactValue(event) as Record<string, unknown>;
      if (copy !== event && typeof copy === 'object' && copy !== null) {
        copy.runId = redactor.redact(this.runId);
        if (at !== undefined) copy.at = at;
        return copy as unknown as RunEvent;
      }
    }
    if (redactor === undefined && owns && Object.isExtensible(event))
      return stampInPlace(event, this.runId, at);
    const stamped = (
      at === undefined ? { ...event, runId: this.runId } : { ...event, runId: this.runId, at }
    ) as RunEvent;
    return redactor === undefined ? stamped : redactor.redactValue(stamped);
  }

  /** Redacts an event that already carries its `runId` and `at` (the streamed-delta path). */
  #redact(event: RunEvent): RunEvent {
    return this.#redactor ? this.#redactor.redactValue(event) : event;
  }

  /**
   * A streamed delta: each one alone may hold a few characters of a secret that no redaction of
   * the delta can recognise. The stream's text is redacted as a whole instead, and the delta
   * carries what of it became safe to show: everything up to the last character that never occurs
   * inside a token (white space, quotes, commas), so a secret still arriving is held back until
   * it is complete. The rest goes out before the step's next other event.
   */
  #emitDelta(event: RunEvent): RunEvent {
    const field = deltaField(event) as 'delta' | 'argumentsDelta';
    const key = streamKey(event);
    const stream = this.#streams.get(key) ?? { raw: '', emitted: 0, last: event };
    this.#streams.set(key, stream);
    stream.raw += String((event as unknown as Record<string, unknown>)[field] ?? '');
    stream.last = event;
    let boundary = stream.raw.length;
    while (boundary > 0 && !streamBoundary.test(stream.raw[boundary - 1] as string)) boundary--;
    const out = this.#advance(stream, boundary);
    const redacted = this.#redact({ ...event, [field]: out } as RunEvent);
    if (out !== '') this.#dispatch(redacted);
    this.#compact(stream, boundary);
    return redacted;
  }

  /** The redacted text of `stream` up to `end` that was not sent yet. */
  #advance(stream: DeltaStream, end: number): string {
    const redacted = (this.#redactor as Redactor).redact(stream.raw.slice(0, end));
    const out = redacted.slice(stream.emitted);
    stream.emitted = Math.max(stream.emitted, redacted.length);
    return out;
  }

  /** Forgets the sent start of a long stream (at a line break the redaction did not change). */
  #compact(stream: DeltaStream, boundary: number): void {
    if (boundary < 16_384) return;
    const cut = stream.raw.lastIndexOf('\n', boundary - 8_192);
    if (cut <= 0) return;
    const redactor = this.#redactor as Redactor;
    const head = redactor.redact(stream.raw.slice(0, cut + 1));
    if (!redactor.redact(stream.raw.slice(0, boundary)).startsWith(head) || head.length > stream.emitted)
      return;
    stream.raw = stream.raw.slice(cut + 1);
    stream.emitted -= head.length;
  }

  /** Sends what is held back of the streams of `stepId` (all streams when undefined). */
  #flushStreams(stepId: unknown): void {
    for (const [key, stream] of this.#streams) {
      const last = stream.last as unknown as Record<string, unknown>;
      if (stepId !== undefined && last.stepId !== stepId) continue;
      this.#streams.delete(key);
      const out = this.#advance(stream, stream.raw.length);
      const field = deltaField(stream.last) as string;
      if (out !== '') this.#dispatch(this.#redact({ ...last, [field]: out, at: this.#clock() } as RunEvent));
    }
  }

  /** How many of the run's events are durable in the store (those it was built with included). */
  get durableEvents(): number {
    return this.#durableSeq;
  }

  /**
   * Resolves once every event emitted before the call is durable in the store (or journaling
   * stopped on a store failure: see `storeError`). Concurrent calls share commits.
   */
  async flush(): Promise<void> {
    const target = this.#nextSeq;
    while (this.#durableSeq < target && this.storeError === undefined) {
      if (this.#inFlight === undefined) this.#commit();
      await this.#inFlight;
    }
  }

  /**
   * Stops journaling for good: nothing staged or emitted later reaches the store (the lease was
   * lost — another process owns the run now — or the store failed).
   */
  detach(reason: unknown): void {
    if (this.storeError !== undefined) return;
    this.storeError = reason;
    this.#staged = [];
    this.#due = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #dispatch(event: RunEvent): void {
    if (isJournaled(event)) {
      this.history.push(event);
      if (this.#store && this.storeError === undefined) {
        this.#staged.push(journalRecord(this.#nextSeq++, event));
        if (this.#lazy === undefined || !this.#lazy(event)) {
          this.#due = true;
          this.#timer ??= setTimeout(() => {
            this.#timer = undefined;
            if (this.#inFlight === undefined) this.#commit();
          }, this.#commitDelayMs);
        }
      }
    }
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A failing listener must not stop the run.
      }
    }
  }

  /** Starts one group commit of everything staged (the caller checked none is in flight). */
  #commit(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const group = this.#staged;
    if (group.length === 0 || this.storeError !== undefined) return;
    this.#staged = [];
    this.#due = false;
    const durable = group.at(-1)!.seq + 1;
    const fail = (error: unknown) => {
      if (this.storeError !== undefined) return;
      this.detach(error);
      this.#onStoreError?.(error);
    };
    let written: void | Promise<void>;
    try {
      written = this.#store!.append(this.runId, group);
    } catch (error) {
      fail(error);
      return;
    }
    this.#inFlight = Promise.resolve(written).then(
      () => {
        this.#durableSeq = durable;
        this.#inFlight = undefined;
        if (this.#due && this.#timer === undefined) this.#commit();
      },
      (error: unknown) => {
        this.#inFlight = undefined;
        fail(error);
      },
    );
  }
}
