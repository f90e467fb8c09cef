import type { ChatModel } from '@closedloop/model';
import { createAnthropic } from '@closedloop/provider-anthropic';
import { createOpenAI } from '@closedloop/provider-openai';
import { CliUsageError, type RunOptions } from './cli-options';

const defaultModels = { openai: 'gpt-4.1', anthropic: 'claude-sonnet-4-6' } as const;

/**
 * The chat model for `--provider`. Missing keys, a missing `--base-url`/`--model` and an
 * unreachable OpenAI-compatible server are reported as `CliUsageError`s that say what to do.
 */
export async function resolveModel(
  options: RunOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ChatModel | undefined> {
  switch (options.provider) {
    case 'scripted':
      return undefined;
    case 'openai': {
      if (!env.OPENAI_API_KEY) {
        throw new CliUsageError(
          'OPENAI_API_KEY is not set. Export it (export OPENAI_API_KEY=sk-...) or run offline with --provider scripted.',
        );
      }
      return createOpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: options.baseURL })(
        options.model ?? defaultModels.openai,
      );
    }
    case 'anthropic': {
      if (!env.ANTHROPIC_API_KEY) {
        throw new CliUsageError(
          'ANTHROPIC_API_KEY is not set. Export it (export ANTHROPIC_API_KEY=sk-ant-...) or run offline with --provider scripted.',
        );
      }
      return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY, baseURL: options.baseURL })(
        options.model ?? defaultModels.anthropic,
      );
    }
    case 'openai-compatible': {
      if (!options.baseURL) {
        throw new CliUsageError(
          '--provider openai-compatible needs --base-url, e.g. --base-url http://localhost:11434/v1 (Ollama).',
        );
      }
      if (!options.model) {
        throw new CliUsageError('--provider openai-compatible needs --model, e.g. --model llama3.1.');
      }
      await assertReachable(options.baseURL);
      return createOpenAI({ baseURL: options.baseURL, apiKey: env.OPENAI_API_KEY ?? 'not-needed' })(
        options.model,
      );
    }
  }
}

/** Fails fast with a clear message when nothing answers at the base URL. */
async function assertReachable(baseURL: string): Promise<void> {
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new CliUsageError(`--base-url "${baseURL}" is not a URL. Example: http://localhost:11434/v1`);
  }
  try {
    await fetch(url, { method: 'GET', signal: AbortSignal.timeout(3000) });
  } catch (error) {
    const reason =
      error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : '';
    throw new CliUsageError(
      `Nothing answers at ${url.origin} (${reason}). Start the server (e.g. "ollama serve") or fix --base-url.`,
    );
  }
}
