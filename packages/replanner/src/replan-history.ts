import { type Plan, parseStepNotes, type ReadonlyStep, type StepId, type StepStatus } from '@closedloop/plan';

/** One step of an earlier redesign, with what became of it. */
export interface EarlierRedesignStep {
  id: StepId;
  description: string;
  /** Absolute dependencies as applied. */
  dependsOn: StepId[];
  /** Last known status (`not_started` for a step removed before it ran). */
  status: StepStatus;
  /** Why it failed (its `[FAIL]` notes and failing findings), when it did. */
  failure?: string;
}

/**
 * An earlier redesign of the same subgraph that did not reach the goal. The replanner derives
 * these from the plan's `replan-applied` events and from its own memory of the redesigns it
 * applied; a caller can add more through the `history` option (for example after restoring a
 * plan from a snapshot in another process, when both are gone).
 */
export interface EarlierRedesign {
  /** The steps whose failure caused the redesign. */
  failed: StepId[];
  /** The steps it replaced. */
  replaced: StepId[];
  /**
   * The replaced steps as they were just before (the design that failed before this one), when
   * known. Their failures say why this redesign was made.
   */
  replacedSteps?: EarlierRedesignStep[];
  /** Its steps, in the order they were inserted. */
  steps: EarlierRedesignStep[];
}

const maxFailureChars = 400;

/** `[FAIL]` notes plus failing findings, on one line, capped; `undefined` when there is neither. */
export function describeFailure(notes: string, findings: readonly string[]): string | undefined {
  const parts: string[] = [];
  const parsed = parseStepNotes(notes);
  if (parsed.status === 'fail') parts.push(`[FAIL]: ${parsed.message}`);
  parts.push(...findings);
  if (parts.length === 0) return undefined;
  const text = parts.join('; ').replace(/\s+/g, ' ').trim();
  return text.length > maxFailureChars ? `${text.slice(0, maxFailureChars)}…[truncated]` : text;
}

function failingFindings(verification: ReadonlyStep['verification']): string[] {
  return (verification?.findings ?? [])
    .filter((finding) => finding.status === 'fail' || finding.status === 'error')
    .map((finding) => `${finding.priority} ${finding.check}: ${finding.message}`);
}

/** The state of a live step as an {@link EarlierRedesignStep}. */
export function stepOutcome(step: ReadonlyStep): EarlierRedesignStep {
  // A step with neither notes nor verification (not started yet: most of a redesign) has no failure.
  const failure =
    step.notes === '' && step.verification === undefined
      ? undefined
      : describeFailure(step.notes, failingFindings(step.verification));
  return {
    id: step.id,
    description: step.description,
    dependsOn: [...step.dependsOn],
    status: step.status,
    ...(failure === undefined ? {} : { failure }),
  };
}

interface TrackedStep {
  description: string;
  dependsOn: StepId[];
  status: StepStatus;
  notes: string;
  findings: string[];
}

function tracked(step: TrackedStep & { id: StepId }): EarlierRedesignStep {
  const failure = describeFailure(step.notes, step.findings);
  return {
    id: step.id,
    description: step.description,
    dependsOn: [...step.dependsOn],
    status: step.status,
    ...(failure === undefined ? {} : { failure }),
  };
}

/**
 * The redesigns in the plan's event log (`replan-applied`) in the lineage of `removed` (the
 * steps about to be replaced), oldest first, each with the steps it replaced as they were just
 * before, and its own steps in their last state (following `step-marked`, `step-verified`,
 * `step-reset` and `steps-added`, so a step added outside a redesign is in the history too).
 * Two passes over the event log.
 */
