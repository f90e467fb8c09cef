import type { Plan, StepId } from '@closedloop/plan';
import type { FindingLike } from './decide-termination';
import { errorMessage } from './error-message';

/** How a goal repair ended: `ok` when the replanner redesigned the repair step. */
export interface GoalRepairResult {
  ok: boolean;
  message: string;
}

/**
 * P1 goal checks fail: a placeholder step depending on the finished steps (the sinks among the
 * completed ones) is added after them with `plan.addSteps`, marked `failed` with the goal
 * findings as its notes and verification, and handed to `replan`, which redesigns it into
 * repair steps with the completed steps' tool history in view — or gives up (the placeholder
 * is then blocked). Every change is a plan event (`steps-added`, `step-marked`,
 * `step-verified`, `replan-applied`), so resume replays it like any other.
 */
export async function repairGoal(options: {
  plan: Plan;
  iteration: number;
  findings: readonly FindingLike[];
  replan: (failed: StepId[]) => Promise<void>;
  signal: AbortSignal;
}): Promise<GoalRepairResult> {
  const { plan, iteration, findings } = options;
  const failing = findings.filter((finding) => finding.status === 'fail');
  let id = `goal-repair-${iteration}`;
  for (let suffix = 2; plan.has(id); suffix++) id = `goal-repair-${iteration}-${suffix}`;
  const completed = plan.idsWithStatus('completed');
  const dependedOn = new Set(plan.stepIds.flatMap((stepId) => plan.readStep(stepId).dependsOn));
  const sinks = completed.filter((stepId) => !dependedOn.has(stepId));
  const problems = failing.map((finding) => `${finding.priority} ${finding.check}: ${finding.message}`);
  plan.addSteps({
    steps: [
      {
        id,
        title: 'Repair the goal',
        description: `The finished work does not meet the goal yet. Make these failing goal checks pass:\n${problems.map((problem) => `- ${problem}`).join('\n')}`,
        dependsOn: sinks,
        successCriteria: problems,
      },
    ],
  });
  // It never runs: it stands for the failed goal checks until the replanner redesigns it.
  plan.markStep(id, { status: 'in_progress' });
  plan.recordVerification(id, {
    verdict: 'retry',
    findings: findings.map(({ check, priority, status, message }) => ({ check, priority, status, message })),
  });
  plan.markStep(id, { status: 'failed', notes: `[FAIL]: goal verification failed: ${problems.join('; ')}` });
  try {
    await options.replan([id]);
  } catch (error) {
    if (options.signal.aborted) return { ok: false, message: 'aborted' };
    if (plan.has(id) && plan.status(id) === 'failed') {
      plan.markStep(id, { status: 'blocked', notes: `[FAIL]: goal repair failed: ${errorMessage(error)}` });
    }
    return { ok: false, message: errorMessage(error) };
  }
  if (!plan.has(id)) return { ok: true, message: '' };
  if (plan.status(id) === 'failed') plan.markStep(id, { status: 'blocked' });
  return { ok: false, message: plan.readStep(id).notes || 'the replanner did not redesign the repair step' };
}
