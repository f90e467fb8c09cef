import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ParsedStepNotes, ToolCallRecord } from '@closedloop/plan';
import type { CommandRunner } from '@closedloop/tools';
import type { Tooling } from './detect-tooling';
import { type Claim, describeClaim } from './extract-claims';
import { canFindSymbols, findSymbol } from './find-symbol';
import { excerpt, type Finding } from './finding';
import { isMissingProgram, judgeTestRun } from './protocols/command-protocols';
import { type CommandResult, commandProblem, runCommand } from './run-command';
import { VerifierError } from './verifier-error';
import type { WorkspaceFacts } from './workspace-facts';

/**
 * Tools that steer the agent loop rather than act on the workspace: the executor's `mark_step`.
 * Their calls are never evidence of an effect (a `mark_step` that *claims* a file was written
 * is a claim, not a write).
 */
export const DEFAULT_CONTROL_TOOLS: readonly string[] = Object.freeze(['mark_step']);

/** Which ledger calls are control calls (never evidence). */
export interface LedgerEvidenceOptions {
  /** Names of control tools. Default {@link DEFAULT_CONTROL_TOOLS}. */
  controlTools?: Iterable<string>;
}

/**
 * Validates a `controlTools` option (an array of tool names) and returns it as a set.
 * Throws `VerifierError('invalid-options')`.
 */
export function resolveControlTools(value: unknown, where = 'controlTools'): ReadonlySet<string> {
  if (value === undefined) return new Set(DEFAULT_CONTROL_TOOLS);
  if (!Array.isArray(value) || value.some((name) => typeof name !== 'string' || name === '')) {
    throw new VerifierError({
      code: 'invalid-options',
      message: `${where} must be an array of tool names (e.g. ['mark_step']), got ${JSON.stringify(value)}.`,
      details: { controlTools: value },
    });
  }
  return new Set(value as string[]);
}

function controlSet(options: LedgerEvidenceOptions): ReadonlySet<string> {
  const tools = options.controlTools ?? DEFAULT_CONTROL_TOOLS;
  return tools instanceof Set ? (tools as ReadonlySet<string>) : new Set(tools);
}

/** The calls of a ledger that may count as evidence: everything but control-tool calls. */
export function evidenceCalls(
  ledger: readonly ToolCallRecord[],
  options: LedgerEvidenceOptions = {},
): ToolCallRecord[] {
  const control = controlSet(options);
  return ledger.filter((call) => !control.has(call.tool));
}

/** A ledger call that ended in `error`, and whether a later call of the same tool succeeded. */
export interface LedgerError {
  call: ToolCallRecord;
  recovered: boolean;
}

/** What the ledger says, computed once per verification. */
export interface LedgerAnalysis {
  pending: ToolCallRecord[];
  errors: LedgerError[];
  /** Successful calls that count as evidence (control-tool calls excluded). */
  successCount: number;
  /** Successful control-tool calls (`mark_step`…): present, but never evidence of an effect. */
  controlCalls: ToolCallRecord[];
}

/**
 * Splits a ledger into pending calls, errors (recovered or not) and successes. Successful
 * control-tool calls are counted apart: they never count as evidence.
 */
export function analyseLedger(
  ledger: readonly ToolCallRecord[],
  options: LedgerEvidenceOptions = {},
): LedgerAnalysis {
  const control = controlSet(options);
  const pending: ToolCallRecord[] = [];
  const errors: LedgerError[] = [];
  const controlCalls: ToolCallRecord[] = [];
  const lastSuccess = new Map<string, number>();
  let successCount = 0;
  ledger.forEach((call, index) => {
    if (call.status !== 'success') return;
    lastSuccess.set(call.tool, index);
    if (control.has(call.tool)) controlCalls.push(call);
    else successCount += 1;
  });
  ledger.forEach((call, index) => {
    if (call.status === 'pending') pending.push(call);
    else if (call.status === 'error')
      errors.push({ call, recovered: (lastSuccess.get(call.tool) ?? -1) > index });
  });
  return { pending, errors, successCount, controlCalls };
}

