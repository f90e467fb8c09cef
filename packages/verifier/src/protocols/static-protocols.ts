import type { ToolCallRecord } from '@closedloop/plan';
import type { Finding } from '../finding';
import type { Protocol } from '../protocol';
import { addedLines } from './added-lines';
import { canCheckSyntax, checkSyntax } from './syntax-check';

export { syntaxErrors } from './syntax-check';

function syntaxFiles(files: readonly string[]): string[] {
  return files.filter(
    (file) =>
      canCheckSyntax(file) &&
      !file.endsWith('.d.ts') &&
      !/(?:^|\/)(?:tsconfig|jsconfig)[^/]*\.json$/.test(file),
  );
}

/**
 * SYNTAX (layer 1, P0): every changed JS/TS, Python, Go, Rust, Java, PHP and JSON file parses.
 * The lezer grammar reads each file; errors it reports are confirmed or refuted by the
 * language's own toolchain through the command policy (see {@link checkSyntax}). Confirmed
 * errors fail; errors no toolchain could confirm are an `error` finding (unverified, never a
 * pass and never a failure on the grammar's word alone).
 */
export const syntaxProtocol: Protocol = {
  name: 'SYNTAX',
  description:
    'No syntax errors in changed source and JSON files (lezer grammars; the language toolchain confirms errors).',
  priority: 'P0',
  layer: 1,
  group: 1,
  timeoutMs: 60_000,
  async appliesTo(ctx) {
    return syntaxFiles(await ctx.changedFiles()).length > 0;
  },
  async run(ctx): Promise<Finding[]> {
    const files = syntaxFiles(await ctx.changedFiles());
    const findings: Finding[] = [];
    for (const file of files) {
      const text = ctx.facts.read(file);
      if (text === undefined) continue;
      const check = await checkSyntax(file, text, { run: (argv, options) => ctx.run(argv, options) });
      const shown = check.errors.slice(0, 3).join(' | ');
      if (check.status === 'invalid') {
        findings.push({
          check: 'SYNTAX',
          priority: 'P0',
          status: 'fail',
          message: `${file} has ${check.errors.length} syntax error(s) (${check.checkedBy}): ${shown}`,
          evidence: { file },
        });
      } else if (check.status === 'unconfirmed') {
        // The grammar alone is no proof: it may not know the syntax. Unverified, not failed.
        findings.push({
          check: 'SYNTAX',
          priority: 'P0',
          status: 'error',
          message: `${file}: the parser reports ${check.errors.length} syntax error(s) (${shown}) that no toolchain could confirm (${check.reason}); its syntax is unverified.`,
          evidence: { file },
        });
      }
    }
    if (findings.length === 0) {
      findings.push({
        check: 'SYNTAX',
        priority: 'P0',
        status: 'pass',
        message: `${files.length} changed file(s) parse.`,
      });
    }
    return findings;
  },
};

const TODO_MARKER = /\b(?:TODO|FIXME|XXX|HACK)\b/;

/** TODO (layer 1, P2): no TODO/FIXME/XXX/HACK markers added by the change. */
export const todoProtocol: Protocol = {
  name: 'TODO',
  description: 'No TODO/FIXME/XXX/HACK markers added in changed files.',
  priority: 'P2',
  layer: 1,
  group: 2,
  timeoutMs: 30_000,
  async appliesTo(ctx) {
    return (await ctx.changedFiles()).length > 0;
  },
  async run(ctx): Promise<Finding[]> {
    const lines = await addedLines(ctx);
    const findings: Finding[] = [];
    for (const [file, added] of lines) {
      const markers = added.filter(({ line }) => TODO_MARKER.test(line));
      if (markers.length > 0) {
        findings.push({
          check: 'TODO',
          priority: 'P2',
          status: 'warn',
          message: `${file}: ${markers.length} TODO/FIXME marker(s) added (line ${markers.map((m) => m.number).join(', ')}).`,
          evidence: {
            file,
            diffHunk: markers
              .map((m) => `+${m.line.trim()}`)
              .join('\n')
              .slice(0, 1000),
          },
        });
      }
    }
    if (findings.length === 0) {
      findings.push({
        check: 'TODO',
        priority: 'P2',
        status: 'pass',
        message: `No TODO/FIXME added in ${lines.size} file(s).`,
      });
    }
    return findings;
  },
};

