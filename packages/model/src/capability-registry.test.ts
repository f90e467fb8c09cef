import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  builtInCapabilities,
  conservativeCapabilities,
  formatCapabilityTable,
  lookupCapabilities,
  matchesModelPattern,
  registerCapabilities,
  resetCapabilityRegistry,
  resolveCapabilities,
} from './capability-registry';

afterEach(() => {
  resetCapabilityRegistry();
  vi.restoreAllMocks();
});

const quiet = { onWarning: () => {} };

describe('matchesModelPattern', () => {
  it('matches globs over the whole id, case-insensitively, and RegExps', () => {
    expect(matchesModelPattern('gpt-4.1*', 'gpt-4.1-mini-2025-04-14')).toBe(true);
    expect(matchesModelPattern('gpt-4.1*', 'gpt-4-1')).toBe(false);
    expect(matchesModelPattern('gpt-4.1*', 'my-gpt-4.1')).toBe(false);
    expect(matchesModelPattern('o?-mini', 'O3-MINI')).toBe(true);
    expect(matchesModelPattern(/^qwen/, 'qwen2.5-coder')).toBe(true);
  });
});

describe('resolveCapabilities', () => {
  it('knows current OpenAI models', () => {
    const gpt41 = resolveCapabilities({ provider: 'openai', modelId: 'gpt-4.1-mini', ...quiet });
    expect(gpt41).toMatchObject({
      structuredOutput: true,
      logprobs: true,
      reasoning: false,
      parallelToolCalls: true,
    });
    expect(gpt41.contextWindow).toBeGreaterThan(1_000_000);
    expect(resolveCapabilities({ provider: 'openai', modelId: 'gpt-4o-mini', ...quiet }).contextWindow).toBe(
      128_000,
    );
    expect(
      resolveCapabilities({ provider: 'openai', modelId: 'gpt-4o-2024-05-13', ...quiet }).structuredOutput,
    ).toBe(false);
  });

  it('marks OpenAI reasoning models: no temperature, max_completion_tokens, reasoning, no logprobs', () => {
    for (const modelId of ['o1', 'o3', 'o3-mini', 'o4-mini', 'gpt-5', 'gpt-5-mini-2025-08-07']) {
      expect(resolveCapabilities({ provider: 'openai', modelId, ...quiet })).toMatchObject({
        reasoning: true,
        supportsTemperature: false,
        maxTokensParameter: 'max_completion_tokens',
        logprobs: false,
      });
    }
    expect(resolveCapabilities({ provider: 'openai', modelId: 'gpt-5-chat-latest', ...quiet })).toMatchObject(
      {
        reasoning: false,
        supportsTemperature: true,
      },
    );
    expect(resolveCapabilities({ provider: 'openai', modelId: 'o1-mini', ...quiet }).toolCalling).toBe(false);
  });

  it('knows Anthropic models: no logprobs, structured output (forced tool), reasoning for 3.7+ and 4', () => {
    for (const modelId of [
      'claude-opus-4-1-20250805',
      'claude-sonnet-4-5',
      'claude-3-7-sonnet-latest',
      'claude-haiku-4-5',
    ]) {
      expect(resolveCapabilities({ provider: 'anthropic', modelId, ...quiet })).toMatchObject({
        reasoning: true,
        logprobs: false,
        toolCalling: true,
        structuredOutput: true,
      });
    }
    expect(
      resolveCapabilities({ provider: 'anthropic', modelId: 'claude-3-5-haiku-20241022', ...quiet }),
    ).toMatchObject({
      reasoning: false,
      logprobs: false,
      structuredOutput: true,
      maxOutputTokens: 8_192,
    });
    // Unknown Anthropic ids get the conservative defaults like any other unknown model.
    expect(
      resolveCapabilities({ provider: 'anthropic', modelId: 'claude-next-preview', ...quiet })
        .structuredOutput,
    ).toBe(false);
  });

  it('does not apply a provider row to another provider', () => {
    const { source } = lookupCapabilities({ provider: 'openai-compatible', modelId: 'gpt-4o' });
    expect(source).toBe('default');
  });

  it('gives unknown models conservative defaults and warns once per model id', () => {
    const warnings: string[] = [];
    const onWarning = (message: string) => warnings.push(message);
    const first = resolveCapabilities({ provider: 'openai-compatible', modelId: 'llama3.1:8b', onWarning });
    resolveCapabilities({ provider: 'openai-compatible', modelId: 'llama3.1:8b', onWarning });
    resolveCapabilities({ provider: 'openai-compatible', modelId: 'qwen3:14b', onWarning });
    expect(first).toEqual(conservativeCapabilities);
    expect(first).toMatchObject({
      toolCalling: true,
      parallelToolCalls: false,
      structuredOutput: false,
      logprobs: false,
    });
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/unknown model openai-compatible:llama3\.1:8b/);
  });

  it('falls back to console.warn without onWarning', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    resolveCapabilities({ provider: 'openai', modelId: 'gpt-99' });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it('applies overrides last and does not warn when given', () => {
    const onWarning = vi.fn();
    const caps = resolveCapabilities({
      provider: 'openai-compatible',
      modelId: 'mistral-small',
      overrides: { contextWindow: 32_000, structuredOutput: true },
      onWarning,
    });
    expect(caps).toMatchObject({ contextWindow: 32_000, structuredOutput: true, parallelToolCalls: false });
    expect(onWarning).not.toHaveBeenCalled();
    expect(
      resolveCapabilities({ provider: 'openai', modelId: 'gpt-4o', overrides: { vision: false } }).vision,
    ).toBe(false);
  });

  it('merges registrations over the table; later ones win; unregister works', () => {
    const onWarning = vi.fn();
    const remove = registerCapabilities({
      provider: 'openai-compatible',
      pattern: 'llama3.1*',
      capabilities: { contextWindow: 131_072 },
    });
    registerCapabilities({
      provider: 'openai-compatible',
      pattern: /^llama/,
      capabilities: { contextWindow: 64_000, parallelToolCalls: true },
    });
    const caps = resolveCapabilities({ provider: 'openai-compatible', modelId: 'llama3.1:70b', onWarning });
    expect(caps).toMatchObject({ contextWindow: 64_000, parallelToolCalls: true, structuredOutput: false });
    expect(onWarning).not.toHaveBeenCalled();
    remove();
    expect(
      lookupCapabilities({ provider: 'openai-compatible', modelId: 'llama3.1:70b' }).capabilities
        .contextWindow,
    ).toBe(64_000);

    registerCapabilities({ provider: 'openai', pattern: 'gpt-4o*', capabilities: { logprobs: false } });
    const gpt4o = lookupCapabilities({ provider: 'openai', modelId: 'gpt-4o' });
    expect(gpt4o).toMatchObject({
      source: 'registered',
      capabilities: { logprobs: false, structuredOutput: true },
    });
  });

  it('knows current Claude figures: 4.6+ have a 1M context and 128k output', () => {
    for (const modelId of ['claude-sonnet-4-6', 'claude-opus-4-6', 'claude-opus-4-7', 'claude-opus-4-8']) {
      expect(resolveCapabilities({ provider: 'anthropic', modelId, ...quiet })).toMatchObject({
        contextWindow: 1_000_000,
        maxOutputTokens: 128_000,
        reasoning: true,
      });
    }
    expect(
      resolveCapabilities({ provider: 'anthropic', modelId: 'claude-sonnet-4-5-20250929', ...quiet }),
    ).toMatchObject({ contextWindow: 200_000, maxOutputTokens: 64_000 });
  });

  it('gives a newer generation of a known family its family capabilities, with one notice', () => {
    const warnings: string[] = [];
    const onWarning = (message: string) => warnings.push(message);
    for (const modelId of ['claude-sonnet-5-5', 'claude-sonnet-4-9', 'claude-sonnet-5-5-20270101']) {
      const lookup = lookupCapabilities({ provider: 'anthropic', modelId });
      expect(lookup).toMatchObject({ source: 'family', familyModelId: 'claude-sonnet-4-6' });
      expect(resolveCapabilities({ provider: 'anthropic', modelId, onWarning })).toEqual(
        resolveCapabilities({ provider: 'anthropic', modelId: 'claude-sonnet-4-6', onWarning }),
      );
    }
    resolveCapabilities({ provider: 'anthropic', modelId: 'claude-sonnet-5-5', onWarning });
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/anthropic:claude-sonnet-5-5 is a newer generation.*claude-sonnet-4-6/);
    expect(lookupCapabilities({ provider: 'anthropic', modelId: 'claude-opus-5' })).toMatchObject({
      source: 'family',
      familyModelId: 'claude-opus-4-8',
    });
    expect(
      lookupCapabilities({ provider: 'anthropic', modelId: 'claude-haiku-5-5' }).capabilities,
    ).toMatchObject({
      structuredOutput: true,
      reasoning: true,
      contextWindow: 200_000,
    });
    // OpenAI: gpt-6 variants and o5 map to the newest known row of their variant.
    expect(lookupCapabilities({ provider: 'openai', modelId: 'gpt-6-mini' })).toMatchObject({
      source: 'family',
      familyModelId: 'gpt-5-mini',
      capabilities: { reasoning: true, supportsTemperature: false },
    });
    expect(lookupCapabilities({ provider: 'openai', modelId: 'o5-mini' }).familyModelId).toBe('o4-mini');
    // gpt-5.x is a known generation (the gpt-5* row), not a family guess.
    expect(lookupCapabilities({ provider: 'openai', modelId: 'gpt-5.2' }).source).toBe('built-in');
    // An older or same generation id keeps its own row.
    expect(lookupCapabilities({ provider: 'anthropic', modelId: 'claude-sonnet-4-5' }).source).toBe(
      'built-in',
    );
    // An unknown family stays unknown.
    expect(lookupCapabilities({ provider: 'anthropic', modelId: 'claude-fable-5-1' }).source).toBe('default');
  });

  it('warns once for retired models, naming the replacement', () => {
    const warnings: string[] = [];
    const onWarning = (message: string) => warnings.push(message);
    const caps = resolveCapabilities({
      provider: 'anthropic',
      modelId: 'claude-3-5-haiku-20241022',
      onWarning,
    });
    resolveCapabilities({ provider: 'anthropic', modelId: 'claude-3-5-haiku-20241022', onWarning });
    expect(caps.maxOutputTokens).toBe(8_192);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/claude-3-5-haiku-20241022 was retired .* Use claude-haiku-4-5/);
    expect(lookupCapabilities({ provider: 'openai', modelId: 'o1-mini' }).retired?.replacement).toBe(
      'o4-mini',
    );
    expect(
      lookupCapabilities({ provider: 'anthropic', modelId: 'claude-sonnet-4-6' }).retired,
    ).toBeUndefined();
  });

  it('knows DeepSeek models under any provider id, with their real context window', () => {
    for (const provider of ['deepseek', 'openai-compatible']) {
      expect(resolveCapabilities({ provider, modelId: 'deepseek-reasoner', ...quiet })).toMatchObject({
        contextWindow: 128_000,
        maxOutputTokens: 64_000,
        reasoning: true,
        structuredOutput: false,
        maxTokensParameter: 'max_tokens',
      });
    }
    expect(
      resolveCapabilities({ provider: 'deepseek', modelId: 'deepseek-chat', ...quiet }).contextWindow,
    ).toBe(128_000);
  });

  it('looks gateway ids (vendor/model) up under the vendor', () => {
    expect(
      lookupCapabilities({ provider: 'openrouter', modelId: 'anthropic/claude-sonnet-4-6' }),
    ).toMatchObject({
      source: 'built-in',
      capabilities: { contextWindow: 1_000_000 },
    });
    expect(
      lookupCapabilities({ provider: 'openrouter', modelId: 'openai/gpt-4.1' }).capabilities.logprobs,
    ).toBe(true);
    expect(lookupCapabilities({ provider: 'openrouter', modelId: 'meta/llama-4' }).source).toBe('default');
  });

  it('a wildcard provider registration applies to every provider', () => {
    registerCapabilities({ provider: '*', pattern: 'shared-model', capabilities: { vision: true } });
    expect(resolveCapabilities({ provider: 'x', modelId: 'shared-model' }).vision).toBe(true);
  });
});

describe('built-in table', () => {
  it('has no row shadowed by an earlier, broader row', () => {
    const concrete = (pattern: string) => pattern.replace(/\*/g, '-x').replace(/\?/g, 'x');
    for (const [index, entry] of builtInCapabilities.entries()) {
      if (typeof entry.pattern !== 'string') continue;
      const sample = concrete(entry.pattern);
      const firstMatch = builtInCapabilities.findIndex(
        (other) => other.provider === entry.provider && matchesModelPattern(other.pattern, sample),
      );
      expect(firstMatch, `${entry.pattern} is shadowed`).toBe(index);
    }
  });

  it('is documented in the README exactly as formatCapabilityTable() prints it', () => {
    // Cell padding may differ (formatters align Markdown tables); the cells must not.
    const normalize = (text: string) =>
      text
        .split('\n')
        .map((line) =>
          line
            .split('|')
            .map((cell) => cell.trim().replace(/^-+$/, '---'))
            .join('|'),
        )
        .join('\n');
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    expect(normalize(readme)).toContain(normalize(formatCapabilityTable()));
  });
});
