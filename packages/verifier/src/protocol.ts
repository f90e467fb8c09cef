import type { ChatModel } from '@closedloop/model';
import type { ToolCallRecord } from '@closedloop/plan';
import type { CommandRunner } from '@closedloop/tools';
import { z } from 'zod';
import { detectTooling, type Tooling } from './detect-tooling';
import type { Finding, Priority, VerificationLayer } from './finding';
import { type CommandResult, runCommand } from './run-command';
import { invalidInput } from './verifier-error';
import { createWorkspaceFacts, type WorkspaceFacts } from './workspace-facts';

/** One execution case for the FUNCTIONALITY protocol (e.g. `isPrime(2) === true`). */
export const functionalityCaseSchema = z
  .object({
    name: z.string().optional(),
    /** Workspace-relative module path (`src/math.js`). */
    module: z.string().min(1),
    /** Export to call. Default `default`. */
    export: z.string().min(1).default('default'),
    /** The single argument. Use `args` for several (or for one array argument: `args: [[1, 2]]`). */
    input: z.unknown().optional(),
    args: z.array(z.unknown()).optional(),
    /** Expected return value (deep strict equality; promises are awaited). */
    expected: z.unknown(),
    /** Time budget of this case (the child process gets the sum over all cases). Default 10 000 ms. */
    timeoutMs: z.number().int().positive().optional(),
  })
  .strict();
export type FunctionalityCase = z.infer<typeof functionalityCaseSchema>;
export type FunctionalityCaseInput = z.input<typeof functionalityCaseSchema>;

/** What a human reviewer is shown (layer 6: summary, risks, approve/reject/modify). */
export interface HumanReviewRequest {
  /** The requirement under review. */
  request: string;
  /** Why review was triggered (security-sensitive files, architecture change, judge NEEDS_REVIEW). */
  reasons: string[];
  /** Summary of the change. */
  summary: string;
  changedFiles: string[];
  /** Risks raised by earlier checks (the judge's `risks`). */
  risks: string[];
  /** The diff (capped). */
  diff: string;
}

/** The reviewer's answer. `modify` asks for changes (verdict `retry`), `reject` fails (P0). */
export interface HumanReviewDecision {
  decision: 'approve' | 'reject' | 'modify';
  comment?: string;
}

/** Asks a human; may take as long as it likes (the protocol has no timeout by default). */
export type HumanReviewHandler = (
  request: HumanReviewRequest,
  options: { signal: AbortSignal },
) => Promise<HumanReviewDecision>;

/** Options of `ctx.run`. */
export interface ContextRunOptions {
  /** Workspace-relative working directory. Default the root. */
  cwd?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
  stdin?: string;
}

/** Everything a protocol may look at. Facts come from the workspace, never from narratives. */
export interface ProtocolContext {
  /** Absolute real path of the workspace root. */
  readonly workspace: string;
  /** The requirement: the user's request (goal) or the step description. */
  readonly request: string;
  /** Acceptance criteria, as text (for judges). */
  readonly acceptanceCriteria: readonly string[];
  /** Cached file system and git facts. */
  readonly facts: WorkspaceFacts;
  /** The commit-ish changes are measured against (`HEAD` by default). */
  readonly baseRef: string;
  /** The workspace's tooling (cached). */
  tooling(): Promise<Tooling>;
  /** Changed files (workspace-relative): git changes that still exist, plus `files` hints. */
  changedFiles(): Promise<string[]>;
  /**
   * The ledger of the step (or of every step, for goal verification), without control-tool
   * calls (`mark_step`): what the tools really did.
   */
  readonly ledger: readonly ToolCallRecord[];
  readonly model?: ChatModel;
  readonly functionalityCases: readonly FunctionalityCase[];
  readonly onHumanReview?: HumanReviewHandler;
  /** Findings of the groups that already ran. */
  readonly previousFindings: readonly Finding[];
  /** This protocol's signal (its timeout and the caller's abort). */
  readonly signal: AbortSignal;
  /**
   * Runs an argv in the workspace (no shell) with the context's timeout, output cap and signal,
   * through the product's one process runner: the command policy, minimal environment and
   * sandbox of `run_command` apply (a refused command comes back with `denied`).
   */
  run(argv: readonly string[], options?: ContextRunOptions): Promise<CommandResult>;
}

/**
 * A verification protocol: BUILD, TEST, … or your own (see `defineProtocol`).
 * `run` returns findings; throwing or timing out is reported as an infrastructure `error`.
 */
export interface Protocol {
  readonly name: string;
  readonly description?: string;
  /** Priority of its failures (P0 blocks, P1 retries, P2 warns). */
  readonly priority: Priority;
  /** Verification layer, 1..6 (see `VerificationLayer`); modes select layers. */
  readonly layer: VerificationLayer;
  /**
   * Execution group: groups run in ascending order, protocols of one group in parallel, and a
   * P0 failure skips later groups. Default: layers 1–2 → 2, 3–5 → 3, 6 → 5.
   */
  readonly group?: number;
  /** Timeout of one run. Default by layer (30 s, 120 s, 300 s, 600 s, 120 s, none). */
  readonly timeoutMs?: number;
  /** Conditional trigger; a protocol that does not apply reports one `skip` finding. */
  appliesTo?(ctx: ProtocolContext): boolean | Promise<boolean>;
  run(ctx: ProtocolContext, signal: AbortSignal): Promise<Finding[]>;
}

