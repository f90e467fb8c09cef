import type { ChatModel } from '@closedloop/model';
import { type Plan, parseStepNotes, type Step, type StepId } from '@closedloop/plan';
import type { CommandRunner } from '@closedloop/tools';
import { resolveProtocols } from './builtin-protocols';
import { classifyConfidence, propagateConfidence } from './confidence';
import { detectTooling, type Tooling } from './detect-tooling';
import { type Claim, claimsFromStepClaims, dedupeClaims, extractClaims } from './extract-claims';
import type { Finding, Priority } from './finding';
import {
  createProtocolContext,
  type FunctionalityCaseInput,
  type HumanReviewHandler,
  type Protocol,
} from './protocol';
import { createRerunPolicy } from './rerun-policy';
import { runProtocols } from './run-protocols';
import {
  analyseLedger,
  checkClaims,
  checkEffects,
  checkLedger,
  checkNotes,
  evidenceCalls,
  resolveControlTools,
} from './step-checks';
import { checkToolContracts, resolveToolContracts } from './tool-contracts';
import { type CheckTiming, createReport, type VerificationReport } from './verdict';
import { throwIfAborted, VerifierError } from './verifier-error';
import { createWorkspaceFacts } from './workspace-facts';

/** Options of {@link verifyStep}. */
export interface VerifyStepOptions {
  /** The workspace root. Without it, claims are listed as `skip` (unverifiable) and no protocol runs. */
  workspace?: string;
  /** Agent-profile tool contracts (`{ profiles: { name: ToolContract[] | { tools, order } } }`), zod-validated. */
  contracts?: unknown;
  /** The profile of `contracts` that applies to this step. */
  profile?: string;
  /**
   * Where claims come from: the structured `step.claims`, plus the notes text when there are
   * no structured claims (`fallback`, default), always (`always`), or never (`never`).
   */
  claimsFromNotes?: 'fallback' | 'always' | 'never';
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
  /** Commit-ish that "changed" is measured against. Default `HEAD`. */
  baseRef?: string;
  /** Custom protocols, resolved by name from `step.protocols` (before the built-ins). */
  protocols?: readonly Protocol[];
  /** Protocol names to run on this step in addition to `step.protocols`. */
  runProtocols?: readonly string[];
  /** For LLM-judge protocols attached to the step. */
  model?: ChatModel;
  functionalityCases?: readonly FunctionalityCaseInput[];
  onHumanReview?: HumanReviewHandler;
  /**
   * The executor's confidence in this step (0..1, e.g. from logprobs). Combined with the
   * dependencies' recorded confidence by `propagateConfidence`: < 0.4 → P1 failure (not passed
   * downstream), 0.4–0.7 → P2 warning and `unverified: true`.
   */
  confidence?: number;
  signal?: AbortSignal;
}

interface StepCheck {
  name: string;
  priority: Priority;
  run(signal: AbortSignal): Finding[] | Promise<Finding[]>;
}

async function runCheck(
  check: StepCheck,
  context: {
    findings: Finding[];
    timings: CheckTiming[];
    timeoutMs: number;
    signal: AbortSignal | undefined;
  },
): Promise<void> {
  const started = performance.now();
  const controller = new AbortController();
  const onAbort = () => controller.abort(context.signal?.reason);
  context.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error(`${check.name} timed out`));
      resolve('timeout');
    }, context.timeoutMs);
  });
  try {
    const result = await Promise.race([Promise.resolve(check.run(controller.signal)), timedOut]);
    if (result === 'timeout') {
      context.findings.push({
        check: check.name,
        priority: check.priority,
        status: 'error',
        message: `The ${check.name} check timed out after ${context.timeoutMs} ms (infrastructure error, not a failure of the work).`,
      });
    } else {
      context.findings.push(...result);
    }
  } catch (error) {
    if (VerifierError.isInstance(error)) throw error;
    context.findings.push({
      check: check.name,
      priority: check.priority,
      status: 'error',
      message: `The ${check.name} check crashed: ${error instanceof Error ? error.message : String(error)} (infrastructure error, not a failure of the work).`,
    });
  } finally {
    clearTimeout(timer);
    context.signal?.removeEventListener('abort', onAbort);
    controller.abort(new Error('check finished'));
    context.timings.push({ check: check.name, ms: performance.now() - started });
  }
}

