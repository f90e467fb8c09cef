import { type ChatModel, generate, type Usage } from '@closedloop/model';
import { type Plan, parseStepNotes } from '@closedloop/plan';
import type { StopReason } from './stop-reason';

/** The system prompt of the aggregation call. */
export const aggregatorSystemPrompt = [
  'You write the final answer of an agent run for the user who made the request.',
  'Use only the step results given. Say plainly what was done, what failed or was blocked, and',
  'mark anything flagged UNVERIFIED as not verified. Do not invent results.',
].join('\n');

const maxOutputChars = 2_000;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}

function stepLines(plan: Plan, perStep: number): string[] {
  return plan.stepIds.map((id) => {
    const step = plan.readStep(id);
    const unverified = step.verification?.unverified || step.verification?.verdict === 'unverified';
    const result = step.output ?? parseStepNotes(step.notes).message;
    const head = `- [${step.status}${unverified ? ', UNVERIFIED' : ''}] ${step.id}: ${step.title ?? step.description}`;
    return result ? `${head}\n  ${clip(result, perStep).replace(/\n/g, '\n  ')}` : head;
  });
}

/**
 * The deterministic answer used when the aggregation call fails or is skipped (aborted runs, no
 * budget left): the stop reason and each step's status and result.
 */
export function fallbackAnswer(options: {
  plan: Plan | undefined;
  stopReason: StopReason;
  reason: string;
}): string {
  const { plan, stopReason, reason } = options;
  const lines = [`Run stopped: ${stopReason} — ${reason}`];
  if (plan && plan.size > 0) lines.push('', 'Steps:', ...stepLines(plan, 500));
  return lines.join('\n');
}

/** Options of {@link aggregateAnswer}. */
export interface AggregateAnswerOptions {
  model: ChatModel;
  request: string;
  plan: Plan;
  stopReason: StopReason;
  reason: string;
  signal?: AbortSignal;
}

/**
 * The final answer, aggregated from every step's result: one model call over the request, the stop
 * reason and every step's status and output (UNVERIFIED flags included). Never throws: when the
 * call fails or answers nothing, the {@link fallbackAnswer} text is returned with `source: 'fallback'`.
 */
export async function aggregateAnswer(
  options: AggregateAnswerOptions,
): Promise<{ answer: string; source: 'model' | 'fallback'; usage?: Usage; error?: string }> {
  const { model, request, plan, stopReason, reason, signal } = options;
  try {
    const result = await generate(
      model,
      {
        messages: [
          { role: 'system', content: aggregatorSystemPrompt },
          {
            role: 'user',
            content: [
              `## Request\n${request}`,
              `## Outcome\n${stopReason}: ${reason}`,
              `## Steps\n${stepLines(plan, maxOutputChars).join('\n')}`,
              'Write the answer.',
            ].join('\n\n'),
          },
        ],
      },
      { signal, retry: { maxAttempts: 2 } },
    );
    const answer = result.text.trim();
    if (answer === '') {
      return {
        answer: fallbackAnswer({ plan, stopReason, reason }),
        source: 'fallback',
        usage: result.usage,
        error: 'empty answer',
      };
    }
    return { answer, source: 'model', usage: result.usage };
  } catch (error) {
    return {
      answer: fallbackAnswer({ plan, stopReason, reason }),
      source: 'fallback',
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/** Kinds of work a final answer can claim that must show in some step's tool calls. */
const ANSWER_CLAIMS: ReadonlyArray<{
  what: string;
  claim: RegExp;
  /** A successful call's tool name + arguments that backs it. */
  backedBy: RegExp;
}> = [
  {
    what: 'tests passing',
    claim:
      /\b(?:all\s+)?(?:\d+\s+)?(?:unit\s+|integration\s+)?tests?\s+(?:now\s+|all\s+|still\s+)?(?:pass(?:es|ed)?|passing|are\s+(?:green|passing))\b|\btest suite (?:passes|passed|is green)\b/i,
    backedBy: /\b(?:test|tests|vitest|jest|pytest|mocha|ava|tap|unittest|cargo test|go test|ctest)\b/i,
  },
  {
    what: 'a deployment',
    claim: /\b(?:deployed|deploying it|shipped it to|rolled (?:it )?out)\b/i,
    backedBy: /\b(?:deploy|kubectl|helm|terraform|fly|vercel|netlify|serverless|cdk)\b/i,
  },
  {
    what: 'a release or publish',
    claim: /\b(?:published|released (?:it|version|v?\d)|cut a release)\b/i,
    backedBy: /\b(?:publish|release)\b/i,
  },
  { what: 'a push', claim: /\bpushed\b/i, backedBy: /\bpush\b/i },
];

/**
 * What a final answer claims that no completed step's tool calls back: tests passing with no test
 * command run (or no test check of the goal passed — `goalChecks` are the passing goal checks'
 * names), a deployment, release or push no call made. A claimed test count (`all 12 tests pass`)
 * must show in a test run's output. Empty when everything claimed is backed.
 *
 * @example
 * unsupportedAnswerClaims('Done. I also deployed it.', plan, []); // ['a deployment']
 */
export function unsupportedAnswerClaims(
  answer: string,
  plan: Plan,
  goalChecks: readonly string[] = [],
): string[] {
  const calls = plan.stepIds.flatMap((id) => {
    const step = plan.readStep(id);
    if (step.status !== 'completed') return [];
    return step.ledger.filter((call) => call.status === 'success');
  });
  const unsupported: string[] = [];
  for (const kind of ANSWER_CLAIMS) {
    const match = kind.claim.exec(answer);
    if (!match) continue;
    const backing = calls.filter((call) =>
      kind.backedBy.test(`${call.tool} ${JSON.stringify(call.args ?? {})}`),
    );
    let backed = backing.length > 0 || (kind.what === 'tests passing' && goalChecks.includes('TEST'));
    const count = kind.what === 'tests passing' ? /\b(\d+)\s+(?:\w+\s+)?tests?\b/i.exec(match[0]) : null;
    if (backed && count && !backing.some((call) => new RegExp(`\\b${count[1]}\\b`).test(call.result ?? '')))
      backed = false;
    if (!backed) unsupported.push(kind.what);
  }
  return unsupported;
}
