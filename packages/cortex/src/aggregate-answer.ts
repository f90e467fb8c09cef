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
