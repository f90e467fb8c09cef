import type { ChatModel } from '@closedloop/model';
import { type Plan, parseStepNotes, type Step, type StepId } from '@closedloop/plan';
import type { CommandRunner } from '@closedloop/tools';
import { resolveProtocols } from './builtin-protocols';
import { checkClaims } from './check-claims';
import { checkFailedCommands } from './check-commands';
import { checkExecution, type ExecutionEnd } from './check-execution';
import { checkHollowWork } from './check-hollow-work';
import { checkOutcome, namedToolEvidence } from './check-outcome';
import { checkTestTampering } from './check-test-tampering';
import { type Claim, dedupeClaims } from './claim-types';
import { classifyConfidence, propagateConfidence } from './confidence';
import { detectTooling, type Tooling } from './detect-tooling';
import { claimsFromStepClaims, extractClaims } from './extract-claims';
import { extractClaimsWithModel } from './extract-claims-with-model';
import type { Finding } from './finding';
import { analyseLedger, evidenceCalls, type LedgerAnalysis } from './ledger-evidence';
import {
  createProtocolContext,
  type FunctionalityCaseInput,
  type HumanReviewHandler,
  type Protocol,
} from './protocol';
import { createRerunPolicy } from './rerun-policy';
import { runCheck, type StepCheck } from './run-check';
import { type CommandResult, runCommand } from './run-command';
import { runProtocols } from './run-protocols';
import { createStepChanges, type StepChanges } from './step-changes';
import { checkEffects, checkLedger, checkNotes, resolveControlTools } from './step-checks';
import { type StepExpectations, stepExpectations } from './step-expectations';
import { checkToolContracts, resolveToolContracts } from './tool-contracts';
import { type CheckTiming, createReport, type VerificationReport } from './verdict';
import { throwIfAborted, VerifierError } from './verifier-error';
import { createWorkspaceFacts, type WorkspaceFacts } from './workspace-facts';
import type { WorkspaceSnapshot } from './workspace-snapshot';

/** Options of {@link verifyStep}. */
export interface VerifyStepOptions {
  /** The workspace root. Without it, claims cannot be checked (`error`: unverified) and no protocol runs. */
  workspace?: string;
  /**
   * The snapshot taken when the step started (`snapshotWorkspace(root)`): created / modified /
   * deleted are judged against it. Without one, file times since the step started (its
   * `in_progress` event) are used, else git, else the ledger.
   */
  baseline?: WorkspaceSnapshot;
  /**
   * Without a baseline: the content files had before this step's own calls first touched them
   * (path → sha256, `null`: did not exist), e.g. from the journal's dispatch snapshots of a step
   * continued after a crash. Such a file changed during the step exactly when its content differs
   * now; other files are judged by file times, git or the ledger.
   */
  priorStates?: ReadonlyMap<string, string | null>;
  /** How the executor's loop ended: a model error, abort or exhausted limit fails the step. */
  execution?: ExecutionEnd;
  /** Agent-profile tool contracts (`{ profiles: { name: ToolContract[] | { tools, order } } }`), zod-validated. */
  contracts?: unknown;
  /** The profile of `contracts` that applies to this step. */
  profile?: string;
  /**
   * Where claims come from: the structured `step.claims` plus the notes and the final text
   * (`always`, default: everything is checked together), text only when there are no structured
   * claims (`fallback`), or structured claims only (`never`).
   */
  claimsFromNotes?: 'fallback' | 'always' | 'never';
  /**
   * Factored claim extraction: a separate call of this model sees only the step's text and lists
   * its claims as data; each is then checked like the others. Off without a model (the
   * deterministic extractor always runs).
   */
  claimModel?: ChatModel;
  /**
   * Tools that steer the loop instead of acting on the workspace. Their calls never count as
   * evidence: not for the effects check, not as the call that wrote a claimed file, not in the
   * ledger protocols see. Required-tool contracts still see them, so a contract can name one.
   * Default {@link DEFAULT_CONTROL_TOOLS} (`['mark_step']`, the executor's tool).
   */
  controlTools?: readonly string[];
  /**
   * Which claimed commands may be re-run. Default `createRerunPolicy`: only an argv that ran in
   * the step's ledger or a detected project command (build, lint, test…) — never an argv that
   * only a claim names. Whatever runs still passes the command policy of `runner`.
   */
  allowCommand?: (argv: readonly string[]) => boolean | Promise<boolean>;
  /**
   * The process runner for re-runs, git facts and protocols: pass the one `run_command` uses
   * (`createCommandRunner` of `@closedloop/tools`) so both share one policy and sandbox.
   * Default: the default policy with `sandbox: 'auto'`.
   */
  runner?: CommandRunner;
  /** Timeout of each re-run command. Default 120 000 ms. */
  commandTimeoutMs?: number;
  /** Timeout of each step check (the claims check re-runs commands). Default 600 000 ms. */
  checkTimeoutMs?: number;
  /** Output cap of commands. Default 200 000 characters. */
  maxOutputChars?: number;
  /** Commit-ish git changes are measured against when there is no baseline. Default `HEAD`. */
  baseRef?: string;
  /** Custom protocols, resolved by name from `step.protocols` (before the built-ins). */
  protocols?: readonly Protocol[];
  /** Protocol names to run on this step in addition to `step.protocols`. */
  runProtocols?: readonly string[];
  /** For LLM-judge protocols attached to the step. */
  model?: ChatModel;
  functionalityCases?: readonly FunctionalityCaseInput[];
  /** Asked for protocols that need a human, and when a fix edited or deleted tests. */
  onHumanReview?: HumanReviewHandler;
  /**
   * The executor's confidence in this step (0..1, e.g. from logprobs). Combined with the
   * dependencies' recorded confidence by `propagateConfidence`: < 0.4 → P1 failure (not passed
   * downstream), 0.4–0.7 → P2 warning and `unverified: true`.
   */
  confidence?: number;
  signal?: AbortSignal;
}