/**
 * Ledger check (seeds 000/004): a `pending` call never returned (P0, the hallucination signal);
 * a call that ended in `error` is a P1 failure, or a P2 warning when a later call of the same
 * tool succeeded.
 */
export function checkLedger(ledger: readonly ToolCallRecord[], analysis = analyseLedger(ledger)): Finding[] {
  const findings: Finding[] = [];
  for (const call of analysis.pending) {
    findings.push({
      check: 'ledger',
      priority: 'P0',
      status: 'fail',
      message: `Tool call ${call.tool} (${call.callId}) never returned: no result was recorded (hallucination signal).`,
      evidence: { callId: call.callId },
    });
  }
  for (const { call, recovered } of analysis.errors) {
    const error = (call.error ?? call.result ?? '').slice(0, 300);
    findings.push(
      recovered
        ? {
            check: 'ledger',
            priority: 'P2',
            status: 'warn',
            message: `Tool call ${call.tool} (${call.callId}) failed${error ? ` (${error})` : ''}; a later ${call.tool} call succeeded.`,
            evidence: { callId: call.callId },
          }
        : {
            check: 'ledger',
            priority: 'P1',
            status: 'fail',
            message: `Tool call ${call.tool} (${call.callId}) failed${error ? ` (${error})` : ''} and no later ${call.tool} call succeeded.`,
            evidence: { callId: call.callId },
          },
    );
  }
  if (findings.length === 0) {
    findings.push({
      check: 'ledger',
      priority: 'P0',
      status: 'pass',
      message:
        ledger.length === 0 ? 'No tool calls.' : `${ledger.length} tool call(s), all returned successfully.`,
    });
  }
  return findings;
}

/**
 * Notes check (seed 004): `[FAIL]` → P0 failure; `[SUCCESS]` contradicted by a pending call
 * (P0) or an unrecovered tool error (P1) → failure; no tag or no notes → pass (backward
 * compatible). Only the step's own notes are read: tool results are never read as status.
 */
export function checkNotes(notes: ParsedStepNotes, analysis: LedgerAnalysis): Finding[] {
  if (notes.status === 'fail') {
    return [
      {
        check: 'notes',
        priority: 'P0',
        status: 'fail',
        message: `The step reported failure: ${notes.message || '(no reason given)'}`,
      },
    ];
  }
  if (notes.status === 'success') {
    const findings: Finding[] = [];
    for (const call of analysis.pending) {
      findings.push({
        check: 'notes',
        priority: 'P0',
        status: 'fail',
        message: `[SUCCESS] is claimed but tool call ${call.tool} (${call.callId}) never returned.`,
        evidence: { callId: call.callId, claim: notes.message },
      });
    }
    for (const { call, recovered } of analysis.errors) {
      if (recovered) continue;
      findings.push({
        check: 'notes',
        priority: 'P1',
        status: 'fail',
        message: `[SUCCESS] is claimed but tool call ${call.tool} (${call.callId}) failed and was never recovered.`,
        evidence: { callId: call.callId, claim: notes.message },
      });
    }
    if (findings.length > 0) return findings;
    return [
      {
        check: 'notes',
        priority: 'P0',
        status: 'pass',
        message: 'Notes report [SUCCESS]; the ledger does not contradict them.',
      },
    ];
  }
  return [
    {
      check: 'notes',
      priority: 'P0',
      status: 'pass',
      message:
        notes.message === ''
          ? 'No notes (backward compatible).'
          : 'Notes carry no [SUCCESS]/[FAIL] tag (backward compatible).',
    },
  ];
}

/**
 * Effects check: a step with no successful tool call cannot have written a file, added a
 * symbol or run a command. Claims of such effects are text-only hallucinations (P0). Control
 * tools (`mark_step`) do not count: the call that *states* the claims is not evidence for them.
 */
