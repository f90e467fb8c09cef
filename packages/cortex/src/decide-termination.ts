import type { StopReason } from './stop-reason';

/** A check result as the decision tree sees it (the verifier's `Finding` fits). */
export interface FindingLike {
  check: string;
  priority: 'P0' | 'P1' | 'P2';
  status: 'pass' | 'fail' | 'warn' | 'skip' | 'error';
  message: string;
}

/** The class of a set of goal-level findings (failed, inconclusive, or clean). */
export type GoalAssessment = 'all-pass' | 'p0-failed' | 'p1-failed' | 'warnings-only';

/**
 * Classifies findings: any P0 `fail` → `p0-failed`; else any P1 `fail`, or a P0/P1 check that
 * could not run (`error`: "can't check" is never acceptance) → `p1-failed`; else any P2 `fail`,
 * any `warn`, or a P2 `error` → `warnings-only`; else `all-pass` (`skip` counts as neither).
 */
export function assessFindings(findings: readonly FindingLike[]): GoalAssessment {
  let p1 = false;
  let warnings = false;
  for (const finding of findings) {
    if (finding.status === 'fail') {
      if (finding.priority === 'P0') return 'p0-failed';
      if (finding.priority === 'P1') p1 = true;
      else warnings = true;
    } else if (finding.status === 'error') {
      if (finding.priority === 'P2') warnings = true;
      else p1 = true;
    } else if (finding.status === 'warn') {
      warnings = true;
    }
  }
  if (p1) return 'p1-failed';
  return warnings ? 'warnings-only' : 'all-pass';
}

/** `P1 TEST fail: …` — a finding as a stop reason quotes it, priority first. */
function describeFinding(finding: FindingLike): string {
  const status =
    finding.status === 'error' ? 'could not run' : finding.status === 'warn' ? 'warned' : 'failed';
  return `${finding.priority} ${finding.check} ${status}: ${finding.message}`;
}

/** A stall signal from {@link createStallDetector}. */
export interface StallSignal {
  stopReason: 'stalled' | 'loop-detected';
  kind: 'same-error' | 'no-progress' | 'oscillation' | 'repeated-state';
  message: string;
}

/** Input of {@link decideTermination}: the facts at the end of one iteration. */
export interface TerminationInput {
  /** Goal-level findings of this iteration (empty when goal verification is off). */
  findings: readonly FindingLike[];
  /** Iterations finished, this one included (1-based). */
  iteration: number;
  /** The current cap. */
  maxIterations: number;
  /** True once the cap was extended ×1.5 (it is extended at most once). */
  extended: boolean;
  /** True when any iteration so far improved on the best result before it. */
  progressed: boolean;
  /** Steps that ended `blocked`. */
  blockedSteps: number;
  /** Those steps and why (their last notes), for the reason text. */
  blocked?: readonly { stepId: string; reason: string }[];
  /** Steps that completed with an unverified output (own or inherited). */
  unverifiedSteps: number;
  /** Those steps and why, for the reason text. */
  unverified?: readonly { stepId: string; reason: string }[];
  /** A stall the detector saw in this iteration, if any. */
  stall?: StallSignal | undefined;
}

/** What to do after an iteration. */
export type TerminationDecision =
  | { action: 'stop'; stopReason: StopReason; assessment: GoalAssessment; reason: string }
  | {
      action: 'iterate';
      maxIterations: number;
      extended: boolean;
      assessment: GoalAssessment;
      reason: string;
    };

/**
 * The deterministic termination decision tree over the goal findings, extended with the run's other facts:
 *
 * 1. a P0 goal check failed → `failed`
 * 2. a step is blocked → `blocked` (the replanner already gave up on it)
 * 3. all goal checks pass → `completed`, or `completed-with-warnings` when some step output is
 *    unverified (the flag propagated from an upstream step)
 * 4. only P2 checks fail/warn → `completed-with-warnings`
 * 5. P1 checks fail:
 *    - a stall signal → its stop reason (`stalled` / `loop-detected`)
 *    - iterations remain → iterate
 *    - at the cap, progress made and not yet extended → extend the cap ×1.5 (rounded up) once
 *    - otherwise → `max-iterations`
 */