const runFactories = new WeakMap<ProtocolContext, (signal: AbortSignal) => ProtocolContext['run']>();

/** Options of {@link createProtocolContext}. */
export interface ProtocolContextOptions {
  workspace: string;
  request?: string;
  acceptanceCriteria?: readonly string[];
  ledger?: readonly ToolCallRecord[];
  model?: ChatModel;
  functionalityCases?: readonly FunctionalityCaseInput[];
  onHumanReview?: HumanReviewHandler;
  /** Extra changed-file hints (workspace-relative), e.g. a step's claimed files. */
  files?: readonly string[];
  /** Base commit for git change detection. Default `HEAD`. */
  baseRef?: string;
  /** Default timeout of commands run through `ctx.run`. Default 120 000 ms. */
  commandTimeoutMs?: number;
  /** Output cap of commands. Default 200 000 characters. */
  maxOutputChars?: number;
  /** Pre-computed facts to share (e.g. with step checks). */
  facts?: WorkspaceFacts;
  /** The process runner `ctx.run` uses (share `run_command`'s). Default: default policy, `sandbox: 'auto'`. */
  runner?: CommandRunner;
  signal?: AbortSignal;
}

/**
 * Builds the context protocols run with. `verifyStep` and `verifyGoal` build it for you; use
 * this to run protocols directly with `runProtocols`.
 */
export function createProtocolContext(options: ProtocolContextOptions): ProtocolContext {
  const cases = z.array(functionalityCaseSchema).safeParse(options.functionalityCases ?? []);
  if (!cases.success) {
    throw invalidInput('invalid-options', 'functionalityCases', cases.error);
  }
  const facts =
    options.facts ??
    createWorkspaceFacts(options.workspace, {
      ...(options.runner ? { runner: options.runner } : {}),
      ...(options.baseRef !== undefined ? { baseRef: options.baseRef } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  let toolingPromise: Promise<Tooling> | undefined;
  let changedPromise: Promise<string[]> | undefined;
  const signal = options.signal ?? new AbortController().signal;
  const commandTimeoutMs = options.commandTimeoutMs ?? 120_000;
  const maxOutputChars = options.maxOutputChars ?? 200_000;
  const makeRun =
    (runSignal: AbortSignal): ProtocolContext['run'] =>
    (argv, runOptions = {}) => {
      const cwd =
        runOptions.cwd === undefined ? facts.root : facts.absolute(facts.relative(runOptions.cwd) ?? '');
      return runCommand({
        argv,
        cwd,
        root: facts.root,
        ...(options.runner ? { runner: options.runner } : {}),
        timeoutMs: runOptions.timeoutMs ?? commandTimeoutMs,
        maxOutputChars,
        signal: runSignal,
        ...(runOptions.env ? { env: runOptions.env } : {}),
        ...(runOptions.stdin !== undefined ? { stdin: runOptions.stdin } : {}),
      });
    };
  const context: ProtocolContext = {
    workspace: facts.root,
    baseRef: options.baseRef ?? 'HEAD',
    request: options.request ?? '',
    acceptanceCriteria: options.acceptanceCriteria ?? [],
    facts,
    tooling() {
      toolingPromise ??= detectTooling(facts.root);
      return toolingPromise;
    },
    changedFiles() {
      changedPromise ??= (async () => {
        const files = new Set<string>();
        const changes = await facts.changes();
        for (const change of changes?.values() ?? []) {
          if (change.kind !== 'deleted' && facts.isFile(change.path)) files.add(change.path);
        }
        for (const hint of options.files ?? []) {
          const rel = facts.relative(hint);
          if (rel !== undefined && facts.isFile(rel)) files.add(rel);
        }
        return [...files].sort();
      })();
      return changedPromise;
    },
    ledger: options.ledger ?? [],
    ...(options.model ? { model: options.model } : {}),
    functionalityCases: cases.data,
    ...(options.onHumanReview ? { onHumanReview: options.onHumanReview } : {}),
    previousFindings: [],
    signal,
    run: makeRun(signal),
  };
  runFactories.set(context, makeRun);
  return context;
}

/**
 * A copy of `ctx` for one protocol run: its own signal (commands started through `run` die
 * with it) and the findings of earlier groups.
 */
export function scopeContext(
  ctx: ProtocolContext,
  scope: { signal: AbortSignal; previousFindings: readonly Finding[] },
): ProtocolContext {
  const factory = runFactories.get(ctx);
  const run: ProtocolContext['run'] = factory
    ? factory(scope.signal)
    : (argv, options) => ctx.run(argv, options);
  const scoped: ProtocolContext = {
    ...ctx,
    signal: scope.signal,
    previousFindings: scope.previousFindings,
    run,
  };
  if (factory) runFactories.set(scoped, factory);
  return scoped;
}

/** Default group of a protocol by layer. */
export function defaultGroup(layer: VerificationLayer): number {
  if (layer <= 2) return 2;
  if (layer <= 5) return 3;
  return 5;
}

/** Default timeout of a protocol by layer (30 s static, 120 s unit, 300 s integration, 600 s e2e). */
export function defaultTimeoutMs(layer: VerificationLayer): number | undefined {
  switch (layer) {
    case 1:
      return 30_000;
    case 2:
      return 120_000;
    case 3:
      return 300_000;
    case 4:
      return 600_000;
    case 5:
      return 120_000;
    default:
      return undefined;
  }
}
