import type { ChatModel } from '@closedloop/model';
import type { Plan } from '@closedloop/plan';
import type { CommandRunner } from '@closedloop/tools';
import {
  builtinProtocols,
  type HumanReviewHandler,
  type Protocol,
  type SuccessCriterionInput,
  type VerificationMode,
  verifyGoal,
} from '@closedloop/verifier';
import type { FindingLike } from './decide-termination';

/** The goal-verification settings of a cortex. */
export interface GoalVerificationConfig {
  workspace: string | undefined;
  /** The process runner the protocols use (shared with `run_command`). */
  runner?: CommandRunner;
  verifier: {
    protocols: readonly Protocol[];
    mode?: VerificationMode;
    /** `true`: explicit criteria only; `'derive'`: derive from the request when none are given. */
    goal: boolean | 'derive';
    criteria?: readonly SuccessCriterionInput[];
  };
}

/** The priority of a protocol by name (custom first, then built-in), P1 when unknown. */
function priorityOf(name: string, custom: readonly Protocol[]): 'P0' | 'P1' | 'P2' {
  const protocol =
    custom.find((candidate) => candidate.name === name) ??
    (builtinProtocols as Readonly<Record<string, Protocol | undefined>>)[name];
  return protocol?.priority ?? 'P1';
}

/**
 * The goal criteria of a run: the cortex's `verifier.criteria`, plus one criterion per goal
 * protocol the planner named (with the protocol's own priority and the planner's success
 * criteria as description). `undefined` means "derive from the request" (only with
 * `goal: 'derive'` and nothing explicit).
 */
export function goalCriteria(options: {
  config: GoalVerificationConfig;
  protocols: readonly string[];
  successCriteria: readonly string[];
}): SuccessCriterionInput[] | undefined {
  const { config } = options;
  const criteria: SuccessCriterionInput[] = [...(config.verifier.criteria ?? [])];
  const description = options.successCriteria.join('; ');
  for (const name of new Set(options.protocols)) {
    if (criteria.some((criterion) => criterion.protocol === name)) continue;
    criteria.push({
      id: name,
      description,
      priority: priorityOf(name, config.verifier.protocols),
      protocol: name,
      source: 'user',
    });
  }
  if (criteria.length === 0 && config.verifier.goal === 'derive') return undefined;
  return criteria;
}

/**
 * Goal-level verification of a finished iteration through the verifier's `verifyGoal`, on the
 * final workspace: the goal criteria's protocols run (and the workspace's own test command when
 * it has one), every completed step's claims are re-checked against the final state, each of the
 * planner's success criteria becomes a finding, and the plan adds a P1 `plan` finding (all steps
 * completed or not). Without a workspace there is nothing to check: no findings.
 */
export async function verifyGoalFindings(options: {
  plan: Plan;
  request: string;
  successCriteria: readonly string[];
  protocols: readonly string[];
  config: GoalVerificationConfig;
  model: ChatModel;
  signal: AbortSignal;
  onHumanReview: HumanReviewHandler;
}): Promise<FindingLike[]> {
  const { config } = options;
  if (config.workspace === undefined) return [];
  const criteria = goalCriteria(options);
  const report = await verifyGoal(
    {
      workspace: config.workspace,
      request: options.request,
      plan: options.plan,
      model: options.model,
      onHumanReview: options.onHumanReview,
      ...(criteria !== undefined ? { criteria } : {}),
      successCriteria: options.successCriteria,
    },
    {
      // Custom protocols passed to verifyGoal all run: pass only those the criteria name.
      protocols:
        criteria === undefined
          ? config.verifier.protocols
          : config.verifier.protocols.filter((protocol) =>
              criteria.some((criterion) => criterion.protocol === protocol.name),
            ),
      ...(config.verifier.mode !== undefined ? { mode: config.verifier.mode } : {}),
      ...(config.runner !== undefined ? { runner: config.runner } : {}),
      signal: options.signal,
    },
  );
  return report.findings.map(({ check, priority, status, message }) => ({
    check,
    priority,
    status,
    message,
  }));
}