export function decideTermination(input: TerminationInput): TerminationDecision {
  const assessment = assessFindings(input.findings);
  const failing = input.findings
    .filter(
      (finding) => finding.status === 'fail' || (finding.status === 'error' && finding.priority !== 'P2'),
    )
    .filter((finding) => assessment !== 'p0-failed' || finding.priority === 'P0')
    .map(describeFinding);
  const warnings = input.findings
    .filter(
      (finding) =>
        finding.status === 'warn' ||
        (finding.status === 'fail' && finding.priority === 'P2') ||
        (finding.status === 'error' && finding.priority === 'P2'),
    )
    .map(describeFinding);
  const unverifiedText =
    input.unverified !== undefined && input.unverified.length > 0 ? listSteps(input.unverified) : undefined;
  const stop = (stopReason: StopReason, reason: string): TerminationDecision => ({
    action: 'stop',
    stopReason,
    assessment,
    reason,
  });
  if (assessment === 'p0-failed') return stop('failed', `P0 goal check failed: ${failing.join('; ')}`);
  if (input.blockedSteps > 0) {
    const which = listSteps(input.blocked ?? []);
    return stop('blocked', `${input.blockedSteps} step(s) blocked${which ? `: ${which}` : ''}`);
  }
  if (assessment === 'all-pass') {
    return input.unverifiedSteps > 0
      ? stop(
          'completed-with-warnings',
          `${input.unverifiedSteps} step output(s) unverified${unverifiedText ? `: ${unverifiedText}` : ''}`,
        )
      : stop('completed', 'every step completed and every goal check passed');
  }
  if (assessment === 'warnings-only')
    return stop(
      'completed-with-warnings',
      `no goal check failed, with warnings: ${warnings.join('; ')}${unverifiedText ? `; unverified steps: ${unverifiedText}` : ''}`,
    );
  if (input.stall) return stop(input.stall.stopReason, input.stall.message);
  if (input.iteration < input.maxIterations) {
    return {
      action: 'iterate',
      maxIterations: input.maxIterations,
      extended: input.extended,
      assessment,
      reason: `P1 goal checks fail (iteration ${input.iteration}/${input.maxIterations}): ${failing.join('; ')}`,
    };
  }
  if (input.progressed && !input.extended) {
    const maxIterations = Math.max(input.maxIterations + 1, Math.ceil(input.maxIterations * 1.5));
    return {
      action: 'iterate',
      maxIterations,
      extended: true,
      assessment,
      reason: `iteration cap ${input.maxIterations} reached with progress: extended once to ${maxIterations}`,
    };
  }
  return stop(
    'max-iterations',
    `${
      input.progressed
        ? `P1 goal checks still fail after the extended cap of ${input.maxIterations} iterations`
        : `P1 goal checks still fail after ${input.maxIterations} iterations without progress`
    }: ${failing.join('; ')}`,
  );
}

/** How many steps a stop reason names before "and N more". */
const MAX_LISTED_STEPS = 10;

/**
 * Steps with their reasons for a stop reason: the causes first (a step blocked only because an
 * upstream step is comes last), at most {@link MAX_LISTED_STEPS}, then how many more.
 */
function listSteps(steps: readonly { stepId: string; reason: string }[]): string {
  const upstream = (step: { reason: string }) => step.reason.startsWith('upstream step');
  const ordered = [...steps.filter((step) => !upstream(step)), ...steps.filter(upstream)];
  const named = ordered.slice(0, MAX_LISTED_STEPS).map((step) => `${step.stepId} (${step.reason})`);
  const more = ordered.length - named.length;
  return `${named.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}
