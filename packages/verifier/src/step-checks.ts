import type { ParsedStepNotes } from '@closedloop/plan';
import { admitsFailure } from './admits-failure';
import { type Claim, describeClaim } from './claim-types';
import type { Finding } from './finding';
import { DEFAULT_CONTROL_TOOLS, type LedgerAnalysis } from './ledger-evidence';
import { VerifierError } from './verifier-error';

export {
  analyseLedger,
  type CallEvidence,
  type CallKind,
  DEFAULT_CONTROL_TOOLS,
  evidenceCalls,
  type FailedCommand,
  type LedgerAnalysis,
  type LedgerError,
  type LedgerEvidenceOptions,
} from './ledger-evidence';

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

/**
 * Ledger check: a `pending` call never returned (P0, the hallucination signal); a call that ended
 * in `error` is a P1 failure until a later successful call acted on the *same target* (same
 * path, same command) — then a P2 warning. A failed read (a missing file probed, a listing) is
 * exploration: a P2 warning, never a contradiction.
 */
export function checkLedger(analysis: LedgerAnalysis): Finding[] {
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
  for (const { call, recovered, recoveredBy, exploratory } of analysis.errors) {
    const error = (call.error ?? call.result ?? '').slice(0, 300);
    const what = `Tool call ${call.tool} (${call.callId}) failed${error ? ` (${error})` : ''}`;
    if (recovered) {
      findings.push({
        check: 'ledger',
        priority: 'P2',
        status: 'warn',
        message: `${what}; a later call on the same target (${recoveredBy}) succeeded.`,
        evidence: { callId: call.callId },
      });
    } else if (exploratory) {
      findings.push({
        check: 'ledger',
        priority: 'P2',
        status: 'warn',
        message: `${what}: a read that found nothing (exploration, not an effect).`,
        evidence: { callId: call.callId },
      });
    } else {
      findings.push({
        check: 'ledger',
        priority: 'P1',
        status: 'fail',
        message: `${what} and no later call on the same target succeeded.`,
        evidence: { callId: call.callId },
      });
    }
  }
  if (findings.length === 0) {
    const total = analysis.calls.length;
    findings.push({
      check: 'ledger',
      priority: 'P0',
      status: 'pass',
      message: total === 0 ? 'No tool calls.' : `${total} tool call(s), all returned successfully.`,
    });
  }
  return findings;
}

/** What the step said about itself: its notes and its final text. */
export interface StepReport {
  notes: ParsedStepNotes;
  /** The step's final text (the executor's `output`), when it has one. */
  output?: string;
  /** The step made structured claims (`mark_step` claims). */
  claimed?: boolean;
}

/**
 * Notes check: `[FAIL]` in the notes, or in a final text when the step never called `mark_step`,
 * is P0. A step that made calls and then never reported (no notes, no claims, no final answer —
 * the model stopped mid-step) is P1. `[SUCCESS]` contradicted by a pending call (P0), an unrecovered tool error (P1), or by
 * the step's own words admitting failure ("could not write…", "failed to run the tests",
 * "无法…", "できませんでした") is a contradiction (P1: retry). Only the step's own words are
 * read: tool results are never read as status.
 */
