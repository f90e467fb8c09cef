import type { Plan, Step } from '@closedloop/plan';
import { type Claim, describeClaim } from './claim-types';
import { canFindSymbols, findSymbol } from './find-symbol';
import type { Finding } from './finding';
import type { WorkspaceFacts } from './workspace-facts';

/** The claims of a step that describe a state the final workspace must still show. */
type StateClaim = Extract<Claim, { kind: 'file-written' | 'file-deleted' | 'file-moved' | 'symbol-added' }>;

function isStateClaim(claim: Claim): claim is StateClaim {
  return (
    claim.kind === 'file-written' ||
    claim.kind === 'file-deleted' ||
    claim.kind === 'file-moved' ||
    claim.kind === 'symbol-added'
  );
}

/** When a step last acted (its last ledger answer), to order the steps' claims. */
function lastActivity(step: Step): number {
  let last = 0;
  for (const call of step.ledger) last = Math.max(last, call.respondedAt ?? call.calledAt);
  return last;
}

function pathsOf(claim: StateClaim): string[] {
  if (claim.kind === 'file-moved') return [claim.from, claim.to];
  return claim.file !== undefined ? [claim.file] : [];
}

/**
 * The goal is judged on the final workspace, not on the steps' stories: every completed step's
 * state claims (files written, deleted or moved, symbols added) are re-checked against the
 * workspace as the run leaves it — a later or parallel step may have undone an earlier one. Only
 * a later step's claimed deletion or move of the same path supersedes a claim. Each claim that no
 * longer holds is a P1 failure naming its step.
 */
export async function checkFinalState(
  plan: Plan,
  facts: WorkspaceFacts,
  claimsOf: (step: Step) => Claim[],
): Promise<Finding[]> {
  const steps = plan.steps
    .filter((step) => step.status === 'completed')
    .map((step) => ({ step, at: lastActivity(step), claims: claimsOf(step).filter(isStateClaim) }))
    .sort((a, b) => a.at - b.at);
  /** path → index of the last step that claimed to delete or move it away. */
  const lastRemoval = new Map<string, number>();
  steps.forEach(({ claims }, index) => {
    for (const claim of claims) {
      const removed =
        claim.kind === 'file-deleted' ? claim.file : claim.kind === 'file-moved' ? claim.from : undefined;
      if (removed !== undefined) lastRemoval.set(facts.relative(removed) ?? removed, index);
    }
  });
  const findings: Finding[] = [];
  let held = 0;
  for (const [index, { step, claims }] of steps.entries()) {
    for (const claim of claims) {
      const files = pathsOf(claim).map((file) => facts.relative(file) ?? file);
      // A later step that deleted or moved the path on purpose supersedes the claim; a later
      // rewrite does not (what the earlier step added must still be there).
      if (files.some((file) => (lastRemoval.get(file) ?? -1) > index)) continue;
      const problem = await stateProblem(claim, facts);
      if (problem === undefined) {
        held += 1;
        continue;
      }
      findings.push({
        check: 'final-state',
        priority: 'P1',
        status: 'fail',
        message: `Step ${step.id}'s claim "${describeClaim(claim)}" does not hold in the final workspace: ${problem}.`,
        evidence: { claim: claim.text, ...(files[0] ? { file: files[0] } : {}) },
      });
    }
  }
  if (findings.length === 0 && held > 0) {
    findings.push({
      check: 'final-state',
      priority: 'P1',
      status: 'pass',
      message: `${held} claim(s) of ${steps.length} completed step(s) hold in the final workspace.`,
    });
  }
  return findings;
}

async function stateProblem(claim: StateClaim, facts: WorkspaceFacts): Promise<string | undefined> {
  switch (claim.kind) {
    case 'file-written': {
      const rel = facts.relative(claim.file);
      if (rel === undefined) return `${claim.file} is outside the workspace`;
      return facts.isFile(rel) ? undefined : `${rel} does not exist`;
    }
    case 'file-deleted': {
      const rel = facts.relative(claim.file);
      return rel !== undefined && facts.exists(rel) ? `${rel} exists again` : undefined;
    }
    case 'file-moved': {
      const to = facts.relative(claim.to);
      return to !== undefined && facts.exists(to) ? undefined : `${claim.to} does not exist`;
    }
    case 'symbol-added': {
      if (claim.file === undefined) return undefined;
      const rel = facts.relative(claim.file);
      if (rel === undefined || !facts.isFile(rel)) return `${claim.file} does not exist`;
      if (!canFindSymbols(rel)) return undefined;
      const text = facts.read(rel);
      if (text === undefined) return undefined;
      return (await findSymbol({ fileName: rel, text, name: claim.name, kind: claim.symbolKind }))
        ? undefined
        : `${rel} no longer declares ${claim.name}`;
    }
  }
}
