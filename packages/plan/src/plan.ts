import type { z } from 'zod';
import { type FormatToolHistoryOptions, formatStepHistory } from './format-tool-history';
import { findIndexCycle, validateGraph } from './graph';
import { type ParsedSubgraphDraft, parseSubgraphDraft } from './parse-subgraph-draft';
import { PlanError, type PlanErrorCode } from './plan-error';
import { type PlanEvent, type PlanEventOf, type PlanEventType, planEventSchema } from './plan-events';
import { PLAN_SNAPSHOT_VERSION, type PlanSnapshot, planSnapshotSchema } from './plan-snapshot';
import {
  type DeepReadonly,
  type PlanInput,
  planInputSchema,
  type ReadonlyStep,
  type Step,
  type StepAttempt,
  type StepClaims,
  type StepClaimsInput,
  type StepId,
  type StepStatus,
  type SubgraphDraft,
  stepClaimsSchema,
  type stepDraftSchema,
  stepStatusSchema,
  type ToolCallRecord,
  type VerificationRecord,
  type VerificationRecordInput,
  verificationRecordSchema,
} from './schema';
import { isLegalTransition, isTerminalStatus } from './step-transitions';
import { toText } from './to-text';

/** Options of `Plan.create`, `Plan.fromJSON` and `Plan.replay`. */
export interface PlanOptions {
  /** Epoch-milliseconds clock stamped on every event (`at`) and ledger entry. Default `Date.now`. */
  clock?: () => number;
}

/** Options of `Plan.create`. */
export interface CreatePlanOptions extends PlanOptions {
  /** The plan id (`planId` of every event). Default: `input.id`, else `crypto.randomUUID()`. */
  id?: string;
}

/** Options of `Plan.replay`. */
export interface ReplayOptions extends PlanOptions {
  /**
   * A snapshot (`plan.toJSON()`) to start from; the events then continue it (their first `seq`
   * is the snapshot's `nextSeq`). Without it the first event must be `plan-created`.
   */
  from?: unknown;
}

/** Receives every event after it has been applied. Listeners must not throw. */
export type PlanListener = (event: PlanEvent, plan: Plan) => void;

/** What `plan.markStep` may change. Omitted fields keep their value. */
export interface MarkStepOptions {
  /** New status; must be a legal transition (see `stepTransitions`). Same status = no transition. */
  status?: StepStatus;
  /** Notes, by convention starting `[SUCCESS]:` or `[FAIL]:` (see `parseStepNotes`). */
  notes?: string;
  /** The step's output, for downstream steps and the final answer. */
  output?: string;
  /** Files the step produced or touched. */
  files?: readonly string[];
  /** Structured claims for the verifier (files written, symbols added, commands that passed, git tags). */
  claims?: StepClaimsInput;
}

/** Input of `plan.recordToolCall`. */
export interface ToolCallInput {
  /** The provider's call id. Without one an id `auto-N` is generated (`generatedId: true`). */
  callId?: string;
  tool: string;
  /** The call's arguments as the model sent them (stored as given; omitted = `{}`). */
  args?: unknown;
}

/** Input of `plan.recordToolResult`. */
export interface ToolResultInput {
  /** The provider's call id; without it the oldest pending generated-id call of `tool` is paired. */
  callId?: string;
  tool: string;
  status: 'success' | 'error';
  /** Stored as a string; anything else is `JSON.stringify`'d. */
  result?: unknown;
  /** Stored as a string; an `Error` contributes its message. */
  error?: unknown;
}

/** Options of `plan.resetStep`. */
export interface ResetStepOptions {
  /** Why the step goes back to `not_started`; stored on the archived attempt. Non-empty. */
  reason: string;
}

/** Options of `plan.addSteps`. */
export interface AddStepsOptions {
  /** Display position of the first new step, `0..plan.size`. Default: the end of the plan. */
  insertAt?: number;
}

/** Result of `plan.addSteps`. */
export interface AddStepsResult {
  /** The inserted steps, in draft order, with their final ids and dependencies. */
  added: Step[];
  /** Display position of the first new step. */
  insertAt: number;
}

/** Result of `plan.replaceSubgraph`. */
export interface ReplaceSubgraphResult {
  /** Every removed step id (the given ids and their downstream), in topological order. */
  removed: StepId[];
  /** The inserted steps, in draft order, with their final ids and dependencies. */
  added: Step[];
}

/** Number of steps per status. */
export type StepCounts = Record<StepStatus, number>;

/** An event before the plan stamps `planId`, `seq` and `at` on it. */
type Payload<T extends PlanEventType> = Omit<PlanEventOf<T>, 'planId' | 'seq' | 'at'>;
type EventPayload = { [T in PlanEventType]: Payload<T> }[PlanEventType];

type ParsedDraft = z.infer<typeof stepDraftSchema>;

/** How a draft's ids and dependencies are resolved against the plan (see `#resolveDraft`). */
interface ResolveDraftOptions {
  /** Ids of steps leaving the plan in the same operation: nothing may depend on them. */
  removed: ReadonlySet<StepId>;
  /** A draft id that names a step of the plan: `rename` it to `s<N>`, or `refuse` it. */
  takenIds: 'rename' | 'refuse';
  /** Words for messages: `Redesigned step 2 …`, `The redesign …` (singular). */
  stepLabel: string;
  wholeLabel: string;
  /** `replanAttempts` of every new step. */
  replanAttempts: number;
  /** `replaces` of every new step (each gets its own copy). */
  replaces: readonly StepId[];
}

interface StepNode {
  step: Step;
  /** Dependency nodes, in `step.dependsOn` order. Never changes while the node lives. */
  deps: StepNode[];
  /** Steps that depend on this one. */
  dependents: StepNode[];
  /** Dependencies that are not `completed` yet. */
  unmet: number;
  /** Index in display order. */
  pos: number;
  /** Ledger entries by call id; the shared {@link NO_CALLS} until the step's first call. */
  calls: Map<string, ToolCallRecord>;
  /** Scratch for graph walks: the walk that last reached this node, and a counter. */
  mark: number;
  scratch: number;
}

const STATUSES = new Set<string>(stepStatusSchema.options);
/** Shared, never written: most steps of a large plan have no calls yet, so no Map each. */
const NO_CALLS: ReadonlyMap<string, ToolCallRecord> = new Map();

/** The node's own call map, created on its first call. */
function callsOf(node: StepNode): Map<string, ToolCallRecord> {
  if (node.calls === NO_CALLS) node.calls = new Map();
  return node.calls;
}
/**
 * N for a generated id `s<N>` (the `^s(\d+)$` ids the plan makes), else -1. By hand: a regex
 * match allocates, and a 2,000-step redesign generates 2,000 ids.
 */
function generatedIdNumber(id: string): number {
  // 115 is "s", 48–57 the digits.
  if (id.length < 2 || id.charCodeAt(0) !== 115) return -1;
  for (let index = 1; index < id.length; index++) {
    const code = id.charCodeAt(index);
    if (code < 48 || code > 57) return -1;
  }
  return Number(id.slice(1));
}

function emptyCounts(): StepCounts {
  return { not_started: 0, in_progress: 0, completed: 0, failed: 0, blocked: 0, skipped: 0 };
}

function unique<T>(values: readonly T[]): T[] {
  return values.length < 2 ? [...values] : [...new Set(values)];
}

function copyClaims(claims: StepClaims): StepClaims {
  return {
    filesWritten: [...claims.filesWritten],
    filesDeleted: [...claims.filesDeleted],
    symbolsAdded: claims.symbolsAdded.map((symbol) => ({ ...symbol })),
    commandsPassed: claims.commandsPassed.map((command) => ({ argv: [...command.argv] })),
    tags: (claims.tags ?? []).map((tag) => ({ ...tag })),
  };
}