export function checkEffects(claims: readonly Claim[], analysis: LedgerAnalysis): Finding[] {
  if (claims.length === 0) {
    return [{ check: 'effects', priority: 'P0', status: 'pass', message: 'The step claims no effects.' }];
  }
  if (analysis.successCount > 0) {
    return [
      {
        check: 'effects',
        priority: 'P0',
        status: 'pass',
        message: `${claims.length} claimed effect(s) rest on ${analysis.successCount} successful tool call(s).`,
      },
    ];
  }
  const control = [...new Set(analysis.controlCalls.map((call) => call.tool))];
  const controlNote =
    control.length > 0
      ? ` except the control tool ${control.join(', ')} (${analysis.controlCalls.length} call(s)), which only reports the step and is no evidence`
      : '';
  return [
    {
      check: 'effects',
      priority: 'P0',
      status: 'fail',
      message: `The step claims effects (${claims.map(describeClaim).join('; ')}) but no tool call succeeded${controlNote}: text-only effects are hallucinations.`,
      evidence: {
        claim: claims[0]?.text ?? '',
        ...(analysis.controlCalls[0] ? { callId: analysis.controlCalls[0].callId } : {}),
      },
    },
  ];
}

const PATH_KEYS = [
  'path',
  'file',
  'filePath',
  'filename',
  'target',
  'to',
  'from',
  'destination',
  'source',
  'dir',
  'directory',
];
const DELETE_TOOL = /delete|remove|unlink|(?:^|_)rm(?:_|$)|trash/i;
/** Tools that only read: their paths are no evidence of any change. */
const READ_ONLY_TOOL =
  /^(?:read|list|get|search|find|grep|glob|view|cat|show|stat|head|tail|open|inspect|fetch|http_get|git_status|git_diff|git_log|git_show)/i;
const WRITE_TOOL =
  /write|edit|create|save|append|patch|replace|move|rename|copy|mkdir|put|update|insert|apply|generate|scaffold|format/i;

/** Argument keys that carry file content, not paths or commands: never scanned. */
const CONTENT_KEYS =
  /^(?:content|contents|text|body|data|patch|diff|new_?text|old_?text|new_?string|old_?string|replacement|search|replace|input|stdin|message)$/i;

function collectStrings(value: unknown, out: string[], depth = 0): void {
  if (depth > 4) return;
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, out, depth + 1);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value))
      if (!CONTENT_KEYS.test(key)) collectStrings(item, out, depth + 1);
  }
}

/** Workspace paths that successful ledger calls touched, by how (each map: path → call id). */
export interface LedgerPaths {
  written: Map<string, string>;
  deleted: Map<string, string>;
  /** Any argument string that names a path (for files made by commands). Computed on first use. */
  mentioned(): Map<string, string>;
}

/**
 * Finds the workspace paths successful ledger calls wrote, deleted or mentioned in their
 * arguments. Control-tool calls are skipped: `mark_step`'s claims name files, but naming a file
 * is not writing it.
 */
