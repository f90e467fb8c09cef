import { ModelError } from './model-error';

/** What {@link checkProviderOptions} validates: the options every adapter factory shares. */
export interface ProviderOptionsToCheck {
  /** The factory's name, at the start of every message (`createOpenAI`). */
  factory: string;
  /** The provider id the models will report (from the factory's `name` option or its default). */
  provider: string;
  baseURL?: string | undefined;
  /**
   * A valid base URL for this provider, quoted in the message (`https://api.anthropic.com`);
   * factories without a `baseURL` option leave it out.
   */
  baseURLExample?: string;
  timeoutMs?: number | undefined;
  /** The longest silence of a stream: `0` or `Infinity` (off), or a positive number of ms. */
  streamIdleTimeoutMs?: number | undefined;
}

function invalid(factory: string, provider: string, message: string): ModelError {
  return new ModelError({ code: 'bad-request', message: `${factory}: ${message}`, provider });
}

/**
 * Checks `streamIdleTimeoutMs` (a number >= 0: `0` or `Infinity` turn the guard off) where a model
 * is constructed, so a bad value (`NaN`, a negative number, a string from an environment
 * variable) fails at once with `ModelError('bad-request')` instead of disabling the stall guard
 * silently or stalling every stream.
 */
export function checkStreamIdleTimeout(options: {
  factory: string;
  provider: string;
  streamIdleTimeoutMs: unknown;
}): void {
  const { factory, provider, streamIdleTimeoutMs: idle } = options;
  if (idle === undefined || (typeof idle === 'number' && idle >= 0)) return;
  throw invalid(
    factory,
    provider,
    `streamIdleTimeoutMs must be a number of milliseconds >= 0 (0 turns the stall guard off), got ${
      typeof idle === 'string' ? JSON.stringify(idle) : String(idle)
    }`,
  );
}

/**
 * Checks the options every adapter factory shares, so bad configuration fails at once instead of
 * at the first request: a non-empty provider `name`, an http(s) `baseURL`, a positive
 * `timeoutMs`, a `streamIdleTimeoutMs` >= 0. Throws `ModelError('bad-request')` naming the
 * factory and the bad value.
 *
 * @example
 * checkProviderOptions({ factory: 'createOpenAI', provider, baseURL, timeoutMs, baseURLExample: 'http://localhost:11434/v1' });
 */
export function checkProviderOptions(options: ProviderOptionsToCheck): void {
  const { factory, provider, baseURL, baseURLExample = 'https://api.example.com/v1', timeoutMs } = options;
  if (provider.trim() === '') throw invalid(factory, provider, 'name must not be empty');
  if (baseURL !== undefined) {
    const protocol = URL.canParse(baseURL) ? new URL(baseURL).protocol : undefined;
    if (protocol !== 'http:' && protocol !== 'https:') {
      throw invalid(
        factory,
        provider,
        `baseURL ${JSON.stringify(baseURL)} is not a valid http(s) URL; expected e.g. ${baseURLExample}`,
      );
    }
  }
  if (
    timeoutMs !== undefined &&
    !(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0)
  ) {
    throw invalid(
      factory,
      provider,
      `timeoutMs must be a positive number of milliseconds, got ${
        typeof timeoutMs === 'string' ? JSON.stringify(timeoutMs) : String(timeoutMs)
      }`,
    );
  }
  checkStreamIdleTimeout({ factory, provider, streamIdleTimeoutMs: options.streamIdleTimeoutMs });
}

/**
 * Checks a model id handed to a provider (`openai(modelId)`): a non-empty string, else
 * `ModelError('bad-request')`.
 */
export function checkModelId(options: { factory: string; provider: string; modelId: unknown }): void {
  const { factory, provider, modelId } = options;
  if (typeof modelId !== 'string' || modelId.trim() === '') {
    throw invalid(factory, provider, `model id must be a non-empty string, got ${JSON.stringify(modelId)}`);
  }
}

/**
 * A non-blank environment variable, trimmed — read when called, never at import — or
 * `undefined` when it is unset, blank, or there is no `process` (browsers, edge runtimes).
 * Adapters read API keys with it at the first request.
 */
export function environmentVariable(name: string): string | undefined {
  const value = globalThis.process?.env?.[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
