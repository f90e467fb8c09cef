import type { ChatModel } from '@closedloop/model';
import type { Plan } from '@closedloop/plan';
import type { CommandRunner } from '@closedloop/tools';
import { z } from 'zod';
import { resolveProtocols } from './builtin-protocols';
import { checkCriteria } from './check-criteria';
import { checkFinalState } from './check-final-state';
import { checkRequestCoverage } from './check-request-coverage';
import { detectTooling } from './detect-tooling';
import type { Finding, FindingStatus, Priority } from './finding';
import { higherPriority } from './finding';
import {
  createProtocolContext,
  type FunctionalityCaseInput,
  type HumanReviewHandler,
  type Protocol,
} from './protocol';
import { createRerunPolicy } from './rerun-policy';
import { type CommandResult, runCommand } from './run-command';
import { runProtocols, type VerificationMode } from './run-protocols';
import { evidenceCalls, resolveControlTools } from './step-checks';
import {
  deriveSuccessCriteria,
  type SuccessCriterion,
  type SuccessCriterionInput,
  successCriterionSchema,
} from './success-criteria';
import { createReport, type VerificationReport } from './verdict';
import { invalidInput, throwIfAborted, VerifierError } from './verifier-error';
import { stepClaims } from './verify-step';
import { createWorkspaceFacts } from './workspace-facts';

/** What goal-level verification looks at. */
export interface GoalContext {
  /** The workspace root. */
  workspace: string;
  /** The user's request (criteria are derived from it when `criteria` is omitted). */
  request: string;
  /** Explicit criteria; default {@link deriveSuccessCriteria}. */
  criteria?: readonly SuccessCriterionInput[];
  /** The plan: its ledgers feed ERROR_FREE, its steps' files and confidence count, incomplete steps fail. */
  plan?: Plan;
  /** For LLM_JUDGE / ARCHITECT / FUNCTIONALITY fallback. */
  model?: ChatModel;
  functionalityCases?: readonly FunctionalityCaseInput[];
  onHumanReview?: HumanReviewHandler;
  /** Commit-ish that changes are measured against (the commit the run started from). Default `HEAD`. */
  baseRef?: string;
  /**
   * The plan's own success criteria, in words ("src/is-prime.js exports isPrime", "node --test
   * exits 0"): each becomes a goal finding (`criteria`), checked by a rule where one fits, else
   * judged by `model`.
   */
  successCriteria?: readonly string[];
}

/** Options of {@link verifyGoal}. */
export interface VerifyGoalOptions {
  /** Layer selection. Default `standard` (layers 1, 2, 5). */
  mode?: VerificationMode;
  /** Custom protocols: they run (subject to the mode) and override built-ins of the same name. */
  protocols?: readonly Protocol[];
  /** A P0 failure skips later protocol groups. Default true. */
  fastFail?: boolean;
  /** Timeout per protocol name. */
  timeouts?: Readonly<Record<string, number>>;
  commandTimeoutMs?: number;
  /**
   * Tools whose ledger calls are never evidence (ERROR_FREE and custom protocols do not see
   * them). Default `['mark_step']`, as in `verifyStep`.
   */
  controlTools?: readonly string[];
  /**
   * Which commands success criteria name may run. Default `createRerunPolicy` over every step's
   * ledger: an argv a step ran, or a detected project command — never one only a criterion names.
   */
  allowCommand?: (argv: readonly string[]) => boolean | Promise<boolean>;
  /**
   * Run the workspace's own test command (TESTS_PASS) whenever it has one, even when the
   * criteria do not name TEST. Default true: a claimed runner never replaces it.
   */
  workspaceTests?: boolean;
  /** The process runner the protocols use (share `run_command`'s). Default: default policy, `sandbox: 'auto'`. */
  runner?: CommandRunner;
  signal?: AbortSignal;
}

/** How one criterion came out. */
export interface CriterionResult extends SuccessCriterion {
  /** Worst status among its protocol's findings (`skip` when the protocol did not run). */
  status: FindingStatus;
}

/** A goal report: the verdict, findings and each criterion's status. */
export interface GoalVerificationReport extends VerificationReport {
  criteria: CriterionResult[];
}

const STATUS_RANK: Record<FindingStatus, number> = { fail: 0, error: 1, warn: 2, pass: 3, skip: 4 };

