import type { Step, ToolCallRecord } from './schema';
import { toText } from './to-text';

/** Options of `plan.formatToolHistory` / {@link formatStepHistory}. */
export interface FormatToolHistoryOptions {
  /** Longest tool result (or error, or step output) shown, in characters. Default 2000. */
  maxResultChars?: number;
  /** Longest single argument value shown, in characters. Default 200. */
  maxArgChars?: number;
}

const DEFAULT_MAX_RESULT_CHARS = 2000;
const DEFAULT_MAX_ARG_CHARS = 200;

/** Cuts `text` to `max` characters and says how much was cut: `abc…[truncated 12 chars]`. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max))}…[truncated ${text.length - Math.max(0, max)} chars]`;
}

function renderValue(value: unknown, max: number): string {
  if (typeof value === 'string') return JSON.stringify(truncateText(value, max));
  return truncateText(toText(value), max);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function renderArgs(args: unknown, maxArgChars: number): string {
  if (args === undefined) return '';
  if (isPlainObject(args)) {
    // Same text as `Object.entries(args).map(…).join(', ')`, without the intermediate arrays.
    let text = '';
    for (const key of Object.keys(args)) {
      text += `${text === '' ? '' : ', '}${key}=${renderValue(args[key], maxArgChars)}`;
    }
    return text;
  }
  return renderValue(args, maxArgChars);
}

function renderCall(call: ToolCallRecord, maxResultChars: number, maxArgChars: number): string {
  const head = `- ${call.tool}(${renderArgs(call.args, maxArgChars)})`;
  switch (call.status) {
    case 'pending':
      return `${head} → status: pending ❌`;
    case 'error':
      return `${head} → error: ${JSON.stringify(truncateText(call.error ?? '', maxResultChars))} ❌`;
    case 'success':
      return `${head} → ${JSON.stringify(truncateText(call.result ?? '', maxResultChars))}`;
  }
}

/**
 * Renders one step the way the replanner reads it: header with id, title and status, its
 * dependencies, notes, output, files, verification findings, one line per earlier attempt
 * archived by `resetStep`, then every tool call of the current attempt with its arguments
 * (`key=JSON`) and result or `status: pending ❌`. Long values are cut with a
 * `…[truncated N chars]` marker.
 */
export function formatStepHistory(step: Step, options: FormatToolHistoryOptions = {}): string {
  const maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const maxArgChars = options.maxArgChars ?? DEFAULT_MAX_ARG_CHARS;
  const lines = [`### Step ${step.id}: ${step.title ?? step.description} [${step.status}]`];
  if (step.title !== undefined && step.title !== step.description) {
    lines.push(`Description: ${step.description}`);
  }
  if (step.dependsOn.length > 0) lines.push(`Depends on: ${step.dependsOn.join(', ')}`);
  if (step.notes.trim() !== '') lines.push(`Notes: ${step.notes.trim()}`);
  if (step.output !== undefined && step.output !== '') {
    lines.push(`Output: ${truncateText(step.output, maxResultChars)}`);
  }
  if (step.files.length > 0) lines.push(`Files: ${step.files.join(', ')}`);
  if (step.verification !== undefined) {
    lines.push(`Verification: ${step.verification.verdict}`);
    for (const finding of step.verification.findings) {
      if (finding.status === 'pass' || finding.status === 'skip') continue;
      lines.push(`  - [${finding.priority}] ${finding.check} (${finding.status}): ${finding.message}`);
    }
  }
  if (step.previousAttempts.length > 0) {
    // Reset attempts (`plan.resetStep`): one line each; their calls are not this attempt's evidence.
    lines.push(`Earlier attempts: ${step.previousAttempts.length}`);
    for (const [index, attempt] of step.previousAttempts.entries()) {
      const pending = attempt.ledger.filter((call) => call.status === 'pending').length;
      const calls = `${attempt.ledger.length} tool call${attempt.ledger.length === 1 ? '' : 's'}${pending > 0 ? ` (${pending} unanswered)` : ''}`;
      const verdict = attempt.verification ? `, verification ${attempt.verification.verdict}` : '';
      lines.push(
        `  - #${index + 1} ${attempt.status}, reset: ${truncateText(attempt.reason, maxArgChars)}; ${calls}${verdict}`,
      );
    }
  }
  if (step.ledger.length === 0) {
    lines.push('Tool calls: none');
  } else {
    lines.push('Tool calls:');
    for (const call of step.ledger) lines.push(renderCall(call, maxResultChars, maxArgChars));
  }
  return lines.join('\n');
}