function copyVerification(record: VerificationRecord): VerificationRecord {
  return { ...record, findings: record.findings.map((finding) => ({ ...finding })) };
}

function copyAttempt(attempt: StepAttempt): StepAttempt {
  const copy: StepAttempt = {
    ...attempt,
    files: [...attempt.files],
    ledger: attempt.ledger.map((call) => ({ ...call })),
  };
  if (attempt.claims !== undefined) copy.claims = copyClaims(attempt.claims);
  if (attempt.verification !== undefined) copy.verification = copyVerification(attempt.verification);
  return copy;
}

/** A detached copy of a step (arguments of tool calls are shared, never mutated by the plan). */
function copyStep(step: Step): Step {
  const copy: Step = {
    ...step,
    dependsOn: [...step.dependsOn],
    requiredTools: [...step.requiredTools],
    successCriteria: [...step.successCriteria],
    protocols: [...step.protocols],
    files: [...step.files],
    ledger: step.ledger.map((call) => ({ ...call })),
    replaces: [...step.replaces],
    previousAttempts: step.previousAttempts.map(copyAttempt),
  };
  if (step.claims !== undefined) copy.claims = copyClaims(step.claims);
  if (step.verification !== undefined) copy.verification = copyVerification(step.verification);
  return copy;
}

function draftToStep(draft: ParsedDraft): Step {
  const step: Step = {
    id: draft.id,
    description: draft.description,
    dependsOn: unique(draft.dependsOn),
    requiredTools: [...draft.requiredTools],
    successCriteria: [...draft.successCriteria],
    protocols: [...draft.protocols],
    status: 'not_started',
    notes: '',
    files: [],
    ledger: [],
    replanAttempts: 0,
    replaces: [],
    previousAttempts: [],
  };
  if (draft.title !== undefined) step.title = draft.title;
  return step;
}

function invalidArgument(message: string, details: Record<string, unknown> = {}): PlanError {
  return new PlanError({ code: 'invalid-argument', message, details });
}

const VERDICTS: ReadonlySet<unknown> = new Set(verificationRecordSchema.shape.verdict.options);
const FINDING_SHAPE = verificationRecordSchema.shape.findings.unwrap().element.shape;
const PRIORITIES: ReadonlySet<unknown> = new Set(FINDING_SHAPE.priority.options);
const FINDING_STATUSES: ReadonlySet<unknown> = new Set(FINDING_SHAPE.status.options);

/** A non-null, non-array object (what `z.object` accepts). */
function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * `verificationRecordSchema.safeParse(record)`, with a fast path for the well-formed record every
 * step produces: it builds exactly what zod would (schema key order, unknown keys dropped,
 * defaults filled in) without zod's per-field machinery. Anything it is not sure of — a wrong
 * type, an explicit `confidence: undefined`, a number out of range — goes to zod, so refusals and
 * their messages are zod's own. Exported for its equivalence test.
 */
export function parseVerificationRecord(
  record: unknown,
): { success: true; data: VerificationRecord } | ReturnType<typeof verificationRecordSchema.safeParse> {
  const data = wellFormedVerificationRecord(record);
  return data !== undefined ? { success: true, data } : verificationRecordSchema.safeParse(record);
}

/** The fast path of {@link parseVerificationRecord}: the parsed record, or `undefined` when unsure. */
function wellFormedVerificationRecord(record: unknown): VerificationRecord | undefined {
  if (!isRecord(record) || !VERDICTS.has(record.verdict)) return undefined;
  const { confidence, unverified, findings } = record;
  const hasConfidence = 'confidence' in record;
  if (
    hasConfidence &&
    !(typeof confidence === 'number' && Number.isFinite(confidence) && confidence >= 0 && confidence <= 1)
  )
    return undefined;
  if (unverified !== undefined && typeof unverified !== 'boolean') return undefined;
  if (findings !== undefined && !Array.isArray(findings)) return undefined;
  const parsedFindings: VerificationRecord['findings'] = [];
  for (const finding of (findings ?? []) as unknown[]) {
    if (
      !isRecord(finding) ||
      typeof finding.check !== 'string' ||
      !PRIORITIES.has(finding.priority) ||
      !FINDING_STATUSES.has(finding.status) ||
      typeof finding.message !== 'string'
    )
      return undefined;
    parsedFindings.push({
      check: finding.check,
      priority: finding.priority as VerificationRecord['findings'][number]['priority'],
      status: finding.status as VerificationRecord['findings'][number]['status'],
      message: finding.message,
    });
  }
  return (
    hasConfidence
      ? { verdict: record.verdict, confidence, unverified: unverified ?? false, findings: parsedFindings }
      : { verdict: record.verdict, unverified: unverified ?? false, findings: parsedFindings }
  ) as VerificationRecord;
}

/** The `PlanError` of `resetStep` (or a `step-reset` event) on a step that cannot be reset. */
function resetRefused(stepId: StepId, from: StepStatus): PlanError {
  return new PlanError({
    code: 'illegal-transition',
    message: `Step "${stepId}" is ${from}; only an in_progress or failed step can be reset to not_started.`,
    details: { stepId, from, to: 'not_started' },
  });
}

/** The `PlanError` for data zod refused: `what`, zod's message, the issues in `details`, zod's error as `cause`. */
function refusedByZod(
  code: PlanErrorCode,
  what: string,
  error: z.ZodError,
  details: Record<string, unknown> = {},
): PlanError {
  return new PlanError({
    code,
    message: `${what}: ${error.message}`,
    details: { ...details, issues: error.issues },
    cause: error,
  });
}

/**
 * `plan.markStep(id, options)` without the copy of the step it returns, for callers that do not
 * use it (the scheduler and the executor mark every step several times). Internal: exported from
 * `@closedloop/plan/internal`.
 */
export let markStepWithoutCopy: (plan: Plan, id: StepId, options: MarkStepOptions) => void;

/**
 * A plan: a DAG of steps with stable string ids, each with a status, notes, output, claims, a
 * tool-call ledger and a verification record.
 *
 * Every mutation validates first, then turns into events that one internal `apply` folds into
 * the state; `Plan.replay(plan.events)` folds the same function, so a replayed plan equals the
 * live one and a refused mutation (a thrown `PlanError`) changes nothing.
 *
 * @example
 * const plan = Plan.create({ goal: 'API', steps: [
 *   { id: 'models', description: 'Write models' },
 *   { id: 'api', description: 'Write API', dependsOn: ['models'] },
 * ] });
 * plan.readySteps(); // ['models']
 */
export class Plan {
  /** The plan id, the `planId` of every event. */
  readonly id: string;
  #title = '';
  #goal = '';
  readonly #clock: () => number;
  readonly #nodes = new Map<StepId, StepNode>();
  #order: StepNode[] = [];
  readonly #ready = new Set<StepNode>();
  readonly #counts: StepCounts = emptyCounts();
  readonly #events: PlanEvent[] = [];
  readonly #listeners = new Set<PlanListener>();
  /** The listeners as an array, rebuilt after (un)subscribing: events are published to it, so a listener (un)subscribing meanwhile changes the next event's list, not this one's. */
  #listenerList: readonly PlanListener[] | undefined;
  #nextSeq = 0;
  #idCounter = 0;
  #walk = 0;

  private constructor(id: string, clock: () => number) {
    this.id = id;
    this.#clock = clock;
  }

  // ─── construction ────────────────────────────────────────────────────────────────────────

