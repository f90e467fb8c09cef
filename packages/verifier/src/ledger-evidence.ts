import type { ToolCallRecord } from '@closedloop/plan';
import { type CommandRun, commandRunOf } from './command-runs';

/**
 * Tools that steer the agent loop rather than act on the workspace: the executor's `mark_step`.
 * Their calls are never evidence of an effect (a `mark_step` that *claims* a file was written
 * is a claim, not a write).
 */
export const DEFAULT_CONTROL_TOOLS: readonly string[] = Object.freeze(['mark_step']);

/** Which ledger calls are control calls (never evidence), and how paths are normalised. */
export interface LedgerEvidenceOptions {
  /** Names of control tools. Default {@link DEFAULT_CONTROL_TOOLS}. */
  controlTools?: Iterable<string>;
  /** Normalises a path argument to workspace-relative posix (`undefined`: outside). Default: light cleanup. */
  relative?: (file: string) => string | undefined;
}

/** What a ledger call did, by its tool and arguments. */
export type CallKind = 'control' | 'read' | 'write' | 'delete' | 'command' | 'other';

/** One ledger call, classified. */
export interface CallEvidence {
  call: ToolCallRecord;
  index: number;
  kind: CallKind;
  /** Workspace-relative paths it read, wrote or deleted (from its path arguments or argv). */
  targets: string[];
  /** For command tools: what ran and how it ended. */
  command?: CommandRun;
}

/** A ledger call that ended in `error`. */
export interface LedgerError {
  call: ToolCallRecord;
  /** True when a later successful call acted on the same target (same path, or the same command). */
  recovered: boolean;
  /** The call that recovered it. */
  recoveredBy?: string;
  /** A failed read (`read_file` of a missing path, `list_dir`…): exploration, not a contradiction. */
  exploratory: boolean;
}

/** A command whose last run in the ledger failed and that no later run of the same command passed. */
export interface FailedCommand {
  run: CommandRun;
  callId: string;
}

/** What the ledger says, computed once per verification. */
export interface LedgerAnalysis {
  calls: CallEvidence[];
  pending: ToolCallRecord[];
  errors: LedgerError[];
  /** Successful calls that count as evidence (control-tool calls excluded). */
  successCount: number;
  /** Successful calls that can change the workspace: writes, deletes, non-exploratory commands, other tools. */
  effectCount: number;
  /** Successful reads (read tools and exploratory commands). */
  readCount: number;
  /** Successful control-tool calls (`mark_step`…): present, but never evidence of an effect. */
  controlCalls: ToolCallRecord[];
  /** Every command call, in ledger order (`ran`: the tool started it and reported how it ended). */
  commands: { run: CommandRun; callId: string; index: number; ran: boolean }[];
  /** Non-exploratory commands that failed and were not run successfully afterwards. */
  failedCommands: FailedCommand[];
  /** Paths successful write calls targeted → the last such call id. */
  written: Map<string, string>;
  /** Paths whose whole content a successful write call set (`content` argument) → that content. */
  writtenContent: Map<string, string>;
  /**
   * Paths a successful write call reported it overwrote (its result says `"created": false`): the
   * file was there before, even when it is a new inode now (an atomic write renames a new file
   * over the old one, so its birth time is the write's).
   */
  overwritten: Set<string>;
  /** Paths successful delete calls targeted → call id. */
  deleted: Map<string, string>;
  /** Paths successful read calls targeted → call id. */
  read: Map<string, string>;
  /** Paths any successful effectful call targeted (writes, deletes, command operands) → call id. */
  touched: Map<string, string>;
}

