import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CortexOptions, createCortex } from '@closedloop/cortex';
import { aggregatorSystemPrompt, plannerSystemPrompt } from '@closedloop/cortex/internal';
import type { GenerateRequest } from '@closedloop/model';
import { ScriptedModel, type ScriptedResponse } from '@closedloop/model/testing';
import { workspaceTools } from '@closedloop/tools';
import type { RunSpec } from '../step-jobs';

/** The scripted world of the scale-out tests and benchmarks, read from `spec.settings`. */
export interface ScenarioSettings {
  /** Steps in the plan. */
  steps: number;
  /** `wide`: all independent; `chain`: each after the previous; `layers`: 4-wide layers. */
  shape: 'wide' | 'chain' | 'layers';
  /** Latency of each step's model turn (three turns per step). */
  turnMs: number;
  /** Steps of the run at once (the cortex's `concurrency`). */
  runConcurrency: number;
  /**
   * The plan's first step is `step-<firstStep + 1>` (default 0: `step-1`): runs that share one
   * workspace, each with steps of its own (the benchmark's in-process engines side by side).
   */
  firstStep?: number;
  /**
   * The step whose effect is a command instead of an edit: `node <commandScript> <stepId>`, a
   * script the test puts in the workspace (it may take its time, to be interrupted). Several
   * steps: their ids separated by commas.
   */
  commandStep?: string;
}

/** The script a `commandStep` runs, relative to the workspace. */
export const commandScript = 'effect-command.mjs';

export function scenarioSettings(settings: RunSpec['settings']): ScenarioSettings {
  return {
    steps: Number(settings.steps ?? 4),
    shape: (settings.shape as ScenarioSettings['shape']) ?? 'wide',
    turnMs: Number(settings.turnMs ?? 0),
    runConcurrency: Number(settings.runConcurrency ?? 64),
    ...(settings.firstStep !== undefined ? { firstStep: Number(settings.firstStep) } : {}),
    ...(typeof settings.commandStep === 'string' ? { commandStep: settings.commandStep } : {}),
  };
}

const stepIdOf = (index: number) => `step-${index + 1}`;