  /**
   * Validates a plan (zod shape, unique ids, no dangling dependencies, no cycles) and builds it,
   * emitting `plan-created`. Throws `PlanError` (`invalid-plan`, `duplicate-step`,
   * `dangling-dependency`, `cycle`).
   */
  static create(input: PlanInput, options: CreatePlanOptions = {}): Plan {
    const parsed = planInputSchema.safeParse(input);
    if (!parsed.success) throw refusedByZod('invalid-plan', 'The plan input is invalid', parsed.error);
    const steps = parsed.data.steps.map((draft) => ({ ...draft, dependsOn: unique(draft.dependsOn) }));
    validateGraph(steps);
    const id = options.id ?? parsed.data.id ?? globalThis.crypto.randomUUID();
    const plan = new Plan(id, options.clock ?? Date.now);
    plan.#commit([{ type: 'plan-created', title: parsed.data.title, goal: parsed.data.goal, steps }]);
    return plan;
  }

  /**
   * Rebuilds a plan from `plan.toJSON()` output. Validates the shape with zod, then the graph
   * (unique ids, dependencies, acyclic) and the state (a started step's dependencies are
   * completed, call ids unique per ledger). Throws `PlanError('invalid-snapshot')`; `details`
   * holds the zod `issues` or the underlying `reason`. The restored plan's event log is empty;
   * new events continue at the snapshot's `nextSeq`.
   */
  static fromJSON(json: unknown, options: PlanOptions = {}): Plan {
    const parsed = planSnapshotSchema.safeParse(json);
    if (!parsed.success) throw refusedByZod('invalid-snapshot', 'The plan snapshot is invalid', parsed.error);
    const snapshot = parsed.data;
    try {
      validateGraph(snapshot.steps);
      const byId = new Map(snapshot.steps.map((step) => [step.id, step]));
      for (const step of snapshot.steps) {
        if (unique(step.dependsOn).length !== step.dependsOn.length) {
          throw invalidArgument(`Step "${step.id}" lists a dependency twice.`, { stepId: step.id });
        }
        if (step.status === 'in_progress' || step.status === 'completed' || step.status === 'failed') {
          const waiting = step.dependsOn.filter((dep) => byId.get(dep)?.status !== 'completed');
          if (waiting.length > 0) {
            throw new PlanError({
              code: 'illegal-transition',
              message: `Step "${step.id}" is ${step.status} but its dependencies ${waiting.join(', ')} are not completed.`,
              details: { stepId: step.id, waitingOn: waiting },
            });
          }
        }
        const callIds = new Set<string>();
        for (const call of step.ledger) {
          if (callIds.has(call.callId)) {
            throw new PlanError({
              code: 'duplicate-tool-call',
              message: `Step "${step.id}" has two ledger entries with call id "${call.callId}".`,
              details: { stepId: step.id, callId: call.callId },
            });
          }
          callIds.add(call.callId);
        }
      }
    } catch (error) {
      if (!PlanError.isInstance(error)) throw error;
      throw new PlanError({
        code: 'invalid-snapshot',
        message: `The plan snapshot is inconsistent: ${error.message}`,
        details: { reason: error.code, ...error.details },
        cause: error,
      });
    }
    const plan = new Plan(snapshot.id, options.clock ?? Date.now);
    plan.#title = snapshot.title;
    plan.#goal = snapshot.goal;
    plan.#insertSteps(snapshot.steps, 0);
    plan.#idCounter = snapshot.idCounter;
    plan.#nextSeq = snapshot.nextSeq;
    return plan;
  }

  /**
   * Folds an event log into a plan, through the same `apply` as live mutations (cascades are
   * their own events, nothing is recomputed). Every event is zod-validated and checked against
   * the state it applies to: same `planId`, gap-free `seq`, legal transitions, known steps and
   * calls. Throws `PlanError('invalid-event')` with `details.seq` and the underlying `reason`.
   */
  static replay(events: readonly unknown[], options: ReplayOptions = {}): Plan {
    const clock = options.clock ?? Date.now;
    let plan: Plan | undefined;
    if (options.from !== undefined) plan = Plan.fromJSON(options.from, { clock });
    for (const [index, raw] of events.entries()) {
      const parsed = planEventSchema.safeParse(raw);
      if (!parsed.success) {
        throw refusedByZod('invalid-event', `Event #${index} is not a plan event`, parsed.error, { index });
      }
      const event = parsed.data;
      if (plan === undefined) {
        if (event.type !== 'plan-created' || event.seq !== 0) {
          throw new PlanError({
            code: 'invalid-event',
            message: `A log must start with plan-created at seq 0; got ${event.type} at seq ${event.seq}.`,
            details: { index, seq: event.seq, type: event.type },
          });
        }
        plan = new Plan(event.planId, clock);
      }
      plan.#replayOne(event, index);
    }
    if (plan === undefined) {
      throw new PlanError({
        code: 'invalid-event',
        message: 'Cannot replay an empty event log without a snapshot to start from (`from`).',
      });
    }
    return plan;
  }

  #replayOne(event: PlanEvent, index: number): void {
    const fail = (message: string, cause?: PlanError): never => {
      throw new PlanError({
        code: 'invalid-event',
        message: `Event #${index} (${event.type}, seq ${event.seq}) cannot be applied: ${message}`,
        details: { index, seq: event.seq, type: event.type, ...(cause ? { reason: cause.code } : {}) },
        cause,
      });
    };
    if (event.planId !== this.id) fail(`it belongs to plan "${event.planId}", not "${this.id}".`);
    if (event.seq !== this.#nextSeq) fail(`expected seq ${this.#nextSeq}.`);
    try {
      this.#check(event);
    } catch (error) {
      if (!PlanError.isInstance(error)) throw error;
      fail(error.message, error);
    }
    this.#apply(event);
    this.#events.push(event);
    this.#nextSeq = event.seq + 1;
  }

  // ─── reads ───────────────────────────────────────────────────────────────────────────────

  /** The plan's title. */
  get title(): string {
    return this.#title;
  }

  /** The goal the plan serves. */
  get goal(): string {
    return this.#goal;
  }

  /** Copies of all steps, in display order. */
  get steps(): Step[] {
    return this.#order.map((node) => copyStep(node.step));
  }

  /** All step ids, in display order. */
  get stepIds(): StepId[] {
    return this.#order.map((node) => node.step.id);
  }

  /** Number of steps. */
  get size(): number {
    return this.#order.length;
  }

  /** The event log of this object: since `create`, or since `fromJSON` (then starting at `nextSeq`). */
  get events(): readonly PlanEvent[] {
    return this.#events;
  }