const PATH_KEYS = [
  'path',
  'file',
  'filePath',
  'file_path',
  'filename',
  'target',
  'to',
  'from',
  'destination',
  'source',
  'src',
  'dest',
  'dir',
  'directory',
  'old_path',
  'new_path',
  'oldPath',
  'newPath',
];
const DELETE_TOOL = /delete|remove|unlink|(?:^|_)rm(?:_|$)|trash/i;
/** Tools that only read: their paths are no evidence of any change. */
const READ_ONLY_TOOL =
  /^(?:read|list|get|search|find|grep|glob|view|cat|show|stat|head|tail|open|inspect|fetch|http_get|git_status|git_diff|git_log|git_show|ls|tree|lookup|query)/i;
const WRITE_TOOL =
  /write|edit|create|save|append|patch|replace|move|rename|copy|mkdir|put|update|insert|apply|generate|scaffold|format|str_replace/i;

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

function defaultRelative(file: string): string | undefined {
  const cleaned = file.trim().replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
  if (cleaned === '' || cleaned === '.' || cleaned.startsWith('/') || cleaned.split('/').includes('..'))
    return undefined;
  return cleaned;
}

function pathArguments(args: unknown, relative: (file: string) => string | undefined): string[] {
  if (typeof args !== 'object' || args === null) return [];
  const record = args as Record<string, unknown>;
  const found: string[] = [];
  for (const key of PATH_KEYS) addPath(found, record[key], relative);
  for (const key of LIST_KEYS) {
    const value = record[key];
    if (Array.isArray(value)) for (const item of value) addPath(found, item, relative);
  }
  return found;
}

const LIST_KEYS = ['paths', 'files', 'targets'] as const;

/** Adds `value` to `found` when it is a path in the workspace not found yet (no closure per call). */
function addPath(found: string[], value: unknown, relative: (file: string) => string | undefined): void {
  if (typeof value !== 'string' || value.length > 500) return;
  const rel = relative(value);
  if (rel !== undefined && !found.includes(rel)) found.push(rel);
}

/** Path-looking arguments of a command (`rm dist/a.js`, `node --test test/a.test.js`). */
/** Programs whose every operand is a path (`rm dist`, `mv a b`). */
const PATH_PROGRAMS = /^(?:rm|rmdir|mv|cp|mkdir|touch|ln|chmod|chown|unlink|del|trash)$/;