function planFor(settings: ScenarioSettings) {
  const first = settings.firstStep ?? 0;
  const idOf = (index: number) => stepIdOf(first + index);
  return {
    title: `${settings.steps} ${settings.shape} steps`,
    successCriteria: [],
    protocols: [],
    steps: Array.from({ length: settings.steps }, (_, index) => ({
      id: idOf(index),
      description: `Write out/${idOf(index)}.txt, then add its effect line.`,
      dependsOn:
        settings.shape === 'chain' && index > 0
          ? [idOf(index - 1)]
          : settings.shape === 'layers' && index >= 4
            ? [idOf(index - 4 - (index % 4)), idOf(index - 1 - (index % 4))]
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

/** The line the effect adds to a step's file: an edit that, applied twice, shows twice. */
export const effectLine = (stepId: string) => `${stepId} effect`;

/**
 * The file each step's effect edits: seeded before the run (`# step-n`), never rewritten by the
 * step, so an effect repeated by a re-executed step shows as a second line.
 */
export const effectFile = (stepId: string) => `effects/${stepId}.txt`;

/** Seeds the effect files of a scenario's steps in `workspace`. */
export function seedEffects(workspace: string, steps: number): void {
  mkdirSync(join(workspace, 'effects'), { recursive: true });
  for (let index = 0; index < steps; index++) {
    const stepId = stepIdOf(index);
    writeFileSync(join(workspace, effectFile(stepId)), `# ${stepId}\n`);
  }
}

/**
 * The model: plans `settings.steps` steps; each writes its file (turn 0), then edits its seeded
 * effect file — its non-idempotent effect: an edit applied twice leaves the line twice, and
 * nothing the step does rewrites that file — (turn 1), then claims both files (turn 2).
 */
export function scenarioModel(settings: ScenarioSettings): ScriptedModel {
  const respond = (request: GenerateRequest): ScriptedResponse => {
    const prompt = system(request);
    if (prompt.startsWith(plannerSystemPrompt)) return { text: JSON.stringify(planFor(settings)) };
    if (prompt.startsWith(aggregatorSystemPrompt)) return { text: `All ${settings.steps} steps done.` };
    // The tool-call guard's self-verification of a destructive call (the command step's).
    if (
      request.messages.some((message) => message.role === 'user' && /Answer YES or NO/.test(message.content))
    )
      return { text: 'YES: the step asks for this command.' };
    const stepId = stepOf(request);
    const turn = request.messages.filter((message) => message.role === 'assistant').length;
    const path = `out/${stepId}.txt`;
    if (turn === 0)
      return { toolCalls: [{ name: 'write_file', arguments: { path, content: `${stepId}\n` } }] };
    if (turn === 1 && settings.commandStep?.split(',').includes(stepId)) {
      return { toolCalls: [{ name: 'run_command', arguments: { argv: ['node', commandScript, stepId] } }] };
    }
    if (turn === 1) {
      return {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: {
              path: effectFile(stepId),
              old_string: `# ${stepId}\n`,
              new_string: `# ${stepId}\n${effectLine(stepId)}\n`,
            },
          },
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
            claims: { filesWritten: [path, effectFile(stepId)] },
          },
        },
      ],
    };
  };
  return new ScriptedModel({
    modelId: 'scale-out-scenario',
    // Nothing reads the requests back: keeping a copy of each is memory and CPU no model spends.
    recordRequests: false,
    capabilities: { structuredOutput: false },
    latencyMs: (request) => (request.tools?.some((tool) => tool.name === 'mark_step') ? settings.turnMs : 0),
    matchers: [{ match: () => true, respond }],
  });
}

/** How many times each step's effect shows in the workspace (1 each when nothing ran twice). */
export function countEffects(workspace: string, steps: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let index = 0; index < steps; index++) {
    const stepId = stepIdOf(index);
    let text = '';
    try {
      text = readFileSync(join(workspace, effectFile(stepId)), 'utf8');
    } catch {
      // missing: 0
    }
    counts.set(stepId, text.split('\n').filter((line) => line === effectLine(stepId)).length);
  }
  return counts;
}

/** The cortex of a scenario run: the same in coordinators, workers and tests. */
export function scenarioCortex(spec: RunSpec): Omit<CortexOptions, 'store' | 'stepRunner'> {
  const settings = scenarioSettings(spec.settings);
  const root = spec.workspace!;
  return {
    model: scenarioModel(settings),
    tools: workspaceTools({ root }),
    workspace: root,
    planning: 'always',
    // The throughput benchmark plans 500 steps (more than the default bound of 300).
    planner: { maxSteps: Math.max(300, settings.steps) },
    concurrency: settings.runConcurrency,
    replanWindowMs: 0,
  };
}

/**
 * A worker's warm-up (`createStepWorker({ warmUp })`): one scenario run of a few steps on a
 * scratch workspace, in this process, with no journal (`store: false`), each step going through
 * `cortex.runStep` as on a worker — the executor, tools and verifier a step uses get compiled by
 * the JIT before the worker takes its first real step. It touches no Redis and no run.
 */
export async function warmUpScenario(steps = 6): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), 'closedloop-warm-up-'));
  try {
    seedEffects(workspace, steps);
    const spec: RunSpec = {
      request: 'Warm up.',
      workspace,
      settings: { steps, shape: 'wide', turnMs: 0, runConcurrency: 1 },
    };
    const stepCortex = createCortex({ ...scenarioCortex(spec), store: false });
    const result = await createCortex({
      ...scenarioCortex(spec),
      store: false,
      stepRunner: async (task) => {
        const { outcome, events } = await stepCortex.runStep({
          runId: task.runId,
          request: task.request,
          stepId: task.stepId,
          plan: task.snapshot(),
        });
        task.adopt(events);
        return outcome;
      },
    }).run(spec.request);
    if (result.stopReason !== 'completed') throw new Error(`warm-up run stopped: ${result.stopReason}`);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