  /** A copy of one step. Throws `PlanError('unknown-step')`. */
  step(id: StepId): Step {
    return copyStep(this.#node(id).step);
  }

  /**
   * The live step, without a copy: typed read-only, and it changes as the plan does (a later
   * mutation may also replace it). For read paths over large plans, where `step(id)` would copy
   * every ledger; take `step(id)` for a snapshot to keep or change. Throws
   * `PlanError('unknown-step')`.
   */
  readStep(id: StepId): ReadonlyStep {
    return this.#node(id).step;
  }

  /**
   * The status of one step, without copying the step (`step(id).status` copies its ledger).
   * Throws `PlanError('unknown-step')`.
   */
  status(id: StepId): StepStatus {
    return this.#node(id).step.status;
  }

  /**
   * Ids of the steps that have `status` (or any of several statuses), in display order, without
   * copying any step: one pass over the plan, none when no step has them.
   */
  idsWithStatus(status: StepStatus | readonly StepStatus[]): StepId[] {
    const wanted = typeof status === 'string' ? [status] : status;
    let matching = 0;
    for (const one of wanted) {
      if (!STATUSES.has(one)) {
        throw invalidArgument(`Unknown step status "${String(one)}".`, { status: one });
      }
      matching += this.#counts[one];
    }
    const ids: StepId[] = [];
    if (matching === 0) return ids;
    if (wanted.length === 1) {
      const only = wanted[0];
      for (const node of this.#order) if (node.step.status === only) ids.push(node.step.id);
    } else {
      for (const node of this.#order) if (wanted.includes(node.step.status)) ids.push(node.step.id);
    }
    return ids;
  }

  /** True when the plan has a step with this id. */
  has(id: StepId): boolean {
    return this.#nodes.has(id);
  }

  /** Steps per status. */
  counts(): StepCounts {
    return { ...this.#counts };
  }

  /**
   * `not_started` steps whose dependencies are all `completed`, in display order. Kept
   * incrementally (unmet-dependency counters), so the cost is the number of ready steps.
   */
  readySteps(): StepId[] {
    const ready = Array.from(this.#ready);
    ready.sort((a, b) => a.pos - b.pos);
    return ready.map((node) => node.step.id);
  }

  /** True when no step is ready and none is running: nothing more can happen without a replan. */
  isSettled(): boolean {
    return this.#ready.size === 0 && this.#counts.in_progress === 0;
  }

  /**
   * Every step that depends on `ids`, directly or transitively, in topological order (each step
   * after its dependencies), the inputs excluded. Linear in what it reaches.
   */
  downstreamOf(ids: StepId | readonly StepId[]): StepId[] {
    const starts = this.#nodesOf(ids);
    const inputs = new Set(starts);
    return this.#reach(starts, 'down')
      .filter((node) => !inputs.has(node))
      .map((node) => node.step.id);
  }

  /**
   * Every step `ids` depend on, directly or transitively, in topological order (dependencies
   * first), the inputs excluded. Linear in what it reaches.
   */
  upstreamOf(ids: StepId | readonly StepId[]): StepId[] {
    const starts = this.#nodesOf(ids);
    const inputs = new Set(starts);
    return this.#reach(starts, 'up')
      .filter((node) => !inputs.has(node))
      .map((node) => node.step.id)
      .reverse();
  }

  /**
   * The replanner's view of steps, in the given order: header (`### Step id: title [status]`),
   * dependencies, notes, output, files, verification, one line per earlier attempt archived by
   * `resetStep`, and every tool call of the current attempt with its result
   * (`→ status: pending ❌` for unanswered calls). Long values are truncated with a marker.
   */
  formatToolHistory(ids: StepId | readonly StepId[], options: FormatToolHistoryOptions = {}): string {
    return this.#nodesOf(ids)
      .map((node) => formatStepHistory(node.step, options))
      .join('\n\n');
  }

  /** A detached snapshot: `schemaVersion`, id, title, goal, steps in display order, counters. */
  toJSON(): PlanSnapshot {
    return {
      schemaVersion: PLAN_SNAPSHOT_VERSION,
      id: this.id,
      title: this.#title,
      goal: this.#goal,
      steps: this.steps,
      idCounter: this.#idCounter,
      nextSeq: this.#nextSeq,
    };
  }

  /**
   * The plan as `toJSON()` would give it, without copying any step: the steps are the live ones
   * (see `readStep`), typed read-only, and they change as the plan does. For a caller that copies
   * what it keeps anyway (e.g. a redactor making its own copy); take `toJSON()` for a snapshot.
   */
  readSnapshot(): DeepReadonly<PlanSnapshot> {
    return {
      schemaVersion: PLAN_SNAPSHOT_VERSION,
      id: this.id,
      title: this.#title,
      goal: this.#goal,
      steps: this.#order.map((node) => node.step),
      idCounter: this.#idCounter,
      nextSeq: this.#nextSeq,
    };
  }

  /** Calls `listener` with every event after it is applied. Returns the unsubscribe function. */
  subscribe(listener: PlanListener): () => void {
    this.#listeners.add(listener);
    this.#listenerList = undefined;
    return () => {
      if (this.#listeners.delete(listener)) this.#listenerList = undefined;
    };
  }

  // ─── mutations ───────────────────────────────────────────────────────────────────────────

  /**
   * Changes a step's status and/or its notes, output, files, claims. Only legal transitions
   * (`stepTransitions`); `in_progress` also needs every dependency `completed`. Marking a step
   * `blocked` also blocks every downstream step that is not finished, each as its own event with
   * notes `[FAIL]: upstream step <id> is blocked`. Returns a copy of the updated step.
   * Throws `PlanError` (`unknown-step`, `illegal-transition`, `invalid-argument`).
   */
  markStep(id: StepId, options: MarkStepOptions): Step {
    return copyStep(this.#markStep(id, options).step);
  }

  /** `markStep` without the copy: returns the step's node. */
  #markStep(id: StepId, options: MarkStepOptions): StepNode {
    const node = this.#node(id);
    if (typeof options !== 'object' || options === null) {
      throw invalidArgument(`markStep("${id}") needs an options object.`);
    }
    const { status, notes, output, files, claims } = options;
    if (status !== undefined && !STATUSES.has(status)) {
      throw invalidArgument(`Unknown step status "${String(status)}".`, { status });
    }
    if (notes !== undefined && typeof notes !== 'string') throw invalidArgument('`notes` must be a string.');
    if (output !== undefined && typeof output !== 'string')
      throw invalidArgument('`output` must be a string.');
    if (files !== undefined && (!Array.isArray(files) || files.some((file) => typeof file !== 'string'))) {
      throw invalidArgument('`files` must be an array of strings.');
    }
    const event: Payload<'step-marked'> = { type: 'step-marked', stepId: id };
    const previous = node.step.status;
    const changes = status !== undefined && status !== previous;
    if (changes) {
      event.status = status;
      event.previousStatus = previous;
    }
    if (notes !== undefined) event.notes = notes;
    if (output !== undefined) event.output = output;
    if (files !== undefined) event.files = [...files];
    if (claims !== undefined) {
      const parsed = stepClaimsSchema.safeParse(claims);
      if (!parsed.success) throw refusedByZod('invalid-argument', '`claims` are invalid', parsed.error);
      event.claims = parsed.data;
    }
    this.#check(event);
    const events: EventPayload[] = [event];
    if (changes && status === 'blocked') {
      for (const down of this.#reach([node], 'down')) {
        if (down === node || isTerminalStatus(down.step.status)) continue;
        events.push({
          type: 'step-marked',
          stepId: down.step.id,
          status: 'blocked',
          previousStatus: down.step.status,
          notes: `[FAIL]: upstream step ${id} is blocked`,
        });
      }
    }
    this.#commit(events);
    return node;
  }

  static {
    markStepWithoutCopy = (plan, id, options) => {
      plan.#markStep(id, options);
    };
  }

  /**
   * Writes a tool call to the step's ledger as `pending`, before the tool runs. Without a
   * `callId` one is generated (`auto-N`, `generatedId: true`). Returns the record. Throws
   * `PlanError` (`unknown-step`, `duplicate-tool-call`, `illegal-transition` on a finished step,
   * `invalid-argument`).
   */
  recordToolCall(stepId: StepId, input: ToolCallInput): ToolCallRecord {
    const node = this.#node(stepId);
    if (typeof input !== 'object' || input === null || typeof input.tool !== 'string' || input.tool === '') {
      throw invalidArgument('recordToolCall needs `{ tool, args }` with a non-empty tool name.');
    }
    if (input.callId !== undefined && (typeof input.callId !== 'string' || input.callId === '')) {
      throw invalidArgument('`callId` must be a non-empty string when given.');
    }
    let callId = input.callId;
    const generatedId = callId === undefined;
    if (callId === undefined) {
      let n = node.step.ledger.length + 1;
      while (node.calls.has(`auto-${n}`)) n++;
      callId = `auto-${n}`;
    }
    const event: EventPayload = {
      type: 'tool-call-started',
      stepId,
      callId,
      generatedId,
      tool: input.tool,
      // `args` is a required key of the ledger and event schemas: no arguments = `{}`.
      args: input.args === undefined ? {} : input.args,
    };
    this.#check(event);
    this.#commit([event]);
    return { ...node.calls.get(callId)! };
  }

  /**
   * Records a tool's answer. Pairs by `callId`; without one, with the oldest `pending`
   * generated-id call of the same tool (FIFO). Results and errors are stored as strings.
   * Returns the updated record. Throws `PlanError` (`unknown-step`, `unknown-tool-call` when no
   * pending call matches, `invalid-argument`).
   */
  recordToolResult(stepId: StepId, input: ToolResultInput): ToolCallRecord {
    const node = this.#node(stepId);
    if (typeof input !== 'object' || input === null || typeof input.tool !== 'string') {
      throw invalidArgument('recordToolResult needs `{ tool, status }`.');
    }
    if (input.status !== 'success' && input.status !== 'error') {
      throw invalidArgument(
        `Tool result status must be "success" or "error", got "${String(input.status)}".`,
      );
    }
    let callId = input.callId;
    if (callId === undefined) {
      callId = node.step.ledger.find(
        (call) => call.generatedId && call.status === 'pending' && call.tool === input.tool,
      )?.callId;
      if (callId === undefined) {
        throw new PlanError({
          code: 'unknown-tool-call',
          message: `Step "${stepId}" has no pending call of "${input.tool}" without a call id to pair this result with.`,
          details: { stepId, tool: input.tool },
        });
      }
    } else {
      const call = node.calls.get(callId);
      if (call !== undefined && call.tool !== input.tool) {
        throw new PlanError({
          code: 'unknown-tool-call',
          message: `Call "${callId}" of step "${stepId}" is a "${call.tool}" call, not "${input.tool}".`,
          details: { stepId, callId, tool: input.tool, recordedTool: call.tool },
        });
      }
    }
    const event: Payload<'tool-call-finished'> = {
      type: 'tool-call-finished',
      stepId,
      callId,
      status: input.status,
    };
    if (input.result !== undefined) event.result = toText(input.result);
    if (input.error !== undefined) event.error = toText(input.error);
    this.#check(event);
    this.#commit([event]);
    return { ...node.calls.get(callId)! };
  }

  /**
   * Ends a step's tool use: emits `step-finalized` and returns (copies of) the calls still
   * `pending`, i.e. calls that never got an answer. Throws `PlanError('unknown-step')`.
   */
  finalizeStep(id: StepId): ToolCallRecord[] {
    const node = this.#node(id);
    const pending = node.step.ledger.filter((call) => call.status === 'pending');
    this.#commit([
      { type: 'step-finalized', stepId: id, pendingCallIds: pending.map((call) => call.callId) },
    ]);
    return pending.map((call) => ({ ...call }));
  }

  /**
   * Stores the verifier's verdict and findings on the step (emits `step-verified`). Returns
   * the stored record. Throws `PlanError` (`unknown-step`, `invalid-argument`).
   */
  recordVerification(id: StepId, record: VerificationRecordInput): VerificationRecord {
    const node = this.#node(id);
    const parsed = parseVerificationRecord(record);
    if (!parsed.success) {
      throw refusedByZod('invalid-argument', 'The verification record is invalid', parsed.error);
    }
    this.#commit([{ type: 'step-verified', stepId: id, verification: parsed.data }]);
    return copyVerification(node.step.verification!);
  }

  /**
   * Sends a step back to `not_started` to run again from scratch, emitting `step-reset`.
   * Allowed from exactly the two statuses a step can leave for `not_started`: `in_progress`
   * (e.g. a run was interrupted and the step is re-run on resume) and `failed` (retry in place
   * instead of a redesign). The step keeps its id, description, dependencies, `replanAttempts`
   * and `replaces`; its notes, output, files, claims, ledger and verification are archived as
   * one entry of `previousAttempts` (with the reason, the status it had and the time) and start
   * empty, so a re-run is verified on its own calls only. Its dependencies are completed (it had
   * started), so it is ready at once.
   *
   * `markStep(id, { status: 'not_started' })` is the other way back: it keeps the ledger and notes.
   *
   * Returns a copy of the reset step. Throws `PlanError` (`unknown-step`, `illegal-transition`
   * from any other status, `invalid-argument` without a non-empty `reason`); then nothing changed.
   */
  resetStep(id: StepId, options: ResetStepOptions): Step {
    const node = this.#node(id);
    if (
      typeof options !== 'object' ||
      options === null ||
      typeof options.reason !== 'string' ||
      options.reason.trim() === ''
    ) {
      throw invalidArgument(`resetStep("${id}") needs \`{ reason }\` with a non-empty reason.`, {
        stepId: id,
      });
    }
    const from = node.step.status;
    if (from !== 'in_progress' && from !== 'failed') throw resetRefused(id, from);
    const event: EventPayload = {
      type: 'step-reset',
      stepId: id,
      previousStatus: from,
      reason: options.reason,
    };
    this.#check(event);
    this.#commit([event]);
    return copyStep(node.step);
  }

  /**
   * Inserts new steps without removing any, emitting `steps-added`: e.g. follow-up or repair
   * steps after the finished ones. `draft` has the shape of a redesign (`SubgraphDraft`): a
   * dependency is a number (index into `draft.steps`), the id of a step of the plan, or the id
   * another new step asks for. Omitted ids are generated (`s<N>`, from the counter that never
   * goes back); an id a step of the plan already has is refused (`duplicate-step`) rather than
   * renamed, so the caller's ids stay the ids it gets. New steps are `not_started` with
   * `replanAttempts: 0`; no existing step depends on them, so they cannot close a cycle through
   * the plan. They go at display position `insertAt` (default: the end).
   *
   * Validation is the one `replaceSubgraph` uses. Returns the new steps and the position. Throws
   * `PlanError` (`invalid-argument`, `duplicate-step`, `dangling-dependency`, `cycle`); then
   * nothing changed.
   */
  addSteps(draft: SubgraphDraft, options: AddStepsOptions = {}): AddStepsResult {
    if (
      typeof draft !== 'object' ||
      draft === null ||
      !Array.isArray(draft.steps) ||
      draft.steps.length === 0
    ) {
      throw invalidArgument('addSteps needs `{ steps: [...] }` with at least one step.');
    }
    if (typeof options !== 'object' || options === null) {
      throw invalidArgument('addSteps options must be an object (`{ insertAt? }`).');
    }
    const insertAt = options.insertAt ?? this.#order.length;
    if (!Number.isInteger(insertAt) || insertAt < 0 || insertAt > this.#order.length) {
      throw invalidArgument(
        `insertAt must be an integer from 0 to ${this.#order.length} (the plan's size), got ${String(options.insertAt)}.`,
        { insertAt: options.insertAt },
      );
    }
    const added = this.#resolveDraft(draft, {
      removed: new Set(),
      takenIds: 'refuse',
      stepLabel: 'New step',
      wholeLabel: 'The addition',
      replanAttempts: 0,
      replaces: [],
    });
    const event: EventPayload = { type: 'steps-added', added, insertAt };
    this.#check(event);
    this.#commit([event]);
    return { added: added.map((step) => this.step(step.id)), insertAt };
  }

  /**
   * Subgraph surgery: removes `ids` and everything downstream of them, and inserts
   * `draft.steps` at the display position of the first removed step, atomically.
   *
   * A draft step's `dependsOn` entries are a number (index into `draft.steps`), the id of a
   * preserved step, or the id another draft step asked for. A draft id is kept when it is free
   * (not the id of any step still in the plan or removed now); otherwise an id `s<N>` is
   * generated from a counter that never goes back. Every new step gets
   * `replanAttempts = max(removed steps' replanAttempts) + 1` and `replaces` = the failed `ids`
   * (deduplicated; the whole removed set is the result's `removed` and the event's `removed`).
   * Linear in the removed and new steps.
   *
   * Throws `PlanError` (`unknown-step`, `completed-step-touched`, `empty-redesign`,
   * `duplicate-step`, `dangling-dependency`, `cycle`, `invalid-argument`); then nothing changed.
   */
  replaceSubgraph(ids: StepId | readonly StepId[], draft: SubgraphDraft): ReplaceSubgraphResult {
    const failed = unique(typeof ids === 'string' ? [ids] : [...ids]);
    if (failed.length === 0) {
      throw invalidArgument('replaceSubgraph needs at least one step id to replace.');
    }
    const starts = this.#nodesOf(failed);
    const removedNodes = this.#reach(starts, 'down');
    const completed = removedNodes.filter((node) => node.step.status === 'completed').map((n) => n.step.id);
    if (completed.length > 0) {
      throw new PlanError({
        code: 'completed-step-touched',
        message: `Replacing ${failed.join(', ')} would remove completed step(s) ${completed.join(', ')}; completed steps are never replaced.`,
        details: { stepIds: completed },
      });
    }
    if (
      typeof draft !== 'object' ||
      draft === null ||
      !Array.isArray(draft.steps) ||
      draft.steps.length === 0
    ) {
      throw new PlanError({
        code: 'empty-redesign',
        message: 'The redesign has no steps; give at least one step, or block the failed steps instead.',
        details: { stepIds: failed },
      });
    }
    const removed = removedNodes.map((node) => node.step.id);
    let replanAttempts = 0;
    let insertAt = Number.POSITIVE_INFINITY;
    for (const node of removedNodes) {
      replanAttempts = Math.max(replanAttempts, node.step.replanAttempts);
      insertAt = Math.min(insertAt, node.pos);
    }
    // `replaces` names the failed steps (the cause), not every removed step: the removed set is
    // the event's `removed`, once. A copy of it on each new step was quadratic in the subgraph.
    const added = this.#resolveDraft(draft, {
      removed: new Set(removed),
      takenIds: 'rename',
      stepLabel: 'Redesigned step',
      wholeLabel: 'The redesign',
      replanAttempts: replanAttempts + 1,
      replaces: failed,
    });
    // No `#check` here: the walk above (downstream closure, nothing completed) and `#resolveDraft`
    // (fresh ids, resolved and unique dependencies, acyclic, non-empty) establish everything
    // `#checkReplan` would verify again, at a cost linear in the redesign. `Plan.replay` checks
    // the event in full, and the property tests replay every surgery.
    const event: EventPayload = { type: 'replan-applied', failed, removed, added, insertAt };
    this.#commit([event]);
    return { removed: [...removed], added: added.map(copyStep) };
  }

