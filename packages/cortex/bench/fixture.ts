/**
 * The setup the cortex benchmarks share: step drafts, the `record` tool every step calls, and the
 * scripted model that plans the drafts and runs each step as one `record` call, then `mark_step`.
 */
import type { GenerateRequest } from '@closedloop/model';
import { ScriptedModel } from '@closedloop/model/testing';
import { defineTool } from '@closedloop/tools';
import { z } from 'zod';
import { aggregatorSystemPrompt } from '../src/aggregate-answer';
import { plannerSystemPrompt } from '../src/draft-plan';

/** A step as the planner drafts it (no tools, criteria or protocols). */
export interface BenchDraft {
  id: string;
  description: string;
  dependsOn: string[];
  requiredTools: string[];
  successCriteria: string[];
  protocols: string[];
}

/** The draft of step `id` (described as `step <id>`). */
export const benchDraft = (id: string, dependsOn: string[] = []): BenchDraft => ({
  id,
  description: `step ${id}`,
  dependsOn,
  requiredTools: [],
  successCriteria: [],
  protocols: [],
});

/** A chain of `size` steps `s0 … s<size-1>`, each depending on the one before. */
export const chainDrafts = (size: number): BenchDraft[] =>
  Array.from({ length: size }, (_, index) => benchDraft(`s${index}`, index === 0 ? [] : [`s${index - 1}`]));

/** The tool each benchmark step calls once (opaque to the verifier: accepted unverified). */
export const recordTool = defineTool({
  name: 'record',
  description: 'Records a step.',
  input: z.object({ step: z.string() }),
  idempotent: true,
  execute: ({ step }) => `recorded ${step}`,
});

/** The system prompt of a request ('' without one). */
export function systemOf(request: Pick<GenerateRequest, 'messages'>): string {
  const first = request.messages[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : '';
}

/** Options of {@link benchModel}. */
export interface BenchModelOptions {
  /** The plan's title. Default `bench`. */
  title?: string;
  /** Latency of every step turn (planning and aggregation answer at once); none when omitted. */
  turnMs?: number;
  /** Default `false` (a long run's conversations are not kept). */
  recordRequests?: boolean;
}

/**
 * A scripted model that plans `steps`, runs every step as a `record` call then
 * `mark_step(success)`, and aggregates with `done`.
 */
export function benchModel(steps: readonly object[], options: BenchModelOptions = {}): ScriptedModel {
  const { title = 'bench', turnMs, recordRequests = false } = options;
  return new ScriptedModel({
    recordRequests,
    ...(turnMs === undefined
      ? {}
      : {
          latencyMs: (request: GenerateRequest) => {
            const system = systemOf(request);
            return system.startsWith(plannerSystemPrompt) || system.startsWith(aggregatorSystemPrompt)
              ? 0
              : turnMs;
          },
        }),
    matchers: [
      {
        match: () => true,
        respond: (request) => {
          const system = systemOf(request);
          if (system.startsWith(plannerSystemPrompt)) return { text: JSON.stringify({ title, steps }) };
          if (system.startsWith(aggregatorSystemPrompt)) return { text: 'done' };
          const turn = request.messages.filter((message) => message.role === 'assistant').length;
          return turn === 0
            ? { toolCalls: [{ name: 'record', arguments: { step: 'x' } }] }
            : {
                toolCalls: [
                  { name: 'mark_step', arguments: { status: 'success', notes: '[SUCCESS]: recorded' } },
                ],
              };
        },
      },
    ],
  });
}