function hasStructuredClaims(step: Step): boolean {
  const claims = step.claims;
  if (!claims) return false;
  return (
    claims.filesWritten.length +
      claims.filesDeleted.length +
      claims.symbolsAdded.length +
      claims.commandsPassed.length +
      (claims.tags?.length ?? 0) >
    0
  );
}

/**
 * The claims a step makes, from every place it speaks: the structured `mark_step` claims, its
 * notes and its final text (`output`), checked together (per `claimsFromNotes`). A step that
 * reported `[FAIL]` claims nothing.
 */
export function stepClaims(step: Step, mode: VerifyStepOptions['claimsFromNotes'] = 'always'): Claim[] {
  const structured = claimsFromStepClaims(step.claims);
  const notes = parseStepNotes(step.notes);
  if (notes.status === 'fail') return structured;
  const readText = mode === 'always' || (mode === 'fallback' && !hasStructuredClaims(step));
  if (!readText) return structured;
  const output = step.output !== undefined && step.output.trim() !== notes.message.trim() ? step.output : '';
  return dedupeClaims([
    ...structured,
    ...extractClaims(step.notes, 'notes'),
    ...extractClaims(output, 'output'),
  ]);
}

/**
 * When the step's work started, in the plan's clock: its first tool call (nothing the step did
 * can predate it — a setup written after the step was marked `in_progress` is not its work), else
 * its latest `in_progress` event.
 */
function stepStartedAt(plan: Plan, stepId: StepId): number | undefined {
  const first = plan.readStep(stepId).ledger[0];
  if (first !== undefined) return first.calledAt;
  const events = plan.events;
  for (let index = events.length - 1; index >= 0; index -= 1) {
    const event = events[index];
    if (event?.type === 'step-marked' && event.stepId === stepId && event.status === 'in_progress')
      return event.at;
    if (event?.type === 'plan-created') break;
  }
  return undefined;
}

