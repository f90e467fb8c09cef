import { describe, expect, it } from 'vitest';
import type { GenerateRequest } from './chat-model';
import { promptCacheKey } from './prompt-cache';

const tool = { name: 'read_file', description: 'Read', inputSchema: { type: 'object' } };
const request = (system: string, user: string, extra: Partial<GenerateRequest> = {}): GenerateRequest => ({
  messages: [
    { role: 'system', content: system },
    { role: 'user', content: user },
  ],
  tools: [tool],
  ...extra,
});

describe('promptCacheKey', () => {
  it('is stable across the steps of one loop and differs with system, tools or model', () => {
    const a = promptCacheKey({ modelId: 'gpt-4.1', request: request('You are an agent.', 'step 1') });
    expect(a).toMatch(/^closedloop-[0-9a-z]+$/);
    expect(promptCacheKey({ modelId: 'gpt-4.1', request: request('You are an agent.', 'step 2') })).toBe(a);
    expect(promptCacheKey({ modelId: 'gpt-4.1', request: request('You are a planner.', 'step 1') })).not.toBe(
      a,
    );
    expect(promptCacheKey({ modelId: 'gpt-5', request: request('You are an agent.', 'step 1') })).not.toBe(a);
    expect(
      promptCacheKey({ modelId: 'gpt-4.1', request: request('You are an agent.', 'step 1', { tools: [] }) }),
    ).not.toBe(a);
  });

  it('uses an explicit key and turns off with promptCache: false', () => {
    expect(
      promptCacheKey({ modelId: 'm', request: request('s', 'u', { promptCache: { key: 'run-7' } }) }),
    ).toBe('run-7');
    expect(
      promptCacheKey({ modelId: 'm', request: request('s', 'u', { promptCache: false }) }),
    ).toBeUndefined();
  });
});