export function ledgerPaths(
  ledger: readonly ToolCallRecord[],
  facts: WorkspaceFacts,
  options: LedgerEvidenceOptions = {},
): LedgerPaths {
  const written = new Map<string, string>();
  const deleted = new Map<string, string>();
  const successful = evidenceCalls(ledger, options).filter(
    (call) =>
      call.status === 'success' &&
      typeof call.args === 'object' &&
      call.args !== null &&
      !READ_ONLY_TOOL.test(call.tool),
  );
  for (const call of successful) {
    const args = call.args as Record<string, unknown>;
    const target = DELETE_TOOL.test(call.tool) ? deleted : WRITE_TOOL.test(call.tool) ? written : undefined;
    if (target === undefined) continue;
    for (const key of PATH_KEYS) {
      const value = args[key];
      if (typeof value === 'string') {
        const rel = facts.relative(value);
        if (rel !== undefined) target.set(rel, call.callId);
      }
    }
    for (const key of ['paths', 'files']) {
      const value = args[key];
      if (!Array.isArray(value)) continue;
      for (const item of value) {
        const rel = typeof item === 'string' ? facts.relative(item) : undefined;
        if (rel !== undefined) target.set(rel, call.callId);
      }
    }
  }
  let mentioned: Map<string, string> | undefined;
  return {
    written,
    deleted,
    mentioned() {
      if (mentioned) return mentioned;
      mentioned = new Map();
      for (const call of successful) {
        const strings: string[] = [];
        collectStrings(call.args, strings);
        for (const text of strings) {
          if (text.length > 2000) continue;
          for (const token of text.split(/[\s'"`;|&<>()=,]+/)) {
            if (token.length < 2 || token.length > 300 || !/[./]/.test(token)) continue;
            const rel = facts.relative(token);
            if (rel !== undefined) mentioned.set(rel, call.callId);
          }
        }
      }
      return mentioned;
    },
  };
}

/** Everything the claims check needs. */
export interface ClaimCheckEnvironment {
  facts: WorkspaceFacts;
  ledger: readonly ToolCallRecord[];
  /** Tools whose calls are never evidence (default {@link DEFAULT_CONTROL_TOOLS}). */
  controlTools?: Iterable<string>;
  /**
   * Re-run a claimed command only when this allows it (default in `verifyStep`:
   * `createRerunPolicy` — the argv ran in the step's ledger or is a detected project command).
   */
  allowCommand(argv: readonly string[]): boolean | Promise<boolean>;
  /** The process runner (the one `run_command` uses): one policy, environment and sandbox. */
  runner?: CommandRunner;
  tooling(): Promise<Tooling>;
  commandTimeoutMs: number;
  maxOutputChars: number;
  signal?: AbortSignal;
}

function findByBasename(facts: WorkspaceFacts, base: string, candidates: Iterable<string>): string[] {
  const hits = new Set<string>();
  for (const candidate of candidates) {
    if (path.posix.basename(candidate) === base && facts.isFile(candidate)) hits.add(candidate);
  }
  if (hits.size > 0) return [...hits];
  let budget = 5000;
  const walk = (dir: string, rel: string, depth: number) => {
    if (depth > 6 || budget <= 0) return;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (--budget <= 0) return;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'dist') continue;
        walk(path.join(dir, entry.name), childRel, depth + 1);
      } else if (entry.name === base) {
        hits.add(childRel);
      }
    }
  };
  walk(facts.root, '', 0);
  return [...hits];
}

