import type { GenerateRequest } from './chat-model';

/** 32-bit FNV-1a from `seed`. */
function fnv1a(text: string, seed: number): number {
  let hash = seed >>> 0;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A short stable hash without `node:crypto` (runs in browsers and edge runtimes). */
function hash(text: string): string {
  return fnv1a(text, 0x811c9dc5).toString(36) + fnv1a(text, 0x050c5d1f).toString(36);
}

/**
 * The prompt-cache routing key of a request (OpenAI `prompt_cache_key`): `request.promptCache.key`
 * when given, else one derived from the model id, the system messages and the tool names — the
 * prefix every step of an agent loop shares — so the steps of one loop land on the same cache.
 * `undefined` when `promptCache` is `false`.
 *
 * @example
 * promptCacheKey({ modelId: 'gpt-4.1', request }) // 'closedloop-1f3a9c0d2k'
 */
export function promptCacheKey(options: { modelId: string; request: GenerateRequest }): string | undefined {
  const { modelId, request } = options;
  const cache = request.promptCache;
  if (cache === false) return undefined;
  if (cache?.key !== undefined) return cache.key;
  let prefix = modelId;
  for (const message of request.messages) {
    if (message.role === 'system') prefix += `\u0000${message.content}`;
  }
  for (const tool of request.tools ?? []) prefix += `\u0001${tool.name}`;
  return `closedloop-${hash(prefix)}`;
}