export function redesignsFromEvents(plan: Plan, removed: readonly StepId[]): EarlierRedesign[] {
  const events = plan.events;
  const lineage = new Set<StepId>(removed);
  const relevant: Extract<(typeof events)[number], { type: 'replan-applied' }>[] = [];
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.type !== 'replan-applied' || !event.added.some((step) => lineage.has(step.id))) continue;
    relevant.push(event);
    for (const id of event.removed) lineage.add(id);
  }
  if (relevant.length === 0) return [];
  relevant.reverse();

  // Replay the states of the steps involved; snapshot the replaced ones at each surgery.
  const watched = lineage;
  for (const event of relevant) for (const step of event.added) watched.add(step.id);
  const states = new Map<StepId, TrackedStep>();
  const replacedAt = new Map<(typeof relevant)[number], EarlierRedesignStep[]>();
  const relevantSet = new Set(relevant);
  const track = (step: {
    id: StepId;
    description: string;
    dependsOn: readonly StepId[];
    status: StepStatus;
  }) => {
    if (watched.has(step.id)) {
      states.set(step.id, {
        description: step.description,
        dependsOn: [...step.dependsOn],
        status: step.status,
        notes: '',
        findings: [],
      });
    }
  };
  for (const event of events) {
    switch (event.type) {
      case 'plan-created':
        for (const step of event.steps)
          track({ ...step, dependsOn: step.dependsOn ?? [], status: 'not_started' });
        break;
      case 'step-marked': {
        const state = states.get(event.stepId);
        if (state === undefined) break;
        if (event.status !== undefined) state.status = event.status;
        if (event.notes !== undefined) state.notes = event.notes;
        break;
      }
      case 'step-verified': {
        const state = states.get(event.stepId);
        if (state !== undefined) state.findings = failingFindings(event.verification);
        break;
      }
      case 'step-reset': {
        // The plan archives the attempt and starts the step clean: so does its tracked state.
        const state = states.get(event.stepId);
        if (state !== undefined) {
          state.status = 'not_started';
          state.notes = '';
          state.findings = [];
        }
        break;
      }
      case 'steps-added':
        // Steps added outside a redesign (e.g. goal repair) can be replaced later: track them.
        for (const step of event.added) track(step);
        break;
      case 'replan-applied': {
        if (relevantSet.has(event)) {
          replacedAt.set(
            event,
            event.removed.flatMap((id) => {
              const state = states.get(id);
              return state === undefined ? [] : [tracked({ id, ...state })];
            }),
          );
        }
        for (const step of event.added) track(step);
        break;
      }
      default:
        break;
    }
  }
  return relevant.map((event) => ({
    failed: [...event.failed],
    replaced: [...event.removed],
    replacedSteps: replacedAt.get(event) ?? [],
    steps: event.added.map((step) => tracked({ id: step.id, ...states.get(step.id)! })),
  }));
}

const keyOf = (redesign: EarlierRedesign) => redesign.steps.map((step) => step.id).join('\u0000');

/**
 * The earlier redesigns of the subgraph about to be replaced (`removed`), oldest first: those
 * that added one of its steps, then recursively those that added the steps those replaced.
 * `candidates` may repeat a redesign (same step ids): the last copy wins. Steps still in the plan
 * show their live state.
 */
export function lineageOf(
  candidates: readonly EarlierRedesign[],
  options: { removed: readonly StepId[]; live: (id: StepId) => ReadonlyStep | undefined },
): EarlierRedesign[] {
  const unique = new Map<string, EarlierRedesign>();
  for (const candidate of candidates) {
    const key = keyOf(candidate);
    unique.delete(key);
    unique.set(key, candidate);
  }
  const lineage = new Set<StepId>(options.removed);
  const pending = [...unique.values()];
  const rounds: EarlierRedesign[][] = [];
  for (;;) {
    const round = pending.filter((redesign) => redesign.steps.some((step) => lineage.has(step.id)));
    if (round.length === 0) break;
    for (const redesign of round) {
      pending.splice(pending.indexOf(redesign), 1);
      for (const id of redesign.replaced) lineage.add(id);
    }
    rounds.push(round);
  }
  return rounds.reverse().flatMap((round) =>
    round.map((redesign) => ({
      failed: [...redesign.failed],
      replaced: [...redesign.replaced],
      ...(redesign.replacedSteps === undefined
        ? {}
        : {
            replacedSteps: redesign.replacedSteps.map((step) => ({
              ...step,
              dependsOn: [...step.dependsOn],
            })),
          }),
      steps: redesign.steps.map((step) => {
        const live = options.live(step.id);
        return live === undefined ? { ...step, dependsOn: [...step.dependsOn] } : stepOutcome(live);
      }),
    })),
  );
}
