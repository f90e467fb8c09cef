import type { CortexFactory, RunSpec } from '@closedloop/bullmq';
import { workspaceTools } from '@closedloop/tools';
import { CliUsageError, type ProviderName, providerNames, type RunOptions } from '../cli-options';
import { resolveModel } from '../resolve-model';
import { createIsPrimeScenarioModel } from '../scenario/is-prime-scenario';

/** The CLI options a run carries to every coordinator and worker (never an API key). */
export interface ScaleOutSettings {
  provider: ProviderName;
  model?: string;
  baseURL?: string;
  mode: 'single' | 'auto';
  concurrency: number;
  maxIterations: number;
  budgetTokens?: number;
}

/** The run spec of a CLI run: the task, its workspace (a path every process can reach) and the settings. */
export function scaleOutSpec(options: RunOptions, input: { task: string; workspace: string }): RunSpec {
  const settings: ScaleOutSettings = {
    provider: options.provider,
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    mode: options.mode,
    concurrency: options.concurrency,
    maxIterations: options.maxIterations,
    ...(options.budgetTokens !== undefined ? { budgetTokens: options.budgetTokens } : {}),
  };
  return { request: input.task, workspace: input.workspace, settings: { ...settings } };
}

function settingsOf(spec: RunSpec): ScaleOutSettings {
  const settings = spec.settings as Partial<ScaleOutSettings>;
  const provider = settings.provider ?? 'scripted';
  if (!providerNames.includes(provider)) {
    throw new CliUsageError(`Run spec names an unknown provider "${String(provider)}".`);
  }
  return {
    provider,
    ...(settings.model !== undefined ? { model: settings.model } : {}),
    ...(settings.baseURL !== undefined ? { baseURL: settings.baseURL } : {}),
    mode: settings.mode === 'single' ? 'single' : 'auto',
    concurrency: settings.concurrency ?? 4,
    maxIterations: settings.maxIterations ?? 3,
    ...(settings.budgetTokens !== undefined ? { budgetTokens: settings.budgetTokens } : {}),
  };
}

/**
 * How every coordinator and worker of the CLI builds a run's cortex from its spec: the model of
 * the run's provider (keys from this process's environment; the offline isPrime scenario for
 * `scripted`), workspace tools confined to the run's workspace, the run's settings.
 */
export function scaleOutCortex(env: NodeJS.ProcessEnv = process.env): CortexFactory {
  const latency = env.CLOSEDLOOP_DEMO_LATENCY_MS;
  const latencyMs = latency === undefined || Number.isNaN(Number(latency)) ? undefined : Number(latency);
  return async (spec) => {
    if (spec.workspace === undefined) throw new CliUsageError('A scale-out run needs a workspace.');
    const settings = settingsOf(spec);
    const model =
      (await resolveModel(
        {
          provider: settings.provider,
          model: settings.model,
          baseURL: settings.baseURL,
          mode: settings.mode,
          workspace: spec.workspace,
          concurrency: settings.concurrency,
          maxIterations: settings.maxIterations,
          budgetTokens: settings.budgetTokens,
          json: false,
          journal: '',
        },
        env,
      )) ?? createIsPrimeScenarioModel({ latencyMs });
    return {
      model,
      tools: workspaceTools({ root: spec.workspace }),
      workspace: spec.workspace,
      planning: 'always',
      executor: { mode: settings.mode },
      concurrency: settings.concurrency,
      maxIterations: settings.maxIterations,
      ...(settings.budgetTokens !== undefined ? { budget: { maxTokens: settings.budgetTokens } } : {}),
    };
  };
}
