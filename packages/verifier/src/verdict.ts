import type { VerificationRecordInput } from '@closedloop/plan';
import type { Finding } from './finding';

/**
 * The decision of a verification (the P0/P1/P2 decision tree, failing closed):
 * - `failed`: a P0 check failed;
 * - `retry`: a P1 check failed (and no P0);
 * - `unverified`: nothing failed, but a required (P0/P1) check could not run, or no check about
 *   the asked-for outcome passed (no findings, only skips, only bookkeeping checks);
 * - `success-with-warnings`: outcome evidence passed; only P2 failures, warnings, or P2 errors;
 * - `success`: outcome evidence passed and everything that ran passed (skips do not count).
 */
export type Verdict = 'success' | 'success-with-warnings' | 'retry' | 'failed' | 'unverified';

/** How long one check or protocol took. */
export interface CheckTiming {
  check: string;
  ms: number;
}

/** The result of `verifyStep` and `verifyGoal`. */
export interface VerificationReport {
  verdict: Verdict;
  /** Every finding, in the order the checks ran. */
  findings: Finding[];
  /** The findings with status `error`: checks that crashed, timed out or could not start. */
  infrastructureErrors: Finding[];
  timings: CheckTiming[];
  /** 0..1, when a confidence signal was given or inherited (see `propagateConfidence`). */
  confidence?: number;
  /**
   * True when the result must be treated as unverified downstream: the verdict is `unverified`,
   * the confidence is in the 0.4–0.7 band, or an upstream step was unverified.
   */
  unverified: boolean;
}

/**
 * Checks that keep the books rather than look at the asked-for outcome: their passes are never
 * evidence of success (a clean ledger, a `[SUCCESS]` tag, a satisfied tool contract, a model
 * that ended properly). Every other check — claims, the step's outcome criteria, the final
 * state, protocols such as TEST or BUILD, custom protocols — is outcome evidence.
 */
export const PROCESS_CHECKS: ReadonlySet<string> = new Set([
  'ledger',
  'notes',
  'required-tools',
  'effects',
  'execution',
  'commands',
  'confidence',
  'tampering',
  'hollow',
  'plan',
]);

/** True when a finding is a passing check about the asked-for outcome. */
export function isOutcomeEvidence(finding: Finding): boolean {
  return finding.status === 'pass' && !PROCESS_CHECKS.has(finding.check);
}

/** Applies the decision tree to a list of findings. */
export function decideVerdict(findings: readonly Finding[]): Verdict {
  let p0Fail = false;
  let p1Fail = false;
  let requiredError = false;
  let warning = false;
  let evidence = false;
  for (const finding of findings) {
    if (isOutcomeEvidence(finding)) evidence = true;
    switch (finding.status) {
      case 'fail':
        if (finding.priority === 'P0') p0Fail = true;
        else if (finding.priority === 'P1') p1Fail = true;
        else warning = true;
        break;
      case 'error':
        if (finding.priority === 'P2') warning = true;
        else requiredError = true;
        break;
      case 'warn':
        warning = true;
        break;
      default:
        break;
    }
  }
  if (p0Fail) return 'failed';
  if (p1Fail) return 'retry';
  if (requiredError || !evidence) return 'unverified';
  if (warning) return 'success-with-warnings';
  return 'success';
}

/**
 * Why a report is unverified, in one line: the checks that could not run, or the absence of
 * any passing check about the outcome. `undefined` for other verdicts.
 */
export function unverifiedReason(findings: readonly Finding[]): string | undefined {
  if (decideVerdict(findings) !== 'unverified') return undefined;
  const errors = findings.filter((finding) => finding.status === 'error' && finding.priority !== 'P2');
  if (errors.length > 0) return errors.map((finding) => `${finding.check}: ${finding.message}`).join('; ');
  const skipped = findings.filter((finding) => finding.status === 'skip');
  return `no check about the asked-for outcome passed${skipped.length > 0 ? ` (skipped: ${skipped.map((finding) => finding.message).join('; ')})` : ''}: nothing shows the step did what it was asked.`;
}

/** Builds a report from findings and timings (verdict by {@link decideVerdict}). */
export function createReport(options: {
  findings: Finding[];
  timings: CheckTiming[];
  confidence?: number;
  unverified?: boolean;
}): VerificationReport {
  const verdict = decideVerdict(options.findings);
  return {
    verdict,
    findings: options.findings,
    infrastructureErrors: options.findings.filter((finding) => finding.status === 'error'),
    timings: options.timings,
    ...(options.confidence !== undefined ? { confidence: options.confidence } : {}),
    unverified: verdict === 'unverified' || options.unverified === true,
  };
}

/**
 * Converts a report into the record `plan.recordVerification(stepId, record)` stores.
 *
 * @example
 * plan.recordVerification('s1', toVerificationRecord(await verifyStep(plan, 's1', { workspace })));
 */
export function toVerificationRecord(report: VerificationReport): VerificationRecordInput {
  return {
    verdict: report.verdict,
    ...(report.confidence !== undefined ? { confidence: report.confidence } : {}),
    unverified: report.unverified,
    findings: report.findings.map((finding) => ({
      check: finding.check,
      priority: finding.priority,
      status: finding.status,
      message: finding.message,
    })),
  };
}
