import type { GenerateRequest } from './chat-model';
import { ModelError } from './model-error';

const reasoningEfforts = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
const serviceTiers = ['auto', 'default', 'flex', 'priority'] as const;
const verbosities = ['low', 'medium', 'high'] as const;

function oneOf(value: unknown, allowed: readonly string[]): boolean {
  return typeof value === 'string' && allowed.includes(value);
}

/**
 * Validates the typed per-call options of a request — `stopSequences`, `seed`, `reasoningEffort`,
 * `serviceTier`, `verbosity`, `promptCache` and the content `parts` of user messages' shape — and
 * throws `ModelError('bad-request')` naming the bad value and what is allowed. Adapters call it
 * before building a request; options a provider cannot honour are left out with a result
 * `warning` by the adapter, never silently mis-sent.
 *
 * @example
 * checkCallOptions({ provider: 'openai', request: { messages, serviceTier: 'turbo' } })
 * // ModelError: openai: serviceTier "turbo" is not one of auto, default, flex, priority
 */
export function checkCallOptions(options: { provider: string; request: GenerateRequest }): void {
  const { provider, request } = options;
  const bad = (message: string) =>
    new ModelError({ code: 'bad-request', message: `${provider}: ${message}`, provider });
  const { stopSequences, seed, reasoningEffort, serviceTier, verbosity, promptCache } = request;
  if (stopSequences !== undefined) {
    if (
      !Array.isArray(stopSequences) ||
      stopSequences.some((item) => typeof item !== 'string' || item === '')
    ) {
      throw bad(`stopSequences must be an array of non-empty strings, got ${JSON.stringify(stopSequences)}`);
    }
  }
  if (seed !== undefined && !Number.isSafeInteger(seed)) {
    throw bad(`seed must be an integer, got ${JSON.stringify(seed)}`);
  }
  if (reasoningEffort !== undefined && !oneOf(reasoningEffort, reasoningEfforts)) {
    throw bad(
      `reasoningEffort ${JSON.stringify(reasoningEffort)} is not one of ${reasoningEfforts.join(', ')}`,
    );
  }
  if (serviceTier !== undefined && !oneOf(serviceTier, serviceTiers)) {
    throw bad(`serviceTier ${JSON.stringify(serviceTier)} is not one of ${serviceTiers.join(', ')}`);
  }
  if (verbosity !== undefined && !oneOf(verbosity, verbosities)) {
    throw bad(`verbosity ${JSON.stringify(verbosity)} is not one of ${verbosities.join(', ')}`);
  }
  if (promptCache !== undefined && promptCache !== false) {
    const valid =
      typeof promptCache === 'object' &&
      promptCache !== null &&
      Object.keys(promptCache).every((key) => key === 'key' || key === 'ttl') &&
      (promptCache.key === undefined || (typeof promptCache.key === 'string' && promptCache.key !== '')) &&
      (promptCache.ttl === undefined || promptCache.ttl === '5m' || promptCache.ttl === '1h');
    if (!valid) {
      throw bad(
        `promptCache must be false or { key?: string, ttl?: '5m' | '1h' }, got ${JSON.stringify(promptCache)}`,
      );
    }
  }
  for (const [index, message] of request.messages.entries()) {
    if (message.role !== 'user' || message.parts === undefined) continue;
    if (!Array.isArray(message.parts)) throw bad(`messages[${index}].parts must be an array`);
    for (const [partIndex, part] of message.parts.entries()) {
      const type = (part as { type?: unknown } | null)?.type;
      if (type !== 'text' && type !== 'image' && type !== 'file') {
        throw bad(
          `messages[${index}].parts[${partIndex}] has unknown type ${JSON.stringify(type)}; expected text, image or file`,
        );
      }
      if (type === 'text' && typeof (part as { text?: unknown }).text !== 'string') {
        throw bad(`messages[${index}].parts[${partIndex}] (text) needs a text string`);
      }
    }
  }
}
