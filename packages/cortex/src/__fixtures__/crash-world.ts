import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptedModel } from '@closedloop/model/testing';
import { defineTool } from '@closedloop/tools';
import { z } from 'zod';
import { aggregatorSystemPrompt } from '../aggregate-answer';
import { createCortex } from '../create-cortex';
import { plannerSystemPrompt } from '../draft-plan';
import type { RunStore } from '../run-store';
import { stepIdOf } from './scenario-model';

/** The plan of the crash test: a small diamond with a tail. */
export const crashPlan = {
  title: 'crash test',
  successCriteria: [],
  protocols: [],
  steps: [
    {
      id: 'a',
      description: 'record a',
      dependsOn: [],
      requiredTools: ['record'],
      successCriteria: [],
      protocols: [],
    },
    {
      id: 'b',
      description: 'record b',
      dependsOn: [],
      requiredTools: ['record'],
      successCriteria: [],
      protocols: [],
    },
    {
      id: 'c',
      description: 'record c',
      dependsOn: ['a', 'b'],
      requiredTools: ['record'],
      successCriteria: [],
      protocols: [],
    },
    {
      id: 'd',
      description: 'record d',
      dependsOn: ['c'],
      requiredTools: ['record'],
      successCriteria: [],
      protocols: [],
    },
    {
      id: 'e',
      description: 'record e',
      dependsOn: ['a'],
      requiredTools: ['record'],
      successCriteria: [],
      protocols: [],
    },
  ],
};

/**
 * The world of the crash test: a zero-latency scripted model and one idempotent tool, `record`,
 * whose side effects are an executions log (`<step> <phase>` per call) and `<step>.txt`.
 * `killInAggregate`: the process dies (SIGKILL) inside the final answer's model call.
 */
export function createCrashCortex(options: {
  root: string;
  log: string;
  phase: string;
  store: RunStore;
  killInAggregate?: boolean;
}) {
  const record = defineTool({
    name: 'record',
    description: 'Records that a step ran.',
    input: z.object({ step: z.string() }),
    idempotent: true,
    execute: ({ step }) => {
      appendFileSync(options.log, `${step} ${options.phase}\n`);
      writeFileSync(join(options.root, `${step}.txt`), `done ${step}\n`);
      return `recorded ${step}`;
    },
  });
  const model = new ScriptedModel({
    matchers: [
      {
        match: () => true,
        respond: (request) => {
          const system = request.messages[0]?.role === 'system' ? request.messages[0].content : '';
          if (system.startsWith(plannerSystemPrompt)) return { text: JSON.stringify(crashPlan) };
          if (system.startsWith(aggregatorSystemPrompt)) {
            if (options.killInAggregate) process.kill(process.pid, 'SIGKILL');
            return { text: 'recorded every step' };
          }
          const step = stepIdOf(request) ?? '?';
          const turn = request.messages.filter((message) => message.role === 'assistant').length;
          return turn === 0
            ? { toolCalls: [{ id: `call-${step}-record`, name: 'record', arguments: { step } }] }
            : {
                toolCalls: [
                  {
                    id: `call-${step}-mark`,
                    name: 'mark_step',
                    arguments: { status: 'success', notes: `[SUCCESS]: recorded ${step}` },
                  },
                ],
              };
        },
      },
    ],
  });
  return createCortex({
    model,
    tools: [record],
    workspace: options.root,
    planning: 'always',
    concurrency: 2,
    store: options.store,
  });
}
