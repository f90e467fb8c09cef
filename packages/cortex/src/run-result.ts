import type { Usage } from '@closedloop/model';
import type {
  Plan,
  PlanSnapshot,
  ReadonlyStep,
  StepAttempt,
  StepId,
  StepStatus,
  ToolCallRecord,
  VerificationRecord,
} from '@closedloop/plan';
import { type ConfidenceClass, classifyConfidence, unverifiedReason } from '@closedloop/verifier/internal';
import type { FindingLike, GoalAssessment } from './decide-termination';
import type { ModelCallPurpose, RunEvent, RunEventOf } from './run-events';
import type { StopReason } from './stop-reason';

/** Tool-call ledger counts. */
export interface LedgerSummary {
  calls: number;
  success: number;
  error: number;
  pending: number;
}

/** An earlier attempt of a step that was reset to run again (`step.previousAttempts`). */
export interface AttemptReport {
  /** The status the attempt ended in when it was reset. */
  status: StepAttempt['status'];
  /** Why it was reset (e.g. `resume: interrupted …; re-run`). */
  reason: string;
  /** Epoch milliseconds of the reset. */
  resetAt: number;
  ledger: LedgerSummary;
  verdict?: VerificationRecord['verdict'];
  notes: string;
}

/** One step in the report: a step of the final plan, or one a replan replaced. */
export interface StepReport {
  id: StepId;
  title?: string;
  description: string;
  /** The final status; `replaced` for steps a replan removed after they ran. */
  status: StepStatus | 'replaced';
  /** Times the step was started (re-runs after a resume count). */
  runs: number;
  /** Redesigns behind this step (0 for a step of the first plan). */
  replanAttempts: number;
  /** The failed steps whose failure caused the redesign that created this step. */
  replaces: StepId[];
  /** Ledger counts of the current attempt (earlier, reset attempts are in `previousAttempts`). */
  ledger: LedgerSummary;
  /** Earlier attempts reset to run again, oldest first; absent when there were none. */
  previousAttempts?: AttemptReport[];
  verdict?: VerificationRecord['verdict'];
  unverified: boolean;
  /** Why its own verification was unverified: the checks that could not run, or no evidence. */
  unverifiedReason?: string;
  /** Confidence 0..1 after propagation (the minimum of its own and its dependencies'). */
  confidence?: number;
  /** The confidence band: `use` (≥ 0.7), `unverified` (0.4–0.7), `withhold` (< 0.4). */
  confidenceBand?: ConfidenceClass;
  findings: FindingLike[];
  notes: string;
  output?: string;
  /** Wall time of its runs. */
  durationMs: number;
}

/** A step whose work could not be verified, and why. */
export interface UnverifiedStepReport {
  stepId: StepId;
  status: StepReport['status'];
  reason: string;
}

/** One replanner call. */
export interface ReplanReport {
  batch: number;
  reason: 'step-failed' | 'goal-repair';
  failed: StepId[];
  action: 'redesign' | 'give-up' | 'error' | 'interrupted';
  added: StepId[];
  removed: StepId[];
  message?: string;
}

/** One loop iteration (scheduling until nothing can run, then goal verification). */
export interface IterationReport {
  iteration: number;
  assessment: GoalAssessment;
  findings: FindingLike[];
  decision: 'iterate' | 'stop';
  reason: string;
  progressed: boolean;
}

/** Usage totals. */
export interface UsageReport {
  calls: number;
  usage: Usage;
  costUsd: number;
  byPurpose: Partial<Record<ModelCallPurpose, { calls: number; usage: Usage; costUsd: number }>>;
}