/** Signatures of uncaught errors and crashes in command output. */
const CRASH_PATTERNS: { pattern: RegExp; label: string }[] = [
  { pattern: /^Uncaught\s+\w*(?:Error|Exception)\b/m, label: 'uncaught exception' },
  { pattern: /UnhandledPromiseRejection|Unhandled promise rejection/, label: 'unhandled promise rejection' },
  { pattern: /^Traceback \(most recent call last\):/m, label: 'Python traceback' },
  { pattern: /^panic: /m, label: 'Go panic' },
  { pattern: /thread '.*' panicked at/, label: 'Rust panic' },
  { pattern: /Segmentation fault|core dumped/, label: 'segmentation fault' },
  { pattern: /FATAL ERROR: .*JavaScript heap out of memory/, label: 'out of memory' },
  {
    pattern: /^(?:[\w.]*(?:Error|Exception)(?: \[[A-Z_]+\])?): .+\n\s+at .+[:(]\d+:\d+\)?$/m,
    label: 'uncaught error with stack trace',
  },
];

const COMMAND_TOOL = /command|shell|bash|exec|terminal|run|script|process/i;

/** True when the ledger holds a finished call of a command-running tool. */
export function hasCommandRuns(ledger: readonly ToolCallRecord[]): boolean {
  return ledger.some((call) => call.status !== 'pending' && COMMAND_TOOL.test(call.tool));
}

/** The last finished run of each distinct command (same tool, same arguments) in the ledger. */
export function lastCommandRuns(ledger: readonly ToolCallRecord[]): ToolCallRecord[] {
  const lastRun = new Map<string, ToolCallRecord>();
  for (const call of ledger) {
    if (call.status === 'pending' || !COMMAND_TOOL.test(call.tool)) continue;
    lastRun.set(`${call.tool}:${JSON.stringify(call.args)}`, call);
  }
  return [...lastRun.values()];
}

/** The first crash signature in a text, if any. */
export function findCrash(text: string): { label: string; line: string } | undefined {
  for (const { pattern, label } of CRASH_PATTERNS) {
    const match = pattern.exec(text);
    if (match) return { label, line: match[0].split('\n')[0]?.slice(0, 300) ?? '' };
  }
  return undefined;
}

/**
 * ERROR_FREE (layer 1, P1): the last run of every command in the ledger ended without an
 * uncaught error (stack traces, tracebacks, panics, unhandled rejections). Tool output is only
 * ever used to find failures here, never to conclude success.
 */
export const errorFreeProtocol: Protocol = {
  name: 'ERROR_FREE',
  description: 'The last run of each command in the ledger shows no uncaught error or crash.',
  priority: 'P1',
  layer: 1,
  group: 2,
  timeoutMs: 30_000,
  appliesTo(ctx) {
    return hasCommandRuns(ctx.ledger);
  },
  async run(ctx): Promise<Finding[]> {
    const lastRun = lastCommandRuns(ctx.ledger);
    const findings: Finding[] = [];
    for (const call of lastRun) {
      const crash = findCrash(`${call.result ?? ''}\n${call.error ?? ''}`);
      if (crash) {
        findings.push({
          check: 'ERROR_FREE',
          priority: 'P1',
          status: 'fail',
          message: `The last ${call.tool} run (${JSON.stringify(call.args).slice(0, 120)}) shows a ${crash.label}: ${crash.line}`,
          evidence: { callId: call.callId, output: crash.line },
        });
      }
    }
    if (findings.length === 0) {
      findings.push({
        check: 'ERROR_FREE',
        priority: 'P1',
        status: 'pass',
        message: `No uncaught errors in the last run of ${lastRun.length} command(s).`,
      });
    }
    return findings;
  },
};