function commandPaths(argv: readonly string[], relative: (file: string) => string | undefined): string[] {
  const found: string[] = [];
  const operandsArePaths = PATH_PROGRAMS.test((argv[0] ?? '').split('/').pop() ?? '');
  for (const arg of argv.slice(1)) {
    if (arg.startsWith('-') || arg.length > 300 || /^[a-z]+:\/\//i.test(arg)) continue;
    if (!operandsArePaths && !/[./]/.test(arg)) continue;
    const rel = relative(arg);
    if (rel !== undefined && !found.includes(rel)) found.push(rel);
  }
  return found;
}

function classify(call: ToolCallRecord, control: ReadonlySet<string>): CallKind {
  if (control.has(call.tool)) return 'control';
  if (READ_ONLY_TOOL.test(call.tool)) return 'read';
  if (DELETE_TOOL.test(call.tool)) return 'delete';
  if (WRITE_TOOL.test(call.tool)) return 'write';
  return 'other';
}

/** True when two targets are the same path or one contains the other (`dist` and `dist/a.js`). */
function overlaps(a: string, b: string): boolean {
  return a === b || b.startsWith(`${a}/`) || a.startsWith(`${b}/`);
}

/**
 * Classifies every call of a ledger and reads what it says both ways: pending calls, errors and
 * whether a later success on the *same target* recovered them (`edit_file` on A failing is not
 * recovered by `edit_file` on B), every command run with the exit code its tool reported, and
 * the non-exploratory commands whose last run failed. Control-tool calls are never evidence.
 */
export function analyseLedger(
  ledger: readonly ToolCallRecord[],
  options: LedgerEvidenceOptions = {},
): LedgerAnalysis {
  const control = controlSet(options);
  const relative = options.relative ?? defaultRelative;
  const calls: CallEvidence[] = [];
  const pending: ToolCallRecord[] = [];
  const controlCalls: ToolCallRecord[] = [];
  const commands: LedgerAnalysis['commands'] = [];
  const written = new Map<string, string>();
  const writtenContent = new Map<string, string>();
  const overwritten = new Set<string>();
  const deleted = new Map<string, string>();
  const read = new Map<string, string>();
  const touched = new Map<string, string>();
  let successCount = 0;
  let effectCount = 0;
  let readCount = 0;

  ledger.forEach((call, index) => {
    let kind = classify(call, control);
    const command = kind === 'control' || kind === 'read' ? undefined : commandRunOf(call);
    if (command !== undefined) kind = 'command';
    const targets =
      command !== undefined
        ? commandPaths(command.argv, relative)
        : kind === 'control'
          ? []
          : pathArguments(call.args, relative);
    const evidence: CallEvidence = { call, index, kind, targets };
    if (command !== undefined) {
      evidence.command = command;
      commands.push({ run: command, callId: call.callId, index, ran: call.status === 'success' });
    }
    calls.push(evidence);
    if (call.status === 'pending') {
      pending.push(call);
      return;
    }
    if (call.status !== 'success') return;
    if (kind === 'control') {
      controlCalls.push(call);
      return;
    }
    successCount += 1;
    if (kind === 'read' || (kind === 'command' && command?.exploratory)) {
      readCount += 1;
      for (const target of targets) read.set(target, call.callId);
      return;
    }
    effectCount += 1;
    for (const target of targets) touched.set(target, call.callId);
    const into = kind === 'delete' ? deleted : kind === 'write' ? written : undefined;
    if (into) for (const target of targets) into.set(target, call.callId);
    if (kind === 'write' && targets.length === 1) {
      const content =
        (call.args as Record<string, unknown>)?.content ?? (call.args as Record<string, unknown>)?.contents;
      if (typeof content === 'string') writtenContent.set(targets[0] as string, content);
      else writtenContent.delete(targets[0] as string);
      if (typeof call.result === 'string' && /"created"\s*:\s*false\b/.test(call.result))
        overwritten.add(targets[0] as string);
    }
  });

  const errors: LedgerError[] = [];
  for (const evidence of calls) {
    if (evidence.call.status !== 'error') continue;
    const later = calls.slice(evidence.index + 1);
    const recovery = later.find((candidate) => {
      if (candidate.call.status !== 'success') return false;
      // A refused mark_step is recovered by a later accepted one, and by nothing else.
      if (evidence.kind === 'control' || candidate.kind === 'control')
        return evidence.kind === 'control' && candidate.call.tool === evidence.call.tool;
      if (evidence.command !== undefined && candidate.command !== undefined)
        return candidate.command.key === evidence.command.key && !candidate.command.failed;
      if (evidence.targets.length > 0)
        return evidence.targets.some((target) => candidate.targets.some((other) => overlaps(target, other)));
      return candidate.call.tool === evidence.call.tool && candidate.targets.length === 0;
    });
    errors.push({
      call: evidence.call,
      recovered: recovery !== undefined,
      ...(recovery ? { recoveredBy: recovery.call.callId } : {}),
      exploratory: evidence.kind === 'read' || evidence.command?.exploratory === true,
    });
  }

  const failedCommands: FailedCommand[] = [];
  const lastByKey = new Map<string, { run: CommandRun; callId: string }>();
  for (const { run, callId, ran } of commands) {
    // A command the tool refused or could not start is a ledger error, not a failed run.
    if (run.exploratory || !ran) continue;
    if (run.failed || run.passed) lastByKey.set(run.key, { run, callId });
  }
  for (const last of lastByKey.values()) if (last.run.failed) failedCommands.push(last);

  return {
    calls,
    pending,
    errors,
    successCount,
    effectCount,
    readCount,
    controlCalls,
    commands,
    failedCommands,
    written,
    overwritten,
    writtenContent,
    deleted,
    read,
    touched,
  };
}