/** Everything a run did, JSON-serialisable. */
export interface RunReport {
  request: string;
  steps: StepReport[];
  /** Ledger counts over every step's current attempt, replaced steps included (reset attempts are not). */
  ledger: LedgerSummary;
  /** Goal-level findings of the last goal verification. */
  findings: FindingLike[];
  /** Steps whose work could not be verified (own verdict, confidence band or upstream), and why. */
  unverified: UnverifiedStepReport[];
  /** The run's confidence: the minimum over completed steps that carry one, with its band. */
  confidence?: { value: number; band: ConfidenceClass };
  /** The last goal assessment (`undefined` when no iteration finished). */
  verdict?: GoalAssessment;
  iterations: IterationReport[];
  replans: ReplanReport[];
  approvals: {
    approvalId: string;
    stepId: StepId;
    kind: string;
    reason: string;
    approved?: boolean;
    note?: string;
  }[];
  usage: UsageReport;
  timings: {
    startedAt: number;
    finishedAt: number;
    durationMs: number;
    /** Sum of step run times. */
    stepsMs: number;
  };
  /** How many times the run was started (1 + resumes). */
  sessions: number;
  /** Why the run could not plan or crashed, when it did. */
  error?: { code?: string; message: string };
  /** A run-store failure: the run went on but its journal is incomplete. */
  journalError?: string;
}

/** What `run` and `resume` resolve with. Always JSON-serialisable. */
export interface RunResult {
  runId: string;
  stopReason: StopReason;
  /** Why, in words. */
  reason: string;
  /** The aggregated answer (or the deterministic fallback text). */
  answer: string;
  answerSource: 'model' | 'fallback' | 'step';
  /** The final plan (`null` when planning failed). */
  plan: PlanSnapshot | null;
  report: RunReport;
}

function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
}

function addInto(target: Usage, usage: Usage): void {
  target.inputTokens += usage.inputTokens;
  target.outputTokens += usage.outputTokens;
  target.totalTokens += usage.totalTokens;
  if (usage.reasoningTokens !== undefined)
    target.reasoningTokens = (target.reasoningTokens ?? 0) + usage.reasoningTokens;
  if (usage.cachedInputTokens !== undefined) {
    target.cachedInputTokens = (target.cachedInputTokens ?? 0) + usage.cachedInputTokens;
  }
}

function ledgerOf(ledger: readonly ToolCallRecord[]): LedgerSummary {
  const summary: LedgerSummary = { calls: 0, success: 0, error: 0, pending: 0 };
  for (const call of ledger) {
    summary.calls++;
    summary[call.status]++;
  }
  return summary;
}

/** Usage totals from the journal's `usage-recorded` events. */
export function usageFromEvents(history: readonly RunEvent[]): UsageReport {
  const report: UsageReport = { calls: 0, usage: emptyUsage(), costUsd: 0, byPurpose: {} };
  // Indexed, not for…of: this runs once per run, mostly in the interpreter, where each step of an
  // array iterator allocates its result object — one per event of the run.
  for (let index = 0; index < history.length; index++) {
    const event = history[index]!;
    if (event.type !== 'usage-recorded') continue;
    report.calls++;
    addInto(report.usage, event.usage);
    report.costUsd += event.costUsd;
    let bucket = report.byPurpose[event.purpose];
    if (bucket === undefined) {
      bucket = { calls: 0, usage: emptyUsage(), costUsd: 0 };
      report.byPurpose[event.purpose] = bucket;
    }
    bucket.calls++;
    addInto(bucket.usage, event.usage);
    bucket.costUsd += event.costUsd;
  }
  return report;
}

/** A step as `replan-requested` records it before the replan removes it. */
export type StepSummary = Omit<StepReport, 'status' | 'runs' | 'durationMs'>;

/**
 * Why a step's verification left it unverified — the `unverifiedReason` of its summary and
 * report — or `undefined` when it did not. Reads the findings in place (nothing is copied), so
 * the end of a run can ask it of every step without building their summaries.
 */
export function stepUnverifiedReason(
  verification: NonNullable<ReadonlyStep['verification']>,
): string | undefined {
  const findings = verification.findings;
  const own = unverifiedReason(findings);
  if (own !== undefined) return own;
  if (!verification.unverified) return undefined;
  const marks = findings.filter((finding) => finding.check === 'confidence' && finding.status !== 'pass');
  return marks.map((finding) => finding.message).join('; ') || 'marked unverified';
}

/** The summary of a step (ledger counts, verdict, findings, notes, output). */
export function summarizeStep(step: ReadonlyStep): StepSummary {
  return fillSummary({} as StepSummary, step);
}

/**
 * Sets the fields of `step`'s summary on `target`, in the summary's order, field by field (a
 * conditional spread per optional field costs an allocation and a slow copy, for every step of
 * every report).
 */