function criterionStatus(findings: readonly Finding[]): FindingStatus {
  let status: FindingStatus = 'skip';
  for (const finding of findings)
    if (STATUS_RANK[finding.status] < STATUS_RANK[status]) status = finding.status;
  return status;
}

/**
 * Goal-level verification: success criteria (given, or derived from the request and the
 * workspace) → the protocols that check them, filtered by mode, run in groups with fast-fail;
 * criterion priorities set the protocols' priorities. Verdict by the P0/P1/P2 decision tree.
 * Throws `VerifierError` for invalid criteria, unknown protocols, or an abort.
 *
 * @example
 * const report = await verifyGoal({ workspace: '/repo', request: 'Add isPrime to src/math.js' }, { mode: 'standard' });
 * report.verdict; // 'success' | 'success-with-warnings' | 'retry' | 'failed' | 'unverified'
 */
export async function verifyGoal(
  context: GoalContext,
  options: VerifyGoalOptions = {},
): Promise<GoalVerificationReport> {
  throwIfAborted(options.signal, 'verifyGoal');
  const controlTools = resolveControlTools(options.controlTools, 'verifyGoal: controlTools');
  const facts = createWorkspaceFacts(context.workspace, {
    ...(options.runner ? { runner: options.runner } : {}),
    ...(context.baseRef !== undefined ? { baseRef: context.baseRef } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const tooling = await detectTooling(facts.root);
  let criteria: SuccessCriterion[];
  if (context.criteria !== undefined) {
    const parsed = z.array(successCriterionSchema).safeParse(context.criteria);
    if (!parsed.success) {
      throw invalidInput('invalid-options', 'verifyGoal: criteria', parsed.error);
    }
    criteria = parsed.data;
  } else {
    criteria = await deriveSuccessCriteria(context.request, { tooling });
  }
  const implicitTests =
    options.workspaceTests !== false &&
    tooling.commands.test !== undefined &&
    !criteria.some((criterion) => criterion.protocol === 'TEST');
  if (implicitTests) {
    criteria = [
      ...criteria,
      {
        id: 'TESTS_PASS',
        description: "The workspace's own test command passes.",
        priority: 'P1',
        protocol: 'TEST',
        source: 'implicit',
      },
    ];
  }
  const custom = options.protocols ?? [];
  const { protocols: referenced, unknown } = resolveProtocols(
    criteria.map((criterion) => criterion.protocol),
    custom,
  );
  if (unknown.length > 0) {
    throw new VerifierError({
      code: 'invalid-options',
      message: `verifyGoal: criteria name unknown protocols: ${unknown.join(', ')}. Pass them in options.protocols.`,
      details: { unknown },
    });
  }
  const protocols = [...referenced];
  for (const protocol of custom) if (!protocols.includes(protocol)) protocols.push(protocol);
  const priorities: Record<string, Priority> = {};
  for (const criterion of criteria) {
    const current = priorities[criterion.protocol];
    priorities[criterion.protocol] = current
      ? higherPriority(current, criterion.priority)
      : criterion.priority;
  }

  const steps = context.plan?.steps ?? [];
  const ledger = evidenceCalls(
    steps.flatMap((step) => step.ledger),
    { controlTools },
  );
  const files = steps.flatMap((step) => [...step.files, ...(step.claims?.filesWritten ?? [])]);
  const ctx = createProtocolContext({
    ...(options.runner ? { runner: options.runner } : {}),
    workspace: facts.root,
    facts,
    request: context.request,
    acceptanceCriteria: criteria.map((criterion) =>
      criterion.description ? `${criterion.id}: ${criterion.description}` : criterion.id,
    ),
    ledger,
    files,
    ...(context.baseRef !== undefined ? { baseRef: context.baseRef } : {}),
    ...(context.model ? { model: context.model } : {}),
    ...(context.functionalityCases ? { functionalityCases: context.functionalityCases } : {}),
    ...(context.onHumanReview ? { onHumanReview: context.onHumanReview } : {}),
    ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const result = await runProtocols(protocols, ctx, {
    mode: options.mode ?? 'standard',
    priorities,
    ...(options.fastFail !== undefined ? { fastFail: options.fastFail } : {}),
    ...(options.timeouts ? { timeouts: options.timeouts } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // The workspace's own test command, added implicitly: a workspace with no test at all has
  // nothing to run (a criterion that asked for tests still fails on zero tests).
  const findings = result.findings.map((finding) =>
    implicitTests &&
    finding.check === 'TEST' &&
    finding.status === 'fail' &&
    /no test ran|collected no tests/.test(finding.message)
      ? {
          ...finding,
          status: 'skip' as const,
          message: `${finding.message} The workspace has no tests to run.`,
        }
      : finding,
  );
  // A check the user (or the plan) asked for that does not apply here — `TEST` where there is no
  // test command — is no pass: the goal is unverified on that point, and the report says why.
  for (const criterion of criteria) {
    if (criterion.source !== 'user') continue;
    const own = findings.filter((finding) => finding.check === criterion.protocol);
    const skipped = own.find(
      (finding) => finding.status === 'skip' && /does not apply here/.test(finding.message),
    );
    if (skipped === undefined || own.some((finding) => finding.status !== 'skip')) continue;
    findings.push({
      check: criterion.protocol,
      priority: criterion.priority,
      status: 'warn',
      message: `Unverified: ${criterion.id} asks for ${criterion.protocol}, which cannot run in this workspace (${skipped.message.replace(/\.$/, '')}${
        criterion.protocol === 'TEST' ? ': no test command was found' : ''
      }).`,
    });
  }
  const allowCommand =
    options.allowCommand ??
    createRerunPolicy({ ledger: steps.flatMap((step) => step.ledger), tooling: async () => tooling });

  // The goal is judged on the final workspace: every completed step's claims must still hold.
  if (context.plan)
    findings.push(...(await checkFinalState(context.plan, facts, (step) => stepClaims(step))));
  // The request itself: a change asked for must have been made, each name asked to be added written.
  if (context.plan)
    findings.push(...checkRequestCoverage(context.plan, context.request, facts, { controlTools }));
  // The plan's own success criteria, each a finding.
  if (context.successCriteria !== undefined && context.successCriteria.length > 0) {
    const commandCache = new Map<string, Promise<CommandResult>>();
    findings.push(
      ...(await checkCriteria(context.successCriteria, {
        facts,
        tooling: async () => tooling,
        allowCommand,
        run: (argv) => {
          const key = argv.join('\u0000');
          let promise = commandCache.get(key);
          if (!promise) {
            promise = runCommand({
              argv,
              cwd: facts.root,
              ...(options.runner ? { runner: options.runner } : {}),
              timeoutMs: options.commandTimeoutMs ?? 120_000,
              ...(options.signal ? { signal: options.signal } : {}),
            });
            commandCache.set(key, promise);
          }
          return promise;
        },
        ...(context.model ? { model: context.model } : {}),
        request: context.request,
        ...(options.signal ? { signal: options.signal } : {}),
      })),
    );
  }

  // The plan: incomplete steps mean the goal's work is not done; confidence and UNVERIFIED marks carry over.
  let confidence: number | undefined;
  let unverified = false;
  if (context.plan) {
    const incomplete = steps.filter((step) => step.status !== 'completed' && step.status !== 'skipped');
    findings.push(
      incomplete.length > 0
        ? {
            check: 'plan',
            priority: 'P1',
            status: 'fail',
            message: `${incomplete.length} step(s) did not complete: ${incomplete.map((step) => `${step.id} (${step.status})`).join(', ')}.`,
          }
        : {
            check: 'plan',
            priority: 'P1',
            status: 'pass',
            message: `All ${steps.length} step(s) completed.`,
          },
    );
    const confidences = steps.flatMap((step) =>
      step.verification?.confidence !== undefined ? [step.verification.confidence] : [],
    );
    if (confidences.length > 0) confidence = Math.min(...confidences);
    unverified = steps.some((step) => step.verification?.unverified === true);
  }

  const report = createReport({
    findings,
    timings: result.timings,
    ...(confidence !== undefined ? { confidence } : {}),
    unverified,
  });
  return {
    ...report,
    criteria: criteria.map((criterion) => ({
      ...criterion,
      status: criterionStatus(findings.filter((finding) => finding.check === criterion.protocol)),
    })),
  };
}
