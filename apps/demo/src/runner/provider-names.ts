/**
 * Providers a typed task can run on. A module of its own so the CLI can list them in `--help`
 * without loading the provider SDKs (`select-model.ts` loads those when a model is resolved).
 */
export const providerNames = ['openai', 'anthropic', 'openai-compatible'] as const;

/** One of {@link providerNames}. */
export type ProviderName = (typeof providerNames)[number];