/** Runs the checks of every claim against the workspace. */
export async function checkClaims(claims: readonly Claim[], env: ClaimCheckEnvironment): Promise<Finding[]> {
  const { facts } = env;
  const changes = facts.gitTop !== undefined ? await facts.changes() : undefined;
  const paths = ledgerPaths(
    env.ledger,
    facts,
    env.controlTools !== undefined ? { controlTools: env.controlTools } : {},
  );
  const claimedFiles = claims.flatMap((claim) => ('file' in claim && claim.file ? [claim.file] : []));
  const candidates = new Set<string>([...(changes ? [...changes.keys()] : []), ...paths.written.keys()]);
  for (const file of claimedFiles) {
    const rel = facts.relative(file);
    if (rel !== undefined) candidates.add(rel);
  }
  const ignoredCache = new Map<string, Promise<boolean>>();
  const isIgnored = (rel: string) => {
    let promise = ignoredCache.get(rel);
    if (!promise) {
      promise = runCommand({
        argv: ['git', 'check-ignore', '-q', '--', rel],
        cwd: facts.root,
        ...(env.runner ? { runner: env.runner } : {}),
        timeoutMs: 10_000,
        ...(env.signal ? { signal: env.signal } : {}),
      }).then((result) => result.exitCode === 0);
      ignoredCache.set(rel, promise);
    }
    return promise;
  };
  const commandCache = new Map<string, Promise<CommandResult>>();
  const runOnce = (argv: readonly string[]) => {
    const key = argv.join('\u0000');
    let promise = commandCache.get(key);
    if (!promise) {
      promise = runCommand({
        argv,
        cwd: facts.root,
        ...(env.runner ? { runner: env.runner } : {}),
        timeoutMs: env.commandTimeoutMs,
        maxOutputChars: env.maxOutputChars,
        ...(env.signal ? { signal: env.signal } : {}),
      });
      commandCache.set(key, promise);
    }
    return promise;
  };

  /** Resolves a claimed path: relative to the root, else a unique file with that name. */
  const resolve = (file: string): { rel?: string; note?: string } => {
    const rel = facts.relative(file);
    if (rel === undefined) return { note: `${file} is outside the workspace` };
    if (facts.exists(rel) || file.includes('/')) return { rel };
    const hits = findByBasename(facts, path.posix.basename(rel), candidates);
    if (hits.length === 1) return { rel: hits[0] as string };
    if (hits.length > 1) {
      const changed = hits.filter((hit) => changes?.has(hit) || paths.written.has(hit));
      if (changed.length === 1) return { rel: changed[0] as string };
    }
    return { rel };
  };

  const finding = (
    claim: Claim,
    status: Finding['status'],
    message: string,
    extra: Finding['evidence'] = {},
  ): Finding => ({
    check: 'claims',
    priority: 'P1',
    status,
    message,
    evidence: { claim: claim.text, ...extra },
  });

  const changedInGit = async (rel: string): Promise<'changed' | 'unchanged' | 'unknown'> => {
    if (!changes) return 'unknown';
    if (changes.has(rel)) return 'changed';
    if (await isIgnored(rel)) return 'unknown';
    return 'unchanged';
  };

  const checkCommand = async (
    claim: Claim,
    argv: readonly string[],
    label: string,
    isTest: boolean,
  ): Promise<Finding> => {
    if (!(await env.allowCommand(argv))) {
      return finding(
        claim,
        'skip',
        `Claim "${label}" was not re-run: \`${argv.join(' ')}\` neither ran in this step nor is a command of the workspace (claims alone never run commands).`,
        {
          command: [...argv],
        },
      );
    }
    const result = await runOnce(argv);
    const evidence = { command: [...argv], exitCode: result.exitCode, output: excerpt(result.output) };
    const problem = commandProblem(result);
    if (problem !== undefined || (result.exitCode !== 0 && isMissingProgram(result))) {
      return {
        ...finding(
          claim,
          'error',
          `Claim "${label}" could not be checked: \`${argv.join(' ')}\` ${problem ?? `could not run its program (exit ${result.exitCode})`}.`,
        ),
        evidence: { claim: claim.text, ...evidence },
      };
    }
    if (isTest) {
      const judged = judgeTestRun(
        result,
        { check: 'claims', priority: 'P1', evidence: { claim: claim.text, ...evidence } },
        'Tests',
      );
      return { ...judged, message: `Claim "${label}" re-run: ${judged.message}` };
    }
    return result.exitCode === 0
      ? {
          ...finding(claim, 'pass', `Claim "${label}" holds: \`${argv.join(' ')}\` exits 0.`),
          evidence: { claim: claim.text, ...evidence },
        }
      : {
          ...finding(
            claim,
            'fail',
            `Claim "${label}" is false: \`${argv.join(' ')}\` exits ${result.exitCode}.`,
          ),
          evidence: { claim: claim.text, ...evidence },
        };
  };

  const checkOne = async (claim: Claim): Promise<Finding> => {
    const label = describeClaim(claim);
    switch (claim.kind) {
      case 'file-written': {
        const { rel, note } = resolve(claim.file);
        if (rel === undefined)
          return finding(claim, 'fail', `Claim "${label}" is false: ${note}.`, { file: claim.file });
        if (!facts.isFile(rel)) {
          return finding(claim, 'fail', `Claim "${label}" is false: ${rel} does not exist.`, { file: rel });
        }
        const git = await changedInGit(rel);
        if (git === 'changed')
          return finding(claim, 'pass', `Claim "${label}" holds: ${rel} exists and git shows it changed.`, {
            file: rel,
          });
        if (git === 'unchanged') {
          return finding(
            claim,
            'fail',
            `Claim "${label}" is false: ${rel} exists but git shows no change to it.`,
            { file: rel },
          );
        }
        const callId = paths.written.get(rel) ?? paths.mentioned().get(rel);
        if (callId !== undefined) {
          return finding(
            claim,
            'pass',
            `Claim "${label}" holds: ${rel} exists and tool call ${callId} wrote it.`,
            { file: rel, callId },
          );
        }
        return {
          ...finding(
            claim,
            'warn',
            `Claim "${label}": ${rel} exists, but nothing shows this step changed it (no git, no tool call naming it).`,
            {
              file: rel,
            },
          ),
          priority: 'P2',
        };
      }
      case 'file-deleted': {
        const { rel, note } = resolve(claim.file);
        if (rel === undefined)
          return finding(claim, 'fail', `Claim "${label}" is false: ${note}.`, { file: claim.file });
        if (facts.exists(rel))
          return finding(claim, 'fail', `Claim "${label}" is false: ${rel} still exists.`, { file: rel });
        if (changes?.get(rel)?.kind === 'deleted') {
          return finding(claim, 'pass', `Claim "${label}" holds: ${rel} is gone and git shows it deleted.`, {
            file: rel,
          });
        }
        const callId = paths.deleted.get(rel) ?? paths.mentioned().get(rel);
        if (callId !== undefined) {
          return finding(
            claim,
            'pass',
            `Claim "${label}" holds: ${rel} is gone and tool call ${callId} removed it.`,
            { file: rel, callId },
          );
        }
        if (changes) {
          return finding(
            claim,
            'fail',
            `Claim "${label}" is false: ${rel} does not exist, but git shows no deletion (it may never have existed).`,
            {
              file: rel,
            },
          );
        }
        return {
          ...finding(
            claim,
            'warn',
            `Claim "${label}": ${rel} does not exist, but nothing shows it existed before.`,
            { file: rel },
          ),
          priority: 'P2',
        };
      }
      case 'symbol-added': {
        const files: string[] = [];
        if (claim.file !== undefined) {
          const { rel, note } = resolve(claim.file);
          if (rel === undefined)
            return finding(claim, 'fail', `Claim "${label}" is false: ${note}.`, { file: claim.file });
          if (!facts.isFile(rel))
            return finding(claim, 'fail', `Claim "${label}" is false: ${rel} does not exist.`, { file: rel });
          if (!canFindSymbols(rel)) {
            // Cannot check is never a pass: an uncheckable symbol claim leaves the step unverified.
            return finding(
              claim,
              'error',
              `Claim "${label}" cannot be checked: the verifier has no parser for ${rel}.`,
              { file: rel },
            );
          }
          files.push(rel);
        } else {
          for (const candidate of candidates) {
            if (canFindSymbols(candidate) && facts.isFile(candidate)) files.push(candidate);
          }
          if (files.length === 0) {
            return finding(
              claim,
              'skip',
              `Claim "${label}" is unverifiable: it names no file and no changed source file the verifier can parse is known.`,
            );
          }
        }
        for (const file of files) {
          const text = facts.read(file);
          if (text === undefined) continue;
          const found = await findSymbol({ fileName: file, text, name: claim.name, kind: claim.symbolKind });
          if (!found) continue;
          if (claim.file !== undefined && (await changedInGit(file)) === 'unchanged') {
            return finding(
              claim,
              'fail',
              `Claim "${label}" is false: ${claim.name} exists in ${file}, but git shows the file unchanged (it was not added now).`,
              {
                file,
              },
            );
          }
          return finding(
            claim,
            'pass',
            `Claim "${label}" holds: ${file}:${found.line} declares ${found.declaration} ${claim.name}.`,
            { file },
          );
        }
        return finding(
          claim,
          'fail',
          `Claim "${label}" is false: no ${claim.symbolKind === 'any' ? 'declaration' : claim.symbolKind} named ${claim.name} in ${files.join(', ')} (syntax tree).`,
          files.length === 1 ? { file: files[0] as string } : {},
        );
      }
      case 'command-passed': {
        const isTest = /\btest\b|vitest|jest|pytest|mocha|--test/.test(claim.argv.join(' '));
        return checkCommand(claim, claim.argv, label, isTest);
      }
      case 'check-passed': {
        const command = (await env.tooling()).commands[claim.check];
        if (!command) {
          return finding(
            claim,
            'skip',
            `Claim "${label}" is unverifiable: no ${claim.check} command was detected in the workspace.`,
          );
        }
        return checkCommand(claim, command.argv, label, claim.check === 'test');
      }
    }
  };

  const findings: Finding[] = [];
  for (const claim of claims) findings.push(await checkOne(claim));
  return findings;
}