  /**
   * The validation `replaceSubgraph` and `addSteps` share, and the new steps it yields: parses the
   * draft (zod), gives every step its final id and resolves its dependencies to absolute ids,
   * refusing a draft id used twice, a dependency on a missing or removed step or an out-of-range
   * index, and cycles among the new steps (steps of the plan never depend on new ones, so no
   * cycle can pass through them). Returns fresh `not_started` steps; reads the plan, changes
   * nothing.
   */
  #resolveDraft(draft: SubgraphDraft, options: ResolveDraftOptions): Step[] {
    const { removed, stepLabel, wholeLabel } = options;
    const parsed = parseSubgraphDraft(draft);
    if (!parsed.success) throw refusedByZod('invalid-argument', `${wholeLabel} is invalid`, parsed.error);
    const drafts: ParsedSubgraphDraft['steps'] = parsed.data.steps;

    // Ids: a draft id twice is an error; a draft id in use (or removed now) is renamed or refused.
    const asked = new Map<string, number>();
    for (const [index, step] of drafts.entries()) {
      if (step.id === undefined) continue;
      if (asked.has(step.id)) {
        throw new PlanError({
          code: 'duplicate-step',
          message: `${wholeLabel} uses the id "${step.id}" for steps ${asked.get(step.id)} and ${index}.`,
          details: { stepId: step.id, indexes: [asked.get(step.id), index] },
        });
      }
      if (options.takenIds === 'refuse' && this.#nodes.has(step.id)) {
        throw new PlanError({
          code: 'duplicate-step',
          message: `${stepLabel} ${index} asks for the id "${step.id}", which a step of plan "${this.id}" already has; choose another id or omit it.`,
          details: { stepId: step.id, index },
        });
      }
      asked.set(step.id, index);
    }
    // Generated ids come from a counter that only goes up, so they never meet each other; only
    // the plan's ids and the ids drafts ask for need checking: linear in the draft.
    const nodes = this.#nodes;
    const finalIds: string[] = new Array(drafts.length);
    let counter = this.#idCounter;
    for (let index = 0; index < drafts.length; index++) {
      const askedId = drafts[index]!.id;
      let id: string;
      if (askedId !== undefined && !nodes.has(askedId)) id = askedId;
      else {
        do id = `s${++counter}`;
        while (nodes.has(id) || asked.has(id));
      }
      finalIds[index] = id;
    }
    const keptAsked = new Map<string, number>();
    for (const [id, index] of asked) if (finalIds[index] === id) keptAsked.set(id, index);

