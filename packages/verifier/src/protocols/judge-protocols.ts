import { type ChatModel, generateObject } from '@closedloop/model';
import { z } from 'zod';
import type { Finding, Priority } from '../finding';
import type { Protocol } from '../protocol';
import { detectArchitectureChanges, isArchitectureChange } from './architecture-changes';

/** The LLM-as-judge answer (layer 5, JSON). */
export const judgeVerdictSchema = z.object({
  functionality_score: z.number().min(0).max(10),
  quality_score: z.number().min(0).max(10),
  risks: z.array(z.string()),
  verdict: z.enum(['PASS', 'FAIL', 'NEEDS_REVIEW']),
  reasoning: z.string(),
});
export type JudgeVerdict = z.infer<typeof judgeVerdictSchema>;

const JUDGE_SYSTEM =
  'You are a strict code reviewer. You judge a code change only by the requirement, the acceptance criteria and the diff. ' +
  'You never trust claims about the change; only what the diff shows counts. Answer with JSON only.';

/** Builds the layer-5 judge prompt : requirement, diff, criteria — no executor narrative. */
export function buildJudgePrompt(options: {
  requirement: string;
  diff: string;
  acceptanceCriteria: readonly string[];
  focus?: string;
}): string {
  const criteria =
    options.acceptanceCriteria.length > 0
      ? options.acceptanceCriteria.map((criterion) => `- ${criterion}`).join('\n')
      : '- (none given beyond the requirement)';
  return [
    '## Task',
    options.focus ?? 'Evaluate whether the following code change correctly implements the requirement.',
    '',
    '## Requirement',
    options.requirement || '(no requirement given)',
    '',
    '## Acceptance criteria',
    criteria,
    '',
    '## Code change (diff)',
    '```diff',
    options.diff,
    '```',
    '',
    '## Evaluation criteria',
    '1. Functional correctness (0-10)',
    '2. Code quality (0-10)',
    '3. Potential risks (list them)',
    '',
    'Answer format (JSON):',
    '{ "functionality_score": number, "quality_score": number, "risks": string[], "verdict": "PASS" | "FAIL" | "NEEDS_REVIEW", "reasoning": string }',
  ].join('\n');
}

/** Asks `model` for a {@link JudgeVerdict} (through `generateObject`: native structured output or JSON in text). */
export async function judgeChange(
  model: ChatModel,
  options: {
    requirement: string;
    diff: string;
    acceptanceCriteria: readonly string[];
    focus?: string;
    signal?: AbortSignal;
  },
): Promise<JudgeVerdict> {
  const { object } = await generateObject(model, judgeVerdictSchema, {
    system: JUDGE_SYSTEM,
    prompt: buildJudgePrompt(options),
    name: 'judge_verdict',
    temperature: 0,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return object;
}

const VERDICT_STATUS = { PASS: 'pass', FAIL: 'fail', NEEDS_REVIEW: 'warn' } as const;

function verdictFinding(check: string, priority: Priority, verdict: JudgeVerdict): Finding {
  const summary = `functionality ${verdict.functionality_score}/10, quality ${verdict.quality_score}/10`;
  const risks = verdict.risks.length ? ` Risks: ${verdict.risks.join('; ')}.` : '';
  const reasoning = verdict.verdict === 'PASS' ? '.' : `: ${verdict.reasoning}`;
  return {
    check,
    priority,
    status: VERDICT_STATUS[verdict.verdict],
    message: `Judge: ${verdict.verdict} (${summary})${reasoning}${risks}`,
    details: { ...verdict },
  };
}

/**
 * LLM_JUDGE (layer 5, P1): the model judges the diff against the requirement and acceptance
 * criteria (never the executor's narrative). PASS → pass, FAIL → fail, NEEDS_REVIEW → warn
 * (and triggers HUMAN_REVIEW). No model or no diff → skip; a model failure → infrastructure error.
 */
export const llmJudgeProtocol: Protocol = {
  name: 'LLM_JUDGE',
  description: 'LLM-as-judge: the diff meets the requirement and acceptance criteria.',
  priority: 'P1',
  layer: 5,
  group: 3,
  timeoutMs: 120_000,
  appliesTo(ctx) {
    return ctx.model !== undefined && ctx.facts.gitTop !== undefined;
  },
  async run(ctx, signal): Promise<Finding[]> {
    if (!ctx.model) return [];
    const diff = await ctx.facts.diff();
    if (diff.trim() === '') {
      return [
        {
          check: 'LLM_JUDGE',
          priority: 'P1',
          status: 'skip',
          message: 'No diff to judge: the workspace has no changes.',
        },
      ];
    }
    const verdict = await judgeChange(ctx.model, {
      requirement: ctx.request,
      diff,
      acceptanceCriteria: ctx.acceptanceCriteria,
      signal,
    });
    return [verdictFinding('LLM_JUDGE', 'P1', verdict)];
  },
};

/**
 * ARCHITECT (layer 5, P2, conditional): only when new files, dependency changes or removed
 * exports appear. Reports the structural facts (removed exports are warnings) and asks the
 * model to review the design (FAIL → fail, NEEDS_REVIEW → warn).
 */
export const architectProtocol: Protocol = {
  name: 'ARCHITECT',
  description: 'Architecture review of new files, dependency changes and API changes.',
  priority: 'P2',
  layer: 5,
  group: 3,
  timeoutMs: 120_000,
  async appliesTo(ctx) {
    return isArchitectureChange(await detectArchitectureChanges(ctx));
  },
  async run(ctx, signal): Promise<Finding[]> {
    const changes = await detectArchitectureChanges(ctx);
    const findings: Finding[] = [];
    const facts: string[] = [];
    if (changes.newFiles.length) facts.push(`new files: ${changes.newFiles.join(', ')}`);
    for (const dep of changes.dependencyChanges) {
      facts.push(
        `${dep.file}: ${dep.added.length ? `added ${dep.added.join(', ')}` : ''}${dep.added.length && dep.removed.length ? '; ' : ''}${dep.removed.length ? `removed ${dep.removed.join(', ')}` : ''}`,
      );
    }
    for (const removed of changes.removedExports) {
      findings.push({
        check: 'ARCHITECT',
        priority: 'P2',
        status: 'warn',
        message: `API change: export ${removed.name} was removed from ${removed.file}.`,
        evidence: { file: removed.file },
      });
    }
    if (!ctx.model) {
      findings.push({
        check: 'ARCHITECT',
        priority: 'P2',
        status: 'skip',
        message: `Architecture changes (${facts.join('; ') || 'API changes'}) were not reviewed: no model for the design review.`,
        details: { ...changes },
      });
      return findings;
    }
    const diff = await ctx.facts.diff();
    const verdict = await judgeChange(ctx.model, {
      requirement: ctx.request,
      diff,
      acceptanceCriteria: ctx.acceptanceCriteria,
      focus: `Review the architecture of this change: does it fit the existing patterns, are the new files and dependencies justified, does complexity grow reasonably? Structural facts: ${facts.join('; ') || 'none'}${changes.removedExports.length ? `; removed exports: ${changes.removedExports.map((e) => `${e.file}#${e.name}`).join(', ')}` : ''}.`,
      signal,
    });
    const finding = verdictFinding('ARCHITECT', 'P2', verdict);
    findings.push({ ...finding, details: { ...finding.details, changes } });
    return findings;
  },
};
