import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { aggregatorSystemPrompt, type CortexOptions, plannerSystemPrompt } from '@closedloop/cortex';
import type { GenerateRequest } from '@closedloop/model';
import { ScriptedModel, type ScriptedResponse } from '@closedloop/model/testing';
import { defineTool, workspaceTools } from '@closedloop/tools';
import { z } from 'zod';
import type { RunSpec } from '../step-jobs';

/** The scripted world of the scale-out tests and benchmarks, read from `spec.settings`. */
export interface ScenarioSettings {
  /** Steps in the plan. */
  steps: number;
  /** `wide`: all independent; `chain`: each after the previous; `layers`: 4-wide layers. */
  shape: 'wide' | 'chain' | 'layers';
  /** Latency of each step's model turn (two turns per step). */
  turnMs: number;
  /** Steps of the run at once (the cortex's `concurrency`). */
  runConcurrency: number;
}

export function scenarioSettings(settings: RunSpec['settings']): ScenarioSettings {
  return {
    steps: Number(settings.steps ?? 4),
    shape: (settings.shape as ScenarioSettings['shape']) ?? 'wide',
    turnMs: Number(settings.turnMs ?? 0),
    runConcurrency: Number(settings.runConcurrency ?? 64),
  };
}

const stepIdOf = (index: number) => `step-${index + 1}`;

function planFor(settings: ScenarioSettings) {
  return {
    title: `${settings.steps} ${settings.shape} steps`,
    successCriteria: [],
    protocols: [],
    steps: Array.from({ length: settings.steps }, (_, index) => ({
      id: stepIdOf(index),
      description: `Write out/${stepIdOf(index)}.txt and record the effect.`,
      dependsOn:
        settings.shape === 'chain' && index > 0
          ? [stepIdOf(index - 1)]
          : settings.shape === 'layers' && index >= 4
            ? [stepIdOf(index - 4 - (index % 4)), stepIdOf(index - 1 - (index % 4))]
            : [],
      requiredTools: [],
      successCriteria: [],
      protocols: [],
    })),
  };
}

const system = (request: GenerateRequest) =>
  request.messages[0]?.role === 'system' ? request.messages[0].content : '';

function stepOf(request: GenerateRequest): string {
  for (const message of request.messages) {
    if (message.role !== 'user') continue;
    const match = /# Your step: (\S+)/.exec(message.content);
    if (match) return match[1]!;
  }
  throw new Error('scenario: not a step request');
}

/** The model: plans `settings.steps` steps; each writes its file, records one effect, and claims the file. */
export function scenarioModel(settings: ScenarioSettings): ScriptedModel {
  const respond = (request: GenerateRequest): ScriptedResponse => {
    const prompt = system(request);
    if (prompt.startsWith(plannerSystemPrompt)) return { text: JSON.stringify(planFor(settings)) };
    if (prompt.startsWith(aggregatorSystemPrompt)) return { text: `All ${settings.steps} steps done.` };
    const stepId = stepOf(request);
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    const path = `out/${stepId}.txt`;
    if (turn === 0) {
      return {
        toolCalls: [
          { name: 'write_file', arguments: { path, content: `${stepId}\n` } },
          { name: 'record_effect', arguments: { line: stepId } },
        ],
      };
    }
    return {
      toolCalls: [
        {
          name: 'mark_step',
          arguments: {
            status: 'success',
            notes: `[SUCCESS]: wrote ${path}`,
            claims: { filesWritten: [path] },
          },
        },
      ],
    };
  };
  return new ScriptedModel({
    modelId: 'scale-out-scenario',
    capabilities: { structuredOutput: false },
    latencyMs: (request) => (request.tools?.some((tool) => tool.name === 'mark_step') ? settings.turnMs : 0),
    matchers: [{ match: () => true, respond }],
  });
}

/** A non-idempotent effect: one line appended to `effects.log` per call (duplicates show). */
export function recordEffectTool(root: string) {
  return defineTool({
    name: 'record_effect',
    description: 'Appends one line to effects.log.',
    input: z.object({ line: z.string() }),
    idempotent: false,
    execute: async ({ line }) => {
      await appendFile(join(root, 'effects.log'), `${line}\n`);
      return `recorded ${line}`;
    },
  });
}

/** The cortex of a scenario run: the same in coordinators, workers and tests. */
export function scenarioCortex(spec: RunSpec): Omit<CortexOptions, 'store' | 'stepRunner'> {
  const settings = scenarioSettings(spec.settings);
  const root = spec.workspace!;
  return {
    model: scenarioModel(settings),
    tools: [...workspaceTools({ root }), recordEffectTool(root)],
    workspace: root,
    planning: 'always',
    concurrency: settings.runConcurrency,
    replanWindowMs: 0,
  };
}