function fillSummary<T extends StepSummary>(target: T, step: ReadonlyStep): T {
  const verification = step.verification;
  target.id = step.id;
  if (step.title !== undefined) target.title = step.title;
  target.description = step.description;
  target.replanAttempts = step.replanAttempts;
  target.replaces = [...step.replaces];
  target.ledger = ledgerOf(step.ledger);
  if (step.previousAttempts.length > 0)
    target.previousAttempts = step.previousAttempts.map((attempt): AttemptReport => {
      const report = {
        status: attempt.status,
        reason: attempt.reason,
        resetAt: attempt.resetAt,
        ledger: ledgerOf(attempt.ledger),
      } as AttemptReport;
      if (attempt.verification) report.verdict = attempt.verification.verdict;
      report.notes = attempt.notes;
      return report;
    });
  if (verification !== undefined) target.verdict = verification.verdict;
  target.unverified =
    verification !== undefined && (verification.unverified || verification.verdict === 'unverified');
  if (verification !== undefined) {
    const reason = stepUnverifiedReason(verification);
    if (reason !== undefined) target.unverifiedReason = reason;
    if (verification.confidence !== undefined) {
      target.confidence = verification.confidence;
      target.confidenceBand = classifyConfidence(verification.confidence);
    }
  }
  const findings = verification?.findings ?? [];
  const copies: FindingLike[] = new Array(findings.length);
  for (let index = 0; index < findings.length; index++) copies[index] = { ...findings[index]! };
  target.findings = copies;
  target.notes = step.notes;
  if (step.output !== undefined) target.output = step.output;
  return target;
}

/** The report of a step of the plan: its summary, then its status, runs and time. */
function planStepReport(step: ReadonlyStep, runs: number, durationMs: number): StepReport {
  const report = fillSummary({} as StepReport, step);
  report.status = step.status;
  report.runs = runs;
  report.durationMs = Math.round(durationMs * 1000) / 1000;
  return report;
}

/**
 * A step summary of the history (a replaced step's, from its `replan-requested` event) with copies
 * of its arrays and objects: the report shares nothing with the run's events.
 */
function ownSummary(summary: StepSummary): StepSummary {
  const own: StepSummary = {
    ...summary,
    replaces: [...summary.replaces],
    ledger: { ...summary.ledger },
    findings: summary.findings.map((finding) => ({ ...finding })),
  };
  if (summary.previousAttempts !== undefined)
    own.previousAttempts = summary.previousAttempts.map((attempt) => ({
      ...attempt,
      ledger: { ...attempt.ledger },
    }));
  return own;
}

function stepReport(
  summary: StepSummary,
  status: StepReport['status'],
  runs: number,
  durationMs: number,
): StepReport {
  return { ...summary, status, runs, durationMs: Math.round(durationMs * 1000) / 1000 };
}

/**
 * Builds the report of a run from its journal and its final plan (steps that replans removed are
 * taken from the summaries in `replan-requested` events).
 */
