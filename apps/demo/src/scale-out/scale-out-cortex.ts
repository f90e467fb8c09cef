import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CortexFactory, RunSpec } from '@closedloop/bullmq';
import { createCortex } from '@closedloop/cortex';
import type { ChatModel } from '@closedloop/model';
import { workspaceTools } from '@closedloop/tools';
import { DemoError } from '../demo-error';
import type { RunMode } from '../runner/demo-runner';
import { type ModelSelection, providerNames, resolveModel } from '../runner/select-model';
import { createIsPrimeScenarioModel, isPrimeTask } from '../scenario/is-prime-scenario';

/** What a run carries to every coordinator and worker besides its task and workspace (never a key). */
export interface ScaleOutSettings {
  /** The offline isPrime scenario on its scripted model. */
  demo: boolean;
  /** For typed tasks: the model selection, resolved in each process with its own keys. */
  selection?: ModelSelection;
  mode: RunMode;
  concurrency: number;
  maxIterations: number;
  budgetTokens?: number;
}

/** Reads the settings back from a spec (written by `scaleOutRunSpec`), refusing what does not fit. */
export function scaleOutSettings(spec: RunSpec): ScaleOutSettings {
  const settings = spec.settings as Partial<ScaleOutSettings>;
  const selection = settings.selection;
  if (selection !== undefined && !providerNames.includes(selection.provider)) {
    throw new DemoError(
      'invalid-argument',
      `The run names an unknown provider "${String(selection.provider)}".`,
    );
  }
  return {
    demo: settings.demo === true,
    ...(selection !== undefined ? { selection } : {}),
    mode: settings.mode === 'single' ? 'single' : 'auto',
    concurrency: settings.concurrency ?? 4,
    maxIterations: settings.maxIterations ?? 3,
    ...(settings.budgetTokens !== undefined ? { budgetTokens: settings.budgetTokens } : {}),
  };
}

/** The spec of a CLI or web run: its task, its workspace (a path every process reaches), its settings. */
export function scaleOutRunSpec(input: {
  task: string;
  workspace: string;
  settings: ScaleOutSettings;
}): RunSpec {
  return {
    request: input.task,
    workspace: input.workspace,
    settings: JSON.parse(JSON.stringify(input.settings)) as RunSpec['settings'],
  };
}

/**
 * How every coordinator and worker of the CLI builds a run's cortex from its spec — the same
 * cortex `createDemoRunner` builds in one process: the run's model (the scripted isPrime scenario
 * for `demo`, else the selection with this process's keys), workspace tools confined to the run's
 * workspace, planning, streamed text, and the run's limits.
 */
export function scaleOutCortex(env: NodeJS.ProcessEnv = process.env): CortexFactory {
  const latency = env.CLOSEDLOOP_DEMO_LATENCY_MS;
  const latencyMs = latency === undefined || Number.isNaN(Number(latency)) ? undefined : Number(latency);
  return async (spec) => {
    if (spec.workspace === undefined)
      throw new DemoError('invalid-argument', 'A scale-out run needs a workspace.');
    const settings = scaleOutSettings(spec);
    let model: ChatModel;
    if (settings.demo) model = createIsPrimeScenarioModel({ latencyMs });
    else if (settings.selection) model = await resolveModel(settings.selection, env);
    else throw new DemoError('no-model', 'The run has no model selection.');
    return {
      model,
      tools: workspaceTools({ root: spec.workspace }),
      workspace: spec.workspace,
      planning: 'always',
      executor: { mode: settings.mode, stream: true },
      concurrency: settings.concurrency,
      maxIterations: settings.maxIterations,
      ...(settings.budgetTokens !== undefined ? { budget: { maxTokens: settings.budgetTokens } } : {}),
    };
  };
}

/**
 * A `closedloop worker`'s warm-up (`createStepWorker({ warmUp })`): the offline isPrime demo, its
 * model answering at once, on a scratch workspace in the temp directory (deleted after), with no
 * journal (`store: false`) and no approval handler (every request denied) — each step through
 * `cortex.runStep` as on a worker, so the executor, tools and verifier a step uses are loaded and
 * compiled before the first real step. It reaches no Redis, no run and no shared workspace.
 * Resolves with how the demo run stopped.
 */
export async function warmUpWorker(): Promise<string> {
  const workspace = mkdtempSync(join(tmpdir(), 'closedloop-warm-up-'));
  try {
    const spec = scaleOutRunSpec({
      task: isPrimeTask,
      workspace,
      settings: { demo: true, mode: 'auto', concurrency: 4, maxIterations: 3 },
    });
    const options = await scaleOutCortex({ CLOSEDLOOP_DEMO_LATENCY_MS: '0' })(spec, { runId: 'warm-up' });
    const stepCortex = createCortex({ ...options, store: false });
    const result = await createCortex({
      ...options,
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
    return result.stopReason;
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}