    // Dependencies: relative index, a step of the plan that stays, or a kept draft id. Edges
    // among the new steps are kept as indexes for the cycle check.
    // Plain loops, no closure per step: this runs once per new step of a 2,000-step redesign.
    const edges: number[][] = new Array(drafts.length);
    const steps: Step[] = new Array(drafts.length);
    for (let index = 0; index < drafts.length; index++) {
      const step = drafts[index]!;
      const dependsOn: StepId[] = [];
      const inner: number[] = [];
      const seen = step.dependsOn.length > 1 ? new Set<StepId>() : undefined;
      for (const dep of step.dependsOn) {
        let id: StepId;
        let draftIndex: number | undefined;
        if (typeof dep === 'number') {
          if (finalIds[dep] === undefined) {
            throw new PlanError({
              code: 'dangling-dependency',
              message: `${stepLabel} ${index} depends on step index ${dep}, but there are ${drafts.length} new steps.`,
              details: { index, dependency: dep },
            });
          }
          id = finalIds[dep]!;
          draftIndex = dep;
        } else if (nodes.has(dep) && !removed.has(dep)) {
          id = dep;
        } else {
          draftIndex = keptAsked.get(dep);
          if (draftIndex === undefined) {
            throw new PlanError({
              code: 'dangling-dependency',
              message: removed.has(dep)
                ? `${stepLabel} ${index} depends on "${dep}", which this replan removes; depend on a new step by its index instead.`
                : `${stepLabel} ${index} depends on "${dep}", which is neither a ${removed.size > 0 ? 'preserved step' : 'step of the plan'} nor one of the new steps.`,
              details: { index, dependency: dep },
            });
          }
          id = finalIds[draftIndex]!;
        }
        if (seen !== undefined) {
          if (seen.has(id)) continue;
          seen.add(id);
        }
        dependsOn.push(id);
        if (draftIndex !== undefined) inner.push(draftIndex);
      }
      edges[index] = inner;
      // Built field by field, one shape: spreading 2,000 draft objects was V8's slow path.
      const resolved: Step = {
        id: finalIds[index]!,
        description: step.description,
        dependsOn,
        requiredTools: [...step.requiredTools],
        successCriteria: [...step.successCriteria],
        protocols: [...step.protocols],
        status: 'not_started',
        notes: '',
        files: [],
        ledger: [],
        replanAttempts: options.replanAttempts,
        replaces: [...options.replaces],
        previousAttempts: [],
      };
      if (step.title !== undefined) resolved.title = step.title;
      steps[index] = resolved;
    }
    const cycle = findIndexCycle(edges);
    if (cycle !== undefined) {
      const ids = cycle.map((at) => finalIds[at]!);
      throw new PlanError({
        code: 'cycle',
        message: `${wholeLabel} forms a dependency cycle: ${ids.join(' → ')}.`,
        details: { cycle: ids },
      });
    }
    return steps;
  }

  // ─── the event machinery ─────────────────────────────────────────────────────────────────

  #node(id: StepId): StepNode {
    const node = this.#nodes.get(id);
    if (node === undefined) {
      throw new PlanError({
        code: 'unknown-step',
        message: `Plan "${this.id}" has no step "${String(id)}".`,
        details: { stepId: id },
      });
    }
    return node;
  }

  #nodesOf(ids: StepId | readonly StepId[]): StepNode[] {
    if (typeof ids === 'string') return [this.#node(ids)];
    return unique(ids).map((id) => this.#node(id));
  }

  /**
   * Everything reachable from `starts` along dependents (`down`) or dependencies (`up`), in
   * topological order along that direction (Kahn's algorithm restricted to the reached part),
   * starts included. Linear in the nodes and edges reached: marks live on the nodes.
   */
  #reach(starts: readonly StepNode[], direction: 'down' | 'up'): StepNode[] {
    const walk = ++this.#walk;
    const next = direction === 'down' ? (node: StepNode) => node.dependents : (node: StepNode) => node.deps;
    const seen: StepNode[] = [];
    for (const node of starts) {
      if (node.mark === walk) continue;
      node.mark = walk;
      node.scratch = 0;
      seen.push(node);
    }
    const sources = seen.slice();
    for (let index = 0; index < seen.length; index++) {
      for (const to of next(seen[index]!)) {
        if (to.mark !== walk) {
          to.mark = walk;
          to.scratch = 0;
          seen.push(to);
        }
      }
    }
    for (const node of seen) for (const to of next(node)) to.scratch++;
    // Every reached node that is not a start has an incoming edge, so the sources are starts.
    const order = sources.filter((node) => node.scratch === 0);
    for (let head = 0; head < order.length; head++) {
      for (const to of next(order[head]!)) if (--to.scratch === 0) order.push(to);
    }
    return order;
  }

  /** Stamps, applies, logs and publishes events. Callers have checked them. */
  #commit(payloads: readonly EventPayload[]): void {
    const at = this.#clock();
    const start = this.#events.length;
    for (const payload of payloads) {
      // Payloads are fresh objects built by the mutation: stamping them in place avoids a copy.
      const event = payload as PlanEvent;
      event.planId = this.id;
      event.seq = this.#nextSeq;
      event.at = at;
      this.#apply(event);
      this.#events.push(event);
      this.#nextSeq++;
    }
    if (this.#listeners.size === 0) return;
    for (let index = start; index < this.#events.length; index++) {
      const event = this.#events[index]!;
      this.#listenerList ??= [...this.#listeners];
      for (const listener of this.#listenerList) {
        try {
          listener(event, this);
        } catch (error) {
          // A listener's failure must not undo or interrupt a mutation that already happened.
          queueMicrotask(() => {
            throw error;
          });
        }
      }
    }
  }

  /** Checks that an event fits the current state; throws the specific `PlanError`. */
  #check(event: EventPayload): void {
    switch (event.type) {
      case 'plan-created': {
        if (this.#nextSeq !== 0 || this.#nodes.size > 0) {
          throw new PlanError({ code: 'invalid-event', message: 'plan-created must be the first event.' });
        }
        validateGraph(event.steps);
        for (const step of event.steps) {
          if (unique(step.dependsOn).length !== step.dependsOn.length) {
            throw invalidArgument(`Step "${step.id}" lists a dependency twice.`);
          }
        }
        return;
      }
      case 'step-marked': {
        const node = this.#node(event.stepId);
        const from = node.step.status;
        if (event.previousStatus !== undefined && event.previousStatus !== from) {
          throw new PlanError({
            code: 'illegal-transition',
            message: `Step "${event.stepId}" is ${from}, not ${event.previousStatus}.`,
            details: { stepId: event.stepId, status: from },
          });
        }
        const to = event.status;
        if (to === undefined || to === from) return;
        if (!isLegalTransition(from, to)) {
          throw new PlanError({
            code: 'illegal-transition',
            message: `Step "${event.stepId}" cannot go from ${from} to ${to}.`,
            details: { stepId: event.stepId, from, to },
          });
        }
        if (to === 'in_progress' && node.unmet > 0) {
          const waitingOn = node.deps
            .filter((dep) => dep.step.status !== 'completed')
            .map((dep) => dep.step.id);
          throw new PlanError({
            code: 'illegal-transition',
            message: `Step "${event.stepId}" cannot start: dependencies ${waitingOn.join(', ')} are not completed.`,
            details: { stepId: event.stepId, from, to, waitingOn },
          });
        }
        return;
      }
      case 'tool-call-started': {
        const node = this.#node(event.stepId);
        if (node.calls.has(event.callId)) {
          throw new PlanError({
            code: 'duplicate-tool-call',
            message: `Step "${event.stepId}" already has a call with id "${event.callId}".`,
            details: { stepId: event.stepId, callId: event.callId },
          });
        }
        if (isTerminalStatus(node.step.status)) {
          throw new PlanError({
            code: 'illegal-transition',
            message: `Step "${event.stepId}" is ${node.step.status}; it cannot make tool calls any more.`,
            details: { stepId: event.stepId, status: node.step.status },
          });
        }
        return;
      }
      case 'tool-call-finished': {
        const node = this.#node(event.stepId);
        const call = node.calls.get(event.callId);
        if (call === undefined || call.status !== 'pending') {
          throw new PlanError({
            code: 'unknown-tool-call',
            message:
              call === undefined
                ? `Step "${event.stepId}" has no call "${event.callId}".`
                : `Call "${event.callId}" of step "${event.stepId}" already has a result (${call.status}).`,
            details: { stepId: event.stepId, callId: event.callId },
          });
        }
        return;
      }
      case 'step-finalized':
      case 'step-verified': {
        this.#node(event.stepId);
        return;
      }
      case 'replan-applied':
        this.#checkReplan(event);
        return;
      case 'steps-added':
        this.#checkAdded(event.added, new Set(), event.insertAt);
        return;
      case 'step-reset': {
        const from = this.#node(event.stepId).step.status;
        if (from !== 'in_progress' && from !== 'failed') throw resetRefused(event.stepId, from);
        if (from !== event.previousStatus) {
          throw new PlanError({
            code: 'illegal-transition',
            message: `Step "${event.stepId}" is ${from}, not ${event.previousStatus}.`,
            details: { stepId: event.stepId, status: from },
          });
        }
        return;
      }
    }
  }

  #checkReplan(event: Payload<'replan-applied'>): void {
    const removed = new Set<StepNode>();
    for (const id of event.removed) {
      const node = this.#node(id);
      if (node.step.status === 'completed') {
        throw new PlanError({
          code: 'completed-step-touched',
          message: `Step "${id}" is completed and cannot be removed.`,
          details: { stepIds: [id] },
        });
      }
      removed.add(node);
    }
    for (const node of removed) {
      for (const down of node.dependents) {
        if (!removed.has(down)) {
          throw new PlanError({
            code: 'dangling-dependency',
            message: `Step "${down.step.id}" depends on removed step "${node.step.id}" but is not removed.`,
            details: { stepId: down.step.id, dependency: node.step.id },
          });
        }
      }
    }
    for (const id of event.failed) {
      if (!removed.has(this.#node(id))) {
        throw invalidArgument(`Failed step "${id}" is not among the removed steps.`);
      }
    }
    if (event.added.length === 0) {
      throw new PlanError({ code: 'empty-redesign', message: 'A replan must add at least one step.' });
    }
    this.#checkAdded(event.added, removed, event.insertAt);
  }

  /**
   * Checks steps an event inserts (`replan-applied`, `steps-added`) while `removed` leave: fresh
   * ids, `not_started` with nothing recorded, dependencies on staying or new steps only,
   * acyclic, each dependency once, `insertAt` within the plan.
   */
  #checkAdded(added: readonly Step[], removed: ReadonlySet<StepNode>, insertAt: number): void {
    for (const step of added) {
      if (this.#nodes.has(step.id)) {
        throw new PlanError({
          code: 'duplicate-step',
          message: `Added step id "${step.id}" is already used.`,
          details: { stepId: step.id },
        });
      }
      if (step.status !== 'not_started') {
        throw invalidArgument(`Added step "${step.id}" must be not_started, not ${step.status}.`);
      }
      if (step.ledger.length > 0 || step.previousAttempts.length > 0) {
        throw invalidArgument(`Added step "${step.id}" must start without tool calls or earlier attempts.`);
      }
    }
    validateGraph(added, {
      isExternal: (id) => {
        const node = this.#nodes.get(id);
        return node !== undefined && !removed.has(node);
      },
    });
    for (const step of added) {
      if (unique(step.dependsOn).length !== step.dependsOn.length) {
        throw invalidArgument(`Step "${step.id}" lists a dependency twice.`);
      }
    }
    if (insertAt > this.#order.length - removed.size) {
      throw invalidArgument(`insertAt ${insertAt} is past the end of the plan.`);
    }
  }

  /** The one place state changes. Events are checked before they get here. */
  #apply(event: PlanEvent): void {
    switch (event.type) {
      case 'plan-created':
        this.#title = event.title;
        this.#goal = event.goal;
        this.#insertSteps(event.steps.map(draftToStep), 0);
        return;
      case 'step-marked': {
        const node = this.#nodes.get(event.stepId)!;
        if (event.status !== undefined && event.status !== node.step.status)
          this.#setStatus(node, event.status);
        if (event.notes !== undefined) node.step.notes = event.notes;
        if (event.output !== undefined) node.step.output = event.output;
        if (event.files !== undefined) node.step.files = [...event.files];
        if (event.claims !== undefined) node.step.claims = copyClaims(event.claims);
        return;
      }
      case 'tool-call-started': {
        const node = this.#nodes.get(event.stepId)!;
        const call: ToolCallRecord = {
          callId: event.callId,
          generatedId: event.generatedId,
          tool: event.tool,
          args: event.args,
          status: 'pending',
          calledAt: event.at,
        };
        node.step.ledger.push(call);
        callsOf(node).set(call.callId, call);
        return;
      }
      case 'tool-call-finished': {
        const call = this.#nodes.get(event.stepId)!.calls.get(event.callId)!;
        call.status = event.status;
        if (event.result !== undefined) call.result = event.result;
        if (event.error !== undefined) call.error = event.error;
        call.respondedAt = event.at;
        return;
      }
      case 'step-finalized':
        return;
      case 'step-verified':
        this.#nodes.get(event.stepId)!.step.verification = copyVerification(event.verification);
        return;
      case 'replan-applied': {
        // Removed nodes carry this walk's mark: cheaper than a Set of 2,000 nodes to test against.
        const gone = ++this.#walk;
        const removed = event.removed.map((id) => this.#nodes.get(id)!);
        for (const node of removed) {
          if (node.mark === gone) continue;
          node.mark = gone;
          this.#ready.delete(node);
          this.#counts[node.step.status]--;
          this.#nodes.delete(node.step.id);
        }
        // Each kept dependency loses its removed dependents once (the scratch mark dedupes).
        const touched = ++this.#walk;
        for (const node of removed) {
          for (const dep of node.deps) {
            if (dep.mark === gone || dep.mark === touched) continue;
            dep.mark = touched;
            dep.dependents = dep.dependents.filter((down) => down.mark !== gone);
          }
        }
        // Removed nodes all sit at or after `insertAt`: one pass drops them and inserts the new.
        this.#insertSteps(event.added.map(copyStep), event.insertAt, gone);
        return;
      }
      case 'steps-added':
        this.#insertSteps(event.added.map(copyStep), event.insertAt);
        return;
      case 'step-reset': {
        const node = this.#nodes.get(event.stepId)!;
        // The attempt takes over the step's records; the step gets fresh, empty ones.
        const { notes, output, files, claims, ledger, verification, ...kept } = node.step;
        const attempt: StepAttempt = {
          status: event.previousStatus,
          reason: event.reason,
          resetAt: event.at,
          notes,
          files,
          ledger,
        };
        if (output !== undefined) attempt.output = output;
        if (claims !== undefined) attempt.claims = claims;
        if (verification !== undefined) attempt.verification = verification;
        node.step = {
          ...kept,
          notes: '',
          files: [],
          ledger: [],
          previousAttempts: [...kept.previousAttempts, attempt],
        };
        node.calls = NO_CALLS as Map<string, ToolCallRecord>;
        this.#setStatus(node, 'not_started');
        return;
      }
    }
  }

  /**
   * Adds steps (owned by the plan from now on) at a display position and wires their edges.
   * With `gone`, nodes carrying that mark (removed in the same event, all at or after `at`) leave
   * the display order in the same pass.
   */
  #insertSteps(steps: readonly Step[], at: number, gone?: number): void {
    const nodes = steps.map(
      (step): StepNode => ({
        step,
        deps: [],
        dependents: [],
        unmet: 0,
        pos: 0,
        calls: NO_CALLS as Map<string, ToolCallRecord>,
        mark: 0,
        scratch: 0,
      }),
    );
    for (const node of nodes) {
      this.#nodes.set(node.step.id, node);
      for (const call of node.step.ledger) callsOf(node).set(call.callId, call);
      const generated = generatedIdNumber(node.step.id);
      if (generated > this.#idCounter) this.#idCounter = generated;
    }
    for (const node of nodes) {
      // Sized once (`map`), not grown by `push` from empty: 2,000 new steps are 2,000 arrays.
      node.deps = node.step.dependsOn.map((id) => this.#nodes.get(id)!);
      for (const dep of node.deps) {
        dep.dependents.push(node);
        if (dep.step.status !== 'completed') node.unmet++;
      }
      this.#counts[node.step.status]++;
      if (node.step.status === 'not_started' && node.unmet === 0) this.#ready.add(node);
    }
    const order = this.#order;
    if (order.length === 0) {
      for (const [index, node] of nodes.entries()) node.pos = index;
      this.#order = nodes;
      return;
    }
    // Built by push (no spread of the whole plan), renumbering from `at` only.
    const next = order.slice(0, at);
    for (const node of nodes) {
      node.pos = next.length;
      next.push(node);
    }
    for (let index = at; index < order.length; index++) {
      const node = order[index]!;
      if (gone !== undefined && node.mark === gone) continue;
      node.pos = next.length;
      next.push(node);
    }
    this.#order = next;
  }

  #setStatus(node: StepNode, next: StepStatus): void {
    const previous = node.step.status;
    this.#counts[previous]--;
    this.#counts[next]++;
    node.step.status = next;
    if (previous === 'not_started') this.#ready.delete(node);
    if (next === 'not_started' && node.unmet === 0) this.#ready.add(node);
    if (next === 'completed') {
      for (const down of node.dependents) {
        down.unmet--;
        if (down.unmet === 0 && down.step.status === 'not_started') this.#ready.add(down);
      }
    }
  }
}