export function buildRunReport(options: {
  request: string;
  history: readonly RunEvent[];
  plan: Plan | undefined;
  startedAt: number;
  finishedAt: number;
  error?: { code?: string; message: string };
  journalError?: string;
}): RunReport {
  const { history, plan } = options;
  const runs = new Map<StepId, number>();
  const durations = new Map<StepId, number>();
  const replaced = new Map<StepId, StepSummary>();
  const goals: RunEventOf<'goal-verified'>[] = [];
  const iterationEvents: RunEventOf<'iteration-finished'>[] = [];
  const requested: RunEventOf<'replan-requested'>[] = [];
  const finishedReplans: RunEventOf<'replan-finished'>[] = [];
  const approvalEvents: RunEventOf<'approval-requested'>[] = [];
  const resolutions = new Map<string, RunEventOf<'approval-resolved'>>();
  let sessions = 0;
  // One indexed pass for everything the report reads from the history (see usageFromEvents: no
  // iterator result per event), not a filter of the whole history per kind of event.
  for (let index = 0; index < history.length; index++) {
    const event = history[index]!;
    switch (event.type) {
      case 'step-started':
        runs.set(event.stepId, (runs.get(event.stepId) ?? 0) + 1);
        break;
      case 'step-finished':
        durations.set(event.stepId, (durations.get(event.stepId) ?? 0) + event.durationMs);
        break;
      case 'replan-requested':
        for (const step of event.steps) replaced.set(step.id, step);
        requested.push(event);
        break;
      case 'replan-finished':
        finishedReplans.push(event);
        break;
      case 'goal-verified':
        goals.push(event);
        break;
      case 'iteration-finished':
        iterationEvents.push(event);
        break;
      case 'approval-requested':
        approvalEvents.push(event);
        break;
      case 'approval-resolved':
        resolutions.set(event.approvalId, event);
        break;
      case 'run-started':
        sessions++;
        break;
    }
  }
  const steps: StepReport[] = [];
  for (const [id, summary] of replaced) {
    if (plan?.has(id)) continue;
    steps.push(stepReport(ownSummary(summary), 'replaced', runs.get(id) ?? 0, durations.get(id) ?? 0));
  }
  // Read in place: the summary copies what it keeps (a copy of every step would be thrown away).
  for (const id of plan?.stepIds ?? []) {
    const step = plan!.readStep(id);
    steps.push(planStepReport(step, runs.get(step.id) ?? 0, durations.get(step.id) ?? 0));
  }
  const ledger: LedgerSummary = { calls: 0, success: 0, error: 0, pending: 0 };
  for (const step of steps) {
    ledger.calls += step.ledger.calls;
    ledger.success += step.ledger.success;
    ledger.error += step.ledger.error;
    ledger.pending += step.ledger.pending;
  }

  const iterations: IterationReport[] = iterationEvents.map((event) => {
    const goal = goals.find((candidate) => candidate.iteration === event.iteration);
    return {
      iteration: event.iteration,
      assessment: goal?.assessment ?? 'all-pass',
      findings: goal ? goal.findings.map((finding) => ({ ...finding })) : [],
      decision: event.decision,
      reason: event.reason,
      progressed: event.progressed,
    };
  });

  const replans: ReplanReport[] = requested.map((request) => {
    const done = finishedReplans.find((candidate) => candidate.batch === request.batch);
    return {
      batch: request.batch,
      reason: request.reason,
      failed: [...request.failed],
      action: done?.action ?? 'interrupted',
      added: done ? [...done.added] : [],
      removed: done ? [...done.removed] : [],
      ...(done?.message !== undefined ? { message: done.message } : {}),
    };
  });

  const approvals = approvalEvents.map((event) => {
    const resolved = resolutions.get(event.approvalId);
    return {
      approvalId: event.approvalId,
      stepId: event.stepId,
      kind: event.kind,
      reason: event.reason,
      ...(resolved ? { approved: resolved.approved } : {}),
      ...(resolved?.note !== undefined ? { note: resolved.note } : {}),
    };
  });

  const unverified: UnverifiedStepReport[] = steps
    .filter((step) => step.unverified)
    .map((step) => ({ stepId: step.id, status: step.status, reason: step.unverifiedReason ?? 'unverified' }));
  // A loop, not `Math.min(...all)`: a spread of every step's confidence is one argument per step.
  let runConfidence: number | undefined;
  for (const step of steps) {
    if (step.status !== 'completed' || step.confidence === undefined) continue;
    if (runConfidence === undefined || step.confidence < runConfidence) runConfidence = step.confidence;
  }
  const lastGoal = goals.at(-1);
  const stepsMs = [...durations.values()].reduce((sum, value) => sum + value, 0);
  return {
    request: options.request,
    steps,
    ledger,
    findings: lastGoal ? lastGoal.findings.map((finding) => ({ ...finding })) : [],
    unverified,
    ...(runConfidence !== undefined
      ? { confidence: { value: runConfidence, band: classifyConfidence(runConfidence) } }
      : {}),
    ...(lastGoal ? { verdict: lastGoal.assessment } : {}),
    iterations,
    replans,
    approvals,
    usage: usageFromEvents(history),
    timings: {
      startedAt: options.startedAt,
      finishedAt: options.finishedAt,
      durationMs: options.finishedAt - options.startedAt,
      stepsMs: Math.round(stepsMs * 1000) / 1000,
    },
    sessions: Math.max(1, sessions),
    ...(options.error ? { error: { ...options.error } } : {}),
    ...(options.journalError !== undefined ? { journalError: options.journalError } : {}),
  };
}
