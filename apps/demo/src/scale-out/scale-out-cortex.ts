import type { CortexFactory, RunSpec } from '@closedloop/bullmq';
import type { ChatModel } from '@closedloop/model';
import { workspaceTools } from '@closedloop/tools';
import { DemoError } from '../demo-error';
import type { RunMode } from '../runner/demo-runner';
import { type ModelSelection, providerNames, resolveModel } from '../runner/select-model';
import { createIsPrimeScenarioModel } from '../scenario/is-prime-scenario';

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