function hasStructuredClaims(step: Step): boolean {
  const claims = step.claims;
  if (!claims) return false;
  return (
    claims.filesWritten.length +
      claims.filesDeleted.length +
      claims.symbolsAdded.length +
      claims.commandsPassed.length >
    0
  );
}

/** The claims a step makes: structured claims, and its notes text per `claimsFromNotes`. */
export function stepClaims(step: Step, mode: VerifyStepOptions['claimsFromNotes'] = 'fallback'): Claim[] {
  const structured = claimsFromStepClaims(step.claims);
  const notes = parseStepNotes(step.notes);
  const readNotes =
    notes.status !== 'fail' && (mode === 'always' || (mode === 'fallback' && !hasStructuredClaims(step)));
  return dedupeClaims([...structured, ...(readNotes ? extractClaims(step.notes) : [])]);
}

/**
 * Verifies one step from evidence, never from what a model or tool printed:
 * 1. `ledger`: pending calls (P0), errors (P1, or P2 when recovered);
 * 2. `notes`: `[FAIL]` (P0), `[SUCCESS]` contradicted by the ledger;
 * 3. `required-tools`: the step's `requiredTools` (in order) and profile contracts;
 * 4. `claims`: each claim against the file system, git, syntax trees, re-run commands;
 * 5. `effects`: claimed effects with no successful tool call (P0); control tools such as
 *    `mark_step` (`controlTools`) never count as evidence here or anywhere else;
 * then the step's protocols (skipped after a P0 failure) and the confidence rule.
 * Throws `VerifierError` for an unknown step, bad contracts or an abort.
 *
 * @example
 * const report = await verifyStep(plan, 's1', { workspace: '/repo' });
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
  const step = plan.step(stepId);
  const controlTools = resolveControlTools(options.controlTools, 'verifyStep: controlTools');
  const contracts = resolveToolContracts({
    requiredTools: step.requiredTools,
    ...(options.contracts !== undefined ? { config: options.contracts } : {}),
    ...(options.profile !== undefined ? { profile: options.profile } : {}),
  });
  const findings: Finding[] = [];
  const timings: CheckTiming[] = [];
  const analysis = analyseLedger(step.ledger, { controlTools });
  const notes = parseStepNotes(step.notes);
  const claims = stepClaims(step, options.claimsFromNotes);
  const facts =
    options.workspace === undefined
      ? undefined
      : createWorkspaceFacts(options.workspace, {
          ...(options.runner ? { runner: options.runner } : {}),
          ...(options.baseRef !== undefined ? { baseRef: options.baseRef } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
  let toolingPromise: Promise<Tooling> | undefined;

  const checks: StepCheck[] = [
    { name: 'ledger', priority: 'P0', run: () => checkLedger(step.ledger, analysis) },
    { name: 'notes', priority: 'P0', run: () => checkNotes(notes, analysis) },
    { name: 'required-tools', priority: 'P1', run: () => checkToolContracts(step.ledger, contracts) },
    {
      name: 'claims',
      priority: 'P1',
      run: (signal) => {
        if (claims.length === 0) return [];
        if (!facts) {
          return claims.map((claim) => ({
            check: 'claims',
            priority: 'P1' as const,
            status: 'skip' as const,
            message: `Claim "${claim.text}" is unverifiable: no workspace was given.`,
            evidence: { claim: claim.text },
          }));
        }
        const tooling = () => {
          toolingPromise ??= detectTooling(facts.root);
          return toolingPromise;
        };
        return checkClaims(claims, {
          facts,
          ledger: step.ledger,
          controlTools,
          allowCommand: options.allowCommand ?? createRerunPolicy({ ledger: step.ledger, tooling }),
          ...(options.runner ? { runner: options.runner } : {}),
          tooling,
          commandTimeoutMs: options.commandTimeoutMs ?? 120_000,
          maxOutputChars: options.maxOutputChars ?? 200_000,
          signal,
        });
      },
    },
    { name: 'effects', priority: 'P0', run: () => checkEffects(claims, analysis) },
  ];
  for (const check of checks) {
    await runCheck(check, {
      findings,
      timings,
      timeoutMs: options.checkTimeoutMs ?? 600_000,
      signal: options.signal,
    });
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
  const upstream = step.dependsOn.map((id) => (plan.has(id) ? plan.step(id).verification : undefined));
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
