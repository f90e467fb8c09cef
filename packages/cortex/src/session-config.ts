import type { ExecutionLimits, ExecutionMode, ToolCallGuard } from '@closedloop/executor';
import type { ChatModel, PriceTable, Redactor } from '@closedloop/model';
import type { CommandRunner, ToolRegistry } from '@closedloop/tools';
import type { Protocol, SuccessCriterionInput, VerificationMode } from '@closedloop/verifier';
import type { ApprovalHandler } from './approvals';
import type { RunBudget } from './meter-model';
import type { PinnableClock } from './pinnable-clock';
import type { UncertainCallPolicy } from './reconcile-call';
import type { RunEvent } from './run-events';
import type { RunStore } from './run-store';
import type { StepTaskRunner } from './step-task';

/** How a run decides whether to call the planner. */
export type PlanningMode = 'auto' | 'always' | 'never';

/** How steps are executed (passed to `executeStep` of `@closedloop/executor`). */
export interface ExecutorSettings {
  mode?: ExecutionMode;
  limits?: ExecutionLimits;
  parallelTools?: number;
  stream?: boolean;
  systemPrompt?: string;
  toolTimeoutMs?: number;
  /**
   * Pre-execution check of tool calls (`createToolCallGuard` from `@closedloop/verifier`).
   * Default: a guard that self-verifies destructive calls with the verifier model; `false` turns
   * it off.
   */
  guard?: ToolCallGuard | false;
}

/** What an `unverified` step becomes: `retry` (default: one more attempt, then replan) or `warn` (completed, flagged). */
export type AcceptUnverified = 'retry' | 'warn';

/** Everything a run session needs, resolved from `createCortex` options. */
export interface SessionConfig {
  model: ChatModel;
  plannerModel: ChatModel;
  replannerModel: ChatModel;
  verifierModel: ChatModel;
  replanner: { maxAttempts?: number; maxResultChars?: number; temperature?: number };
  registry: ToolRegistry;
  workspace: string | undefined;
  planning: PlanningMode;
  executor: ExecutorSettings;
  acceptUnverified: AcceptUnverified;
  verifier: {
    protocols: Protocol[];
    protocolNames: string[];
    contracts?: unknown;
    profile?: string;
    mode?: VerificationMode;
    goal: boolean | 'derive';
    criteria?: readonly SuccessCriterionInput[];
    claimExtraction: 'deterministic' | 'model';
  };
  concurrency: number;
  maxIterations: number;
  replanWindowMs: number;
  budget: RunBudget;
  prices?: PriceTable;
  deadlines: { runMs?: number; stepMs?: number };
  /** Most steps a drafted plan may have. */
  maxPlanSteps: number;
  /** Applied to the task, every event and the result (undefined: off). */
  redactor: Redactor | undefined;
  /** The process runner of the verifier (claims, protocols, git facts). */
  runner?: CommandRunner;
  store: RunStore | undefined;
  onEvent?: (event: RunEvent) => void;
  onApproval?: ApprovalHandler;
  /** What resume does with a non-idempotent call that started without a recorded result. */
  onUncertain: UncertainCallPolicy;
  /** Lease options for `run` and `resume` (tests shorten the TTL). */
  lease: { ttlMs?: number; renewEveryMs?: number | false };
  /** Where ready steps run; `undefined`: in this process. */
  stepRunner?: StepTaskRunner;
  clock: PinnableClock;
}
