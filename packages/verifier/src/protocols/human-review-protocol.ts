import type { Finding } from '../finding';
import type { HumanReviewDecision, Protocol, ProtocolContext } from '../protocol';
import { detectArchitectureChanges, isArchitectureChange } from './architecture-changes';

async function reviewReasons(ctx: ProtocolContext): Promise<string[]> {
  const reasons: string[] = [];
  const changes = await detectArchitectureChanges(ctx);
  if (changes.securitySensitive.length > 0) {
    reasons.push(`security-sensitive files changed: ${changes.securitySensitive.join(', ')}`);
  }
  if (isArchitectureChange(changes)) {
    const parts: string[] = [];
    if (changes.newFiles.length) parts.push(`${changes.newFiles.length} new file(s)`);
    if (changes.dependencyChanges.length) parts.push('dependency changes');
    if (changes.removedExports.length) parts.push(`${changes.removedExports.length} removed export(s)`);
    reasons.push(`architecture change: ${parts.join(', ')}`);
  }
  for (const finding of ctx.previousFindings) {
    if (finding.details?.verdict === 'NEEDS_REVIEW') reasons.push(`${finding.check} verdict NEEDS_REVIEW`);
  }
  return reasons;
}

/** approve → pass; modify → P1 fail (verdict `retry`); reject → P0 fail. */
const DECISIONS: Readonly<
  Record<HumanReviewDecision['decision'], { priority: 'P0' | 'P1'; status: 'pass' | 'fail'; message: string }>
> = {
  approve: { priority: 'P1', status: 'pass', message: 'Approved by a human' },
  modify: { priority: 'P1', status: 'fail', message: 'A human asked for changes' },
  reject: { priority: 'P0', status: 'fail', message: 'Rejected by a human' },
};

/**
 * HUMAN_REVIEW (layer 6, P1): when security-sensitive files, architecture changes or a judge's
 * NEEDS_REVIEW call for it, asks `onHumanReview` (approve → pass, modify → P1 fail, reject →
 * P0 fail). Triggered without a reviewer configured → P2 warning. Not triggered → skip.
 */
export const humanReviewProtocol: Protocol = {
  name: 'HUMAN_REVIEW',
  description: 'Human acceptance for security-sensitive, architectural or judge-flagged changes.',
  priority: 'P1',
  layer: 6,
  group: 5,
  async appliesTo(ctx) {
    return (await reviewReasons(ctx)).length > 0;
  },
  async run(ctx, signal): Promise<Finding[]> {
    const reasons = await reviewReasons(ctx);
    if (!ctx.onHumanReview) {
      return [
        {
          check: 'HUMAN_REVIEW',
          priority: 'P2',
          status: 'warn',
          message: `Human review is required (${reasons.join('; ')}) but no onHumanReview handler is configured.`,
        },
      ];
    }
    const changedFiles = await ctx.changedFiles();
    const risks = ctx.previousFindings.flatMap((finding) =>
      Array.isArray(finding.details?.risks) ? (finding.details.risks as unknown[]).map(String) : [],
    );
    const problems = ctx.previousFindings.filter(
      (finding) => finding.status === 'fail' || finding.status === 'warn',
    );
    const summary = [
      `${changedFiles.length} changed file(s): ${changedFiles.slice(0, 20).join(', ')}`,
      ...problems.slice(0, 10).map((finding) => `${finding.check} ${finding.status}: ${finding.message}`),
    ].join('\n');
    const decision = await ctx.onHumanReview(
      { request: ctx.request, reasons, summary, changedFiles, risks, diff: await ctx.facts.diff() },
      { signal },
    );
    const comment = decision.comment ? `: ${decision.comment}` : '';
    const outcome = Object.hasOwn(DECISIONS, decision.decision) ? DECISIONS[decision.decision] : undefined;
    if (!outcome) {
      return [
        {
          check: 'HUMAN_REVIEW',
          priority: 'P1',
          status: 'error',
          message: `onHumanReview returned an unknown decision ${JSON.stringify((decision as { decision?: unknown }).decision)}.`,
        },
      ];
    }
    return [
      {
        check: 'HUMAN_REVIEW',
        priority: outcome.priority,
        status: outcome.status,
        message: `${outcome.message}${comment}.`,
        details: { decision: decision.decision },
      },
    ];
  },
};