/** The workspace side of a verification: its facts, the step's changes, and how to run commands. */
interface WorkspaceTools {
  facts: WorkspaceFacts;
  changes: StepChanges;
  allowCommand: (argv: readonly string[]) => boolean | Promise<boolean>;
  rerun: (argv: readonly string[], signal?: AbortSignal) => Promise<CommandResult>;
  tooling: () => Promise<Tooling>;
  git: (args: readonly string[]) => Promise<CommandResult>;
}

/** What the step checks judge: one object per verification (the checks are defined once, below). */
interface StepCheckInput {
  options: VerifyStepOptions;
  step: Step;
  analysis: LedgerAnalysis;
  notes: ReturnType<typeof parseStepNotes>;
  contracts: ReturnType<typeof resolveToolContracts>;
  claims: Claim[];
  expectations: StepExpectations;
  /** Present when a workspace was given. */
  workspace: WorkspaceTools | undefined;
  /** When verification began: files changed after this are the verifier's own re-runs. */
  verifyStartedAt: number;
}

/** Runs commands for the checks (re-runs cached per verification) and answers the re-run policy. */
function workspaceTools(
  options: VerifyStepOptions,
  step: Step,
  facts: WorkspaceFacts,
  changes: StepChanges,
): WorkspaceTools {
  let toolingPromise: Promise<Tooling> | undefined;
  const tooling = () => {
    toolingPromise ??= detectTooling(facts.root);
    return toolingPromise;
  };
  const allowCommand = options.allowCommand ?? createRerunPolicy({ ledger: step.ledger, tooling });
  const runner = options.runner ? { runner: options.runner } : {};
  const commandCache = new Map<string, Promise<CommandResult>>();
  const rerun = (argv: readonly string[], signal?: AbortSignal) => {
    const key = argv.join('\u0000');
    let promise = commandCache.get(key);
    if (!promise) {
      promise = runCommand({
        argv,
        cwd: facts.root,
        ...runner,
        timeoutMs: options.commandTimeoutMs ?? 120_000,
        maxOutputChars: options.maxOutputChars ?? 200_000,
        ...(signal ? { signal } : options.signal ? { signal: options.signal } : {}),
      });
      commandCache.set(key, promise);
    }
    return promise;
  };
  const git = (args: readonly string[]) =>
    runCommand({
      argv: ['git', ...args],
      cwd: facts.root,
      ...runner,
      timeoutMs: 30_000,
      env: { GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
      ...(options.signal ? { signal: options.signal } : {}),
    });
  return { facts, changes, allowCommand, rerun, tooling, git };
}

const neverAllowed = (): boolean => false;
const noRerun = (): Promise<CommandResult> =>
  Promise.reject(new Error('no workspace: commands are not re-run'));

function noWorkspace(check: string, claim: Claim): Finding {
  return {
    check,
    priority: 'P1',
    status: 'error',
    message: `Claim "${claim.text}" could not be checked: no workspace was given.`,
    evidence: { claim: claim.text },
  };
}

const failingTestAsked = /\b(?:failing|fails?)\s+test|\breproduc\w*|\bred\s+test|失败的测试|再現/iu;
const claimsAFix = /\bfix(?:ed|es)?\b|修复|修復|修正/iu;

/** The step checks, in order (see {@link verifyStep}); defined once, they read their input. */
const stepChecks: readonly StepCheck<StepCheckInput>[] = [
  {
    name: 'execution',
    priority: 'P0',
    run: (_, { options, analysis }) => checkExecution(options.execution, analysis),
  },
  { name: 'ledger', priority: 'P0', run: (_, { analysis }) => checkLedger(analysis) },
  {
    name: 'notes',
    priority: 'P0',
    run: (_, { step, notes, analysis }) =>
      checkNotes(
        {
          notes,
          ...(step.output !== undefined ? { output: step.output } : {}),
          claimed: hasStructuredClaims(step),
        },
        analysis,
      ),
  },
  {
    name: 'required-tools',
    priority: 'P1',
    run: (_, { step, contracts }) => checkToolContracts(step.ledger, contracts),
  },
  {
    name: 'commands',
    priority: 'P1',
    run: (_, { step, analysis, workspace }) => {
      // Nothing to judge: answered at once (the async check would find nothing either).
      if (analysis.failedCommands.length === 0) return [];
      if (workspace === undefined)
        return checkFailedCommands({ ledger: analysis, allowCommand: neverAllowed, rerun: noRerun });
      return checkFailedCommands({
        ledger: analysis,
        allowCommand: workspace.allowCommand,
        rerun: workspace.rerun,
        failureExpected: failingTestAsked.test(step.description),
      });
    },
  },
  {
    name: 'claims',
    priority: 'P1',
    run: (scope, { claims, analysis, workspace, verifyStartedAt }) => {
      if (claims.length === 0) return [];
      if (workspace === undefined) return claims.map((claim) => noWorkspace('claims', claim));
      const { facts, changes, allowCommand, rerun, tooling, git } = workspace;
      return checkClaims(claims, {
        facts,
        ledger: analysis,
        changes,
        allowCommand,
        rerun: (argv) => rerun(argv, scope.signal),
        tooling,
        git,
        verifyStartedAt,
      });
    },
  },
  { name: 'effects', priority: 'P0', run: (_, { claims, analysis }) => checkEffects(claims, analysis) },
  {
    name: 'outcome',
    priority: 'P1',
    run: (_, { step, expectations, analysis, workspace, verifyStartedAt }) => {
      if (workspace === undefined) {
        const named = namedToolEvidence(expectations, step.description, analysis);
        if (named !== undefined) return [named];
        if (expectations.outcomes.size > 0 && analysis.successCount === 0)
          return [
            {
              check: 'outcome',
              priority: 'P0',
              status: 'fail',
              message: 'The step was asked to do something, but no tool call succeeded.',
            },
          ];
        return [];
      }
      const { facts, changes, allowCommand, rerun, tooling, git } = workspace;
      return checkOutcome({
        expectations,
        description: step.description,
        facts,
        ledger: analysis,
        changes,
        allowCommand,
        rerun,
        tooling,
        git,
        verifyStartedAt,
      });
    },
  },
  {
    name: 'hollow',
    priority: 'P1',
    run: (_, { step, expectations, analysis, workspace }) =>
      workspace === undefined
        ? []
        : checkHollowWork({
            expectations,
            description: step.description,
            facts: workspace.facts,
            ledger: analysis,
            changes: workspace.changes,
          }),
  },
  {
    name: 'tampering',
    priority: 'P1',
    run: (scope, { options, step, claims, expectations, workspace }) =>
      workspace === undefined
        ? []
        : checkTestTampering({
            facts: workspace.facts,
            changes: workspace.changes,
            fix:
              expectations.fix ||
              // "Make the tests pass" is a fix too: weakening the tests is no way to do it.
              expectations.outcomes.has('test') ||
              claims.some((claim) => claimsAFix.test(claim.text)),
            testsAreTarget: expectations.testsAreTarget,
            text: [step.notes, step.output ?? ''].join('\n'),
            request: step.description,
            ...(options.onHumanReview ? { onHumanReview: options.onHumanReview } : {}),
            signal: scope.signal,
          }),
  },
];

/**
 * Verifies one step from evidence, never from what a model or tool printed:
 * 1. `execution`: how the executor ended (a model error, abort or exhausted limit fails the step);
 * 2. `ledger`: pending calls (P0), errors (P1 until a later success on the same target);
 * 3. `notes`: `[FAIL]` (P0), `[SUCCESS]` contradicted by the ledger or by its own admissions;
 * 4. `required-tools`: the step's `requiredTools` (in order) and profile contracts;
 * 5. `commands`: commands that ran and failed, unless the same command passed later (or now);
 * 6. `claims`: every claim — structured, notes, final text — against the step's own changes
 *    (baseline snapshot), the parsed source, re-run commands and tests, git refs, installed packages;
 * 7. `effects`: claimed effects with no successful effectful call (P0);
 * 8. `outcome`: what the description asked for (create/fix/delete/run/test/install/commit/read…);
 * 9. `tampering`: a fix that weakened the tests;
 * then the step's protocols (skipped after a P0 failure) and the confidence rule. `success`
 * needs at least one passing check about the outcome: no findings, only skips or only errors
 * are `unverified`. Throws `VerifierError` for an unknown step, bad contracts or an abort.
 *
 * @example
 * const baseline = snapshotWorkspace('/repo'); // when the step starts
 * // … executeStep …
 * const report = await verifyStep(plan, 's1', { workspace: '/repo', baseline });
 * plan.recordVerification('s1', toVerificationRecord(report));
 */
export async function verifyStep(
  plan: Plan,
  stepId: StepId,
  options: VerifyStepOptions = {},
): Promise<VerificationReport> {
  if (!plan.has(stepId)) {
    throw new VerifierError({
      code: 'unknown-step',
      message: `verifyStep: the plan has no step ${JSON.stringify(stepId)}.`,
      details: { stepId },
    });
  }
  throwIfAborted(options.signal, 'verifyStep');
  // Files changed after this are the verifier's own re-runs, not the step's nor a neighbour's.
  const verifyStartedAt = Date.now();
  const controlTools = resolveControlTools(options.controlTools, 'verifyStep: controlTools');
  const live = plan.readStep(stepId);
  const facts =
    options.workspace === undefined
      ? undefined
      : createWorkspaceFacts(options.workspace, {
          ...(options.runner ? { runner: options.runner } : {}),
          ...(options.baseRef !== undefined ? { baseRef: options.baseRef } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
  const analysis = analyseLedger(live.ledger, {
    controlTools,
    ...(facts ? { relative: facts.relative } : {}),
  });
  // Without a workspace, a claim model or a failed command to judge, every check below is
  // synchronous: the verification ends before anything else runs, so the step is read in place.
  // Otherwise checks await (files, commands, models) and they judge a snapshot taken now. (No
  // check changes the step it judges.)
  const step =
    facts === undefined && options.claimModel === undefined && analysis.failedCommands.length === 0
      ? (live as Step)
      : plan.step(stepId);
  const contracts = resolveToolContracts({
    requiredTools: step.requiredTools,
    ...(options.contracts !== undefined ? { config: options.contracts } : {}),
    ...(options.profile !== undefined ? { profile: options.profile } : {}),
  });
  const findings: Finding[] = [];
  const timings: CheckTiming[] = [];
  const notes = parseStepNotes(step.notes);
  let claims = stepClaims(step, options.claimsFromNotes);
  if (options.claimModel !== undefined && notes.status !== 'fail') {
    const text = [step.notes, step.output ?? ''].filter((part) => part.trim() !== '').join('\n\n');
    const modelClaims = await extractClaimsWithModel(
      options.claimModel,
      text,
      options.signal ? { signal: options.signal } : {},
    );
    claims = dedupeClaims([...claims, ...modelClaims]);
  }
  const expectations = stepExpectations(step.description);
  let workspace: WorkspaceTools | undefined;
  if (facts !== undefined) {
    const startedAt = stepStartedAt(plan, stepId);
    const changes = createStepChanges({
      facts,
      ...(options.runner ? { runner: options.runner } : {}),
      ledger: analysis,
      ...(options.baseline ? { baseline: options.baseline } : {}),
      ...(startedAt !== undefined ? { startedAt } : {}),
      ...(options.priorStates ? { priorStates: options.priorStates } : {}),
    });
    workspace = workspaceTools(options, step, facts, changes);
  }
  const input: StepCheckInput = {
    options,
    step,
    analysis,
    notes,
    contracts,
    claims,
    expectations,
    workspace,
    verifyStartedAt,
  };
  const checkContext = {
    findings,
    timings,
    timeoutMs: options.checkTimeoutMs ?? 600_000,
    signal: options.signal,
  };
  for (const check of stepChecks) {
    // Synchronous checks are recorded at once: no timer, controller or promise (see runCheck).
    const pending = runCheck(check, checkContext, input);
    if (pending !== undefined) await pending;
    throwIfAborted(options.signal, 'verifyStep');
  }

  // Protocols attached to the step (skipped after a P0 failure: fast-fail).
  const names = [...step.protocols, ...(options.runProtocols ?? [])];
  if (names.length > 0) {
    const { protocols, unknown } = resolveProtocols(names, options.protocols);
    for (const name of unknown) {
      findings.push({
        check: name,
        priority: 'P2',
        status: 'warn',
        message: `The step asks for protocol ${JSON.stringify(name)}, which is neither built in nor in options.protocols.`,
      });
    }
    const p0Failed = findings.some((finding) => finding.status === 'fail' && finding.priority === 'P0');
    if (p0Failed || !facts) {
      for (const protocol of protocols) {
        findings.push({
          check: protocol.name,
          priority: protocol.priority,
          status: 'skip',
          message: p0Failed
            ? `${protocol.name} skipped: fast-fail after a P0 failure of the step checks.`
            : `${protocol.name} skipped: no workspace was given.`,
          layer: protocol.layer,
        });
      }
    } else if (protocols.length > 0) {
      const ctx = createProtocolContext({
        workspace: facts.root,
        facts,
        ...(options.runner ? { runner: options.runner } : {}),
        request: step.description,
        acceptanceCriteria: step.successCriteria,
        ledger: evidenceCalls(step.ledger, { controlTools }),
        files: [
          ...step.files,
          ...claims.flatMap((claim) => ('file' in claim && claim.file ? [claim.file] : [])),
        ],
        ...(options.baseRef !== undefined ? { baseRef: options.baseRef } : {}),
        ...(options.model ? { model: options.model } : {}),
        ...(options.functionalityCases ? { functionalityCases: options.functionalityCases } : {}),
        ...(options.onHumanReview ? { onHumanReview: options.onHumanReview } : {}),
        ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
        ...(options.maxOutputChars !== undefined ? { maxOutputChars: options.maxOutputChars } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const result = await runProtocols(protocols, ctx, options.signal ? { signal: options.signal } : {});
      findings.push(...result.findings);
      timings.push(...result.timings);
    }
  }

  // Confidence: own signal combined with the dependencies' (uncertainty only accumulates).
  // Read in place: only the records are looked at, at once (a copy would duplicate each ledger).
  const upstream = step.dependsOn.map((id) => (plan.has(id) ? plan.readStep(id).verification : undefined));
  const upstreamConfidence = upstream.flatMap((record) =>
    record?.confidence !== undefined ? [record.confidence] : [],
  );
  const upstreamUnverified = upstream.some((record) => record?.unverified === true);
  let confidence: number | undefined;
  if (options.confidence !== undefined)
    confidence = propagateConfidence(options.confidence, upstreamConfidence);
  else if (upstreamConfidence.length > 0) confidence = Math.min(...upstreamConfidence);
  let lowConfidence = false;
  if (confidence !== undefined) {
    const band = classifyConfidence(confidence);
    if (band === 'withhold') {
      findings.push({
        check: 'confidence',
        priority: 'P1',
        status: 'fail',
        message: `Confidence ${confidence.toFixed(2)} is below 0.4: the output is not passed downstream; retry or ask the user.`,
      });
    } else if (band === 'unverified') {
      lowConfidence = true;
      findings.push({
        check: 'confidence',
        priority: 'P2',
        status: 'warn',
        message: `Confidence ${confidence.toFixed(2)} is between 0.4 and 0.7: the output is marked UNVERIFIED for downstream steps.`,
      });
    }
  }
  if (upstreamUnverified) {
    findings.push({
      check: 'confidence',
      priority: 'P2',
      status: 'warn',
      message: 'An upstream step is unverified: this step inherits the UNVERIFIED mark.',
    });
  }
  return createReport({
    findings,
    timings,
    ...(confidence !== undefined ? { confidence } : {}),
    unverified: lowConfidence || upstreamUnverified,
  });
}
