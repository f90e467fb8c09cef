/** One block of a prompt in the order the provider reads it (tools, system, messages' blocks). */
export interface PromptBlock {
  /** The block's content as sent (its JSON, or its text). */
  text: string;
  /** The request marks a cache breakpoint after this block (Anthropic `cache_control`). */
  breakpoint?: boolean;
}

/** How one request was billed. All counts are prompt tokens; they add up to `totalTokens`. */
export interface PromptCacheAccount {
  totalTokens: number;
  /** Billed at the full input rate. */
  uncachedTokens: number;
  /** Read from the cache (billed at the cached rate). */
  cacheReadTokens: number;
  /** Written to the cache (Anthropic bills them at a premium; OpenAI writes for free). */
  cacheWriteTokens: number;
}

/** Options of {@link createPromptCacheSimulator}. */
export interface PromptCacheSimulatorOptions {
  /**
   * `breakpoints`: Anthropic — only prefixes ending at an explicit breakpoint are written; a
   * request reads the longest cached prefix found at a breakpoint or at most `lookbackBlocks`
   * block boundaries before one. `automatic`: OpenAI — every prompt of at least `minimumTokens`
   * is cached; a request reads the longest cached prefix on the same route, in
   * `granularity`-token increments.
   */
  mode: 'breakpoints' | 'automatic';
  /** The shortest cacheable prefix (Anthropic Sonnet and OpenAI: 1024 tokens). */
  minimumTokens?: number;
  /** OpenAI counts cached tokens in steps of this many (128). Default 1. */
  granularity?: number;
  /** Anthropic checks this many block boundaries before each breakpoint for a hit (20). */
  lookbackBlocks?: number;
}

/** Deterministic token estimate for the simulator: one token per 4 characters, rounded up. */
export function estimatePromptTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * A provider's prompt-cache accounting, simulated for benchmarks on the loopback server. A cache
 * entry is a prompt prefix that ends at a block boundary, identified by the exact text of every
 * block up to it (so any change earlier in the prompt misses, as with the real caches); tokens
 * are estimated at 4 characters each. `account(blocks, route)` bills one request and updates the
 * cache; `route` separates caches (OpenAI routes by `prompt_cache_key`).
 */
export function createPromptCacheSimulator(options: PromptCacheSimulatorOptions): {
  account(blocks: readonly PromptBlock[], route?: string): PromptCacheAccount;
} {
  const { mode, minimumTokens = 1024, granularity = 1, lookbackBlocks = 20 } = options;
  const caches = new Map<string, Set<string>>();
  return {
    account(blocks, route = '') {
      let cache = caches.get(route);
      if (!cache) {
        cache = new Set();
        caches.set(route, cache);
      }
      // prefixKeys[i] / prefixTokens[i]: the prefix ending after block i.
      const prefixKeys: string[] = [];
      const prefixTokens: number[] = [];
      let key = '';
      let tokens = 0;
      for (const block of blocks) {
        key += `\u0000${block.text}`;
        tokens += estimatePromptTokens(block.text);
        prefixKeys.push(key);
        prefixTokens.push(tokens);
      }
      const totalTokens = tokens;
      let readTokens = 0;
      let writeTokens = 0;
      if (mode === 'automatic') {
        for (let index = blocks.length - 1; index >= 0; index--) {
          if (cache.has(prefixKeys[index] as string)) {
            readTokens = Math.floor((prefixTokens[index] as number) / granularity) * granularity;
            break;
          }
        }
        if (readTokens < minimumTokens) readTokens = 0;
        for (const [index, prefix] of prefixKeys.entries()) {
          if ((prefixTokens[index] as number) >= minimumTokens) cache.add(prefix);
        }
      } else {
        const breakpoints = blocks.flatMap((block, index) => (block.breakpoint ? [index] : []));
        for (const breakpoint of breakpoints) {
          for (let index = breakpoint; index >= Math.max(0, breakpoint - lookbackBlocks); index--) {
            if (cache.has(prefixKeys[index] as string)) {
              readTokens = Math.max(readTokens, prefixTokens[index] as number);
              break;
            }
          }
        }
        let written = readTokens;
        for (const breakpoint of breakpoints) {
          const prefix = prefixKeys[breakpoint] as string;
          const size = prefixTokens[breakpoint] as number;
          if (size < minimumTokens || cache.has(prefix)) continue;
          cache.add(prefix);
          written = Math.max(written, size);
        }
        writeTokens = written - readTokens;
      }
      return {
        totalTokens,
        uncachedTokens: totalTokens - readTokens - writeTokens,
        cacheReadTokens: readTokens,
        cacheWriteTokens: writeTokens,
      };
    },
  };
}
