import type { ChatModel } from '@closedloop/model';
import { DemoError } from '../demo-error';
import { type ProviderName, providerNames } from './provider-names';

export { type ProviderName, providerNames };

/** Model ids used when `--model` is not given. */
export const defaultModelIds = { openai: 'gpt-4.1', anthropic: 'claude-sonnet-4-6' } as const;

/** Which model a typed task runs on, and where that choice came from. */
export interface ModelSelection {
  provider: ProviderName;
  model?: string;
  baseURL?: string;
  /** `flag`: `--provider`; else the environment variable or `--base-url` that chose it. */
  source: 'flag' | 'base-url' | 'OPENAI_API_KEY' | 'ANTHROPIC_API_KEY';
}

/** A model as the views name it. */
export interface ModelInfo {
  provider: string;
  modelId: string;
}

/**
 * Picks the model for typed tasks: `--provider` when given; else `--base-url` means an
 * OpenAI-compatible server; else `OPENAI_API_KEY`, then `ANTHROPIC_API_KEY`, in the environment.
 * `undefined` when nothing is configured (typed tasks are then refused with {@link noModelMessage}).
 */
export function selectModel(
  flags: { provider?: string | undefined; model?: string | undefined; baseURL?: string | undefined },
  env: NodeJS.ProcessEnv,
): ModelSelection | undefined {
  const extra = {
    ...(flags.model !== undefined ? { model: flags.model } : {}),
    ...(flags.baseURL !== undefined ? { baseURL: flags.baseURL } : {}),
  };
  if (flags.provider !== undefined) {
    if (!providerNames.includes(flags.provider as ProviderName)) {
      throw new DemoError(
        'invalid-argument',
        `Unknown provider "${flags.provider}". Use one of: ${providerNames.join(', ')} (the offline scenario is "closedloop demo").`,
      );
    }
    return { provider: flags.provider as ProviderName, source: 'flag', ...extra };
  }
  if (flags.baseURL !== undefined) return { provider: 'openai-compatible', source: 'base-url', ...extra };
  if (env.OPENAI_API_KEY) return { provider: 'openai', source: 'OPENAI_API_KEY', ...extra };
  if (env.ANTHROPIC_API_KEY) return { provider: 'anthropic', source: 'ANTHROPIC_API_KEY', ...extra };
  if (flags.model !== undefined) {
    throw new DemoError(
      'no-model',
      `--model ${flags.model} needs a provider: add --provider openai|anthropic|openai-compatible (and its key or --base-url).`,
    );
  }
  return undefined;
}

/** The provider and model id a selection will use. */
export function describeSelection(selection: ModelSelection): ModelInfo {
  const fallback =
    selection.provider === 'openai-compatible' ? '(no --model)' : defaultModelIds[selection.provider];
  return { provider: selection.provider, modelId: selection.model ?? fallback };
}

/** What to say when a typed task has no model. */
export function noModelMessage(): string {
  return (
    'No model is configured for a typed task. Choose one with --provider openai|anthropic|openai-compatible ' +
    'and set its key: OPENAI_API_KEY (openai), ANTHROPIC_API_KEY (anthropic), or --base-url <url> for an ' +
    'OpenAI-compatible server (e.g. --base-url http://localhost:11434/v1 --model llama3.1). ' +
    'To watch closedloop work offline, run "closedloop demo".'
  );
}

/**
 * The chat model of a selection. A missing key, a missing `--base-url`/`--model` and an
 * unreachable OpenAI-compatible server are `DemoError('model-unavailable')`s that say what to do.
 */
export async function resolveModel(selection: ModelSelection, env: NodeJS.ProcessEnv): Promise<ChatModel> {
  switch (selection.provider) {
    case 'openai': {
      if (!env.OPENAI_API_KEY) {
        throw new DemoError(
          'model-unavailable',
          'OPENAI_API_KEY is not set. Export it (export OPENAI_API_KEY=sk-...), or pick another --provider.',
        );
      }
      // The SDKs load when a model is resolved, not when the CLI starts (`closedloop --help`).
      const { createOpenAI } = await import('@closedloop/provider-openai');
      return createOpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: selection.baseURL })(
        selection.model ?? defaultModelIds.openai,
      );
    }
    case 'anthropic': {
      if (!env.ANTHROPIC_API_KEY) {
        throw new DemoError(
          'model-unavailable',
          'ANTHROPIC_API_KEY is not set. Export it (export ANTHROPIC_API_KEY=sk-ant-...), or pick another --provider.',
        );
      }
      const { createAnthropic } = await import('@closedloop/provider-anthropic');
      return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY, baseURL: selection.baseURL })(
        selection.model ?? defaultModelIds.anthropic,
      );
    }
    case 'openai-compatible': {
      if (!selection.baseURL) {
        throw new DemoError(
          'model-unavailable',
          '--provider openai-compatible needs --base-url, e.g. --base-url http://localhost:11434/v1 (Ollama).',
        );
      }
      if (!selection.model) {
        throw new DemoError(
          'model-unavailable',
          '--provider openai-compatible needs --model, e.g. --model llama3.1.',
        );
      }
      await assertReachable(selection.baseURL);
      const { createOpenAI } = await import('@closedloop/provider-openai');
      // An OpenAI key never goes to another server: the key is OPENAI_COMPATIBLE_API_KEY when set,
      // else the provider's own variable for the server's profile (DEEPSEEK_API_KEY for DeepSeek…),
      // else none (local servers).
      return createOpenAI({
        baseURL: selection.baseURL,
        ...(env.OPENAI_COMPATIBLE_API_KEY ? { apiKey: env.OPENAI_COMPATIBLE_API_KEY } : {}),
      })(selection.model);
    }
  }
}

/** Fails fast with a clear message when nothing answers at the base URL. */
async function assertReachable(baseURL: string): Promise<void> {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new DemoError(
      'invalid-argument',
      `--base-url "${baseURL}" is not a URL. Example: http://localhost:11434/v1`,
    );
  }
  try {
    await fetch(url, { method: 'GET', signal: AbortSignal.timeout(3000) });
  } catch (error) {
    const reason =
      error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : '';
    throw new DemoError(
      'model-unavailable',
      `Nothing answers at ${url.origin} (${reason}). Start the server (e.g. "ollama serve") or fix --base-url.`,
    );
  }
}