export function checkNotes(report: StepReport, analysis: LedgerAnalysis): Finding[] {
  const { notes } = report;
  const outputTag = /^\s*\[(SUCCESS|FAIL)\]/i.exec(report.output ?? '')?.[1]?.toUpperCase();
  if (notes.status === 'fail' || (notes.status === 'none' && outputTag === 'FAIL')) {
    const message =
      notes.status === 'fail' ? notes.message : (report.output ?? '').replace(/^\s*\[FAIL\]\s*:?\s*/i, '');
    return [
      {
        check: 'notes',
        priority: 'P0',
        status: 'fail',
        message: `The step reported failure: ${message.trim() || '(no reason given)'}`,
      },
    ];
  }
  const findings: Finding[] = [];
  const success = notes.status === 'success';
  if (success) {
    for (const call of analysis.pending) {
      findings.push({
        check: 'notes',
        priority: 'P0',
        status: 'fail',
        message: `[SUCCESS] is claimed but tool call ${call.tool} (${call.callId}) never returned.`,
        evidence: { callId: call.callId, claim: notes.message },
      });
    }
    for (const { call, recovered, exploratory } of analysis.errors) {
      if (recovered || exploratory) continue;
      findings.push({
        check: 'notes',
        priority: 'P1',
        status: 'fail',
        message: `[SUCCESS] is claimed but tool call ${call.tool} (${call.callId}) failed and nothing on the same target succeeded later.`,
        evidence: { callId: call.callId, claim: notes.message },
      });
    }
  }
  if (
    notes.status === 'none' &&
    notes.message.trim() === '' &&
    (report.output ?? '').trim() === '' &&
    !report.claimed &&
    analysis.calls.length > 0
  ) {
    findings.push({
      check: 'notes',
      priority: 'P1',
      status: 'fail',
      message:
        'The step never reported its result: no mark_step and no final answer (the model may have stopped mid-step).',
    });
  }
  const admission = admitsFailure(notes.message) ?? admitsFailure(report.output ?? '');
  if (admission !== undefined) {
    findings.push({
      check: 'notes',
      priority: 'P1',
      status: 'fail',
      message: `${success ? '[SUCCESS] is claimed, but the step' : 'The step'} admits it did not do its work: "${admission}".`,
      evidence: { claim: admission },
    });
  }
  if (findings.length > 0) return findings;
  return [
    {
      check: 'notes',
      priority: 'P0',
      status: 'pass',
      message: success
        ? 'Notes report [SUCCESS]; the ledger does not contradict them.'
        : notes.message === ''
          ? 'No notes: the step did not report on itself.'
          : 'Notes carry no [SUCCESS]/[FAIL] tag.',
    },
  ];
}

const EFFECT_CLAIMS: ReadonlySet<Claim['kind']> = new Set([
  'file-written',
  'file-deleted',
  'file-moved',
  'symbol-added',
  'git-commit',
  'git-branch',
  'git-tag',
  'git-push',
  'dependency-installed',
]);

/**
 * Effects check: a step whose only successful calls read (or that made none) cannot have written
 * a file, added a symbol, committed or installed anything; a step with no successful call at all
 * cannot have run a command. Such claims are text-only hallucinations (P0). Control tools
 * (`mark_step`) never count: the call that *states* the claims is not evidence for them.
 */
export function checkEffects(claims: readonly Claim[], analysis: LedgerAnalysis): Finding[] {
  if (claims.length === 0) {
    return [{ check: 'effects', priority: 'P0', status: 'pass', message: 'The step claims no effects.' }];
  }
  const effects = claims.filter((claim) => EFFECT_CLAIMS.has(claim.kind));
  const runs = claims.filter((claim) => !EFFECT_CLAIMS.has(claim.kind));
  const unsupported = [
    ...(analysis.effectCount === 0 ? effects : []),
    ...(analysis.successCount === 0 ? runs : []),
  ];
  if (unsupported.length === 0) {
    return [
      {
        check: 'effects',
        priority: 'P0',
        status: 'pass',
        message: `${claims.length} claimed effect(s) rest on ${analysis.successCount} successful tool call(s) (${analysis.effectCount} that can change the workspace).`,
      },
    ];
  }
  const control = [...new Set(analysis.controlCalls.map((call) => call.tool))];
  const controlNote =
    control.length > 0
      ? `; the control tool ${control.join(', ')} only reports the step and is no evidence`
      : '';
  const what =
    analysis.successCount === 0
      ? 'no tool call succeeded'
      : `only read-only calls succeeded (${analysis.readCount})`;
  return [
    {
      check: 'effects',
      priority: 'P0',
      status: 'fail',
      message: `The step claims effects (${unsupported.map(describeClaim).join('; ')}) but ${what}${controlNote}: text-only effects are hallucinations.`,
      evidence: {
        claim: unsupported[0]?.text ?? '',
        ...(analysis.controlCalls[0] ? { callId: analysis.controlCalls[0].callId } : {}),
      },
    },
  ];
}
