import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GenerateRequest } from '@closedloop/model';
import { ScriptedModel } from '@closedloop/model/testing';
import { defineTool } from '@closedloop/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { aggregatorSystemPrompt } from './aggregate-answer';
import { createCortex } from './create-cortex';
import { plannerSystemPrompt } from './draft-plan';
import { createJsonlRunStore } from './jsonl-run-store';

const width = 500;
const draft = (id: string, dependsOn: string[]) => ({
  id,
  description: `step ${id}`,
  dependsOn,
  requiredTools: [],
  successCriteria: [],
  protocols: [],
});
const steps = [
  draft('root', []),
  ...Array.from({ length: width }, (_, index) => draft(`c${index}`, ['root'])),
];

const record = defineTool({
  name: 'record',
  description: 'Records a step.',
  input: z.object({ step: z.string() }),
  idempotent: true,
  execute: ({ step }) => `recorded ${step}`,
});

const systemOf = (request: GenerateRequest): string => {
  const first = request.messages[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : '';
};

/** Plans the fan-out; every step turn takes `turnMs`, so the 500 children overlap. */
function fanOutModel(turnMs: number): ScriptedModel {
  return new ScriptedModel({
    recordRequests: false,
    latencyMs: (request) => {
      const system = systemOf(request);
      return system.startsWith(plannerSystemPrompt) || system.startsWith(aggregatorSystemPrompt) ? 0 : turnMs;
    },
    matchers: [
      {
        match: () => true,
        respond: (request) => {
          const system = systemOf(request);
          if (system.startsWith(plannerSystemPrompt))
            return { text: JSON.stringify({ title: 'fan-out', steps }) };
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

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('createCortex: 500 concurrent steps', () => {
  it.each([
    ['with the default step deadline, in memory', {}, false],
    ['without a step deadline, in memory', { deadlines: { stepMs: Number.POSITIVE_INFINITY } }, false],
    [
      'without a step deadline, with the fsynced JSONL journal',
      { deadlines: { stepMs: Number.POSITIVE_INFINITY } },
      true,
    ],
  ] as const)('emits no MaxListenersExceededWarning (%s)', async (_name, extra, journaled) => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => {
      if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      let store: ReturnType<typeof createJsonlRunStore> | undefined;
      if (journaled) {
        const dir = await mkdtemp(join(tmpdir(), 'cortex-fanout-'));
        dirs.push(dir);
        store = createJsonlRunStore({ dir, durability: 'fsync' });
      }
      let running = 0;
      let maxRunning = 0;
      const cortex = createCortex({
        model: fanOutModel(100),
        tools: [record],
        planning: 'always',
        concurrency: width + 1,
        store: store ?? false,
        planner: { maxSteps: width + 1 },
        acceptUnverified: 'warn',
        ...extra,
        onEvent: (event) => {
          if (event.type === 'step-started') maxRunning = Math.max(maxRunning, ++running);
          else if (event.type === 'step-finished') running--;
        },
      });
      const result = await cortex.run('Fan out');
      await store?.close();
      // Warnings are emitted on a later tick.
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(result.stopReason).toBe('completed-with-warnings');
      expect(maxRunning).toBe(width);
      expect(warnings.map((warning) => warning.message)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
