import {
  type GenerateRequest,
  type ModelCapabilities,
  ModelError,
  resolveCapabilities,
} from '@closedloop/model';
import { describe, expect, it } from 'vitest';
import {
  buildOpenAIRequest,
  isReasoningModelId,
  isStrictCompatibleSchema,
  toOpenAIMessages,
} from './build-openai-request';

const gpt41 = resolveCapabilities({ provider: 'openai', modelId: 'gpt-4.1' });
const o3 = resolveCapabilities({ provider: 'openai', modelId: 'o3' });
const plain: ModelCapabilities = {
  toolCalling: true,
  parallelToolCalls: false,
  streaming: true,
  structuredOutput: false,
  logprobs: false,
  reasoning: false,
  vision: false,
  contextWindow: 8192,
  maxOutputTokens: 4096,
};

function build(
  request: GenerateRequest,
  options: { modelId?: string; capabilities?: ModelCapabilities; stream?: boolean; provider?: string } = {},
) {
  return buildOpenAIRequest({
    provider: options.provider ?? 'openai',
    modelId: options.modelId ?? 'gpt-4.1',
    request,
    capabilities: options.capabilities ?? gpt41,
    settings: {},
    stream: options.stream ?? false,
  });
}

const hi: GenerateRequest = { messages: [{ role: 'user', content: 'hi' }] };

describe('isReasoningModelId', () => {
  it.each([
    ['o1', true],
    ['o3', true],
    ['o3-mini', true],
    ['o4-mini-2025-04-16', true],
    ['gpt-5', true],
    ['gpt-5-mini', true],
    ['gpt-5.1', true],
    ['gpt-5-chat-latest', false],
    ['gpt-4.1', false],
    ['gpt-4o', false],
    ['omni-moderation', false],
    ['llama3.1', false],
  ])('%s → %s', (id, expected) => {
    expect(isReasoningModelId(id)).toBe(expected);
  });
});

describe('isStrictCompatibleSchema', () => {
  it('accepts closed objects with every property required, nested too', () => {
    expect(
      isStrictCompatibleSchema({
        type: 'object',
        properties: {
          a: { type: 'string' },
          b: {
            type: 'array',
            items: {
              type: 'object',
              properties: { c: { type: 'number' } },
              required: ['c'],
              additionalProperties: false,
            },
          },
        },
        required: ['a', 'b'],
        additionalProperties: false,
      }),
    ).toBe(true);
  });
  it('rejects an optional property or an open object anywhere', () => {
    expect(
      isStrictCompatibleSchema({
        type: 'object',
        properties: { a: { type: 'string' } },
        required: [],
        additionalProperties: false,
      }),
    ).toBe(false);
    expect(
      isStrictCompatibleSchema({
        type: 'object',
        properties: { a: { anyOf: [{ type: 'object', properties: {} }, { type: 'null' }] } },
        required: ['a'],
        additionalProperties: false,
      }),
    ).toBe(false);
  });
});

describe('toOpenAIMessages', () => {
  it('maps every role; tool errors are prefixed; empty assistant text with tool calls is null', () => {
    expect(
      toOpenAIMessages([
        { role: 'system', content: 's' },
        { role: 'user', content: 'u' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c1', name: 't', arguments: { x: 1 }, rawArguments: '' }],
        },
        { role: 'tool', toolCallId: 'c1', toolName: 't', content: 'boom', isError: true },
        { role: 'tool', toolCallId: 'c1', toolName: 't', content: 'ok' },
        { role: 'assistant', content: 'done' },
      ]),
    ).toEqual([
      { role: 'system', content: 's' },
      { role: 'user', content: 'u' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 't', arguments: '{"x":1}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Error: boom' },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      { role: 'assistant', content: 'done' },
    ]);
  });
  it('rejects an unknown role with a typed error naming the index', () => {
    const bad = [{ role: 'robot', content: 'x' }] as unknown as Parameters<typeof toOpenAIMessages>[0];
    expect(() => toOpenAIMessages(bad)).toThrowError(/messages\[0\] has unknown role "robot"/);
    try {
      toOpenAIMessages(bad);
    } catch (error) {
      expect(ModelError.isInstance(error) && error.code).toBe('bad-request');
    }
  });
});

describe('buildOpenAIRequest', () => {
  it('rejects an empty message list', () => {
    expect(() => build({ messages: [] })).toThrowError(/non-empty array/);
  });

  it('uses the capability table field for the token limit and keeps temperature for chat models', () => {
    expect(build({ ...hi, maxOutputTokens: 100, temperature: 0.2 })).toMatchObject({
      max_completion_tokens: 100,
      temperature: 0.2,
    });
    const compat = build(
      { ...hi, maxOutputTokens: 100 },
      { capabilities: plain, provider: 'openai-compatible' },
    );
    expect(compat).toMatchObject({ max_tokens: 100 });
    expect(compat).not.toHaveProperty('max_completion_tokens');
  });

  it('applies reasoning-model rules: max_completion_tokens, no temperature, developer role, effort', () => {
    const body = buildOpenAIRequest({
      provider: 'openai',
      modelId: 'o3',
      request: {
        messages: [
          { role: 'system', content: 'be brief' },
          { role: 'user', content: 'hi' },
        ],
        maxOutputTokens: 500,
        temperature: 0.7,
        logprobs: true,
      },
      capabilities: o3,
      settings: { reasoningEffort: 'low' },
      stream: false,
    });
    expect(body).toEqual({
      model: 'o3',
      messages: [
        { role: 'developer', content: 'be brief' },
        { role: 'user', content: 'hi' },
      ],
      max_completion_tokens: 500,
      reasoning_effort: 'low',
      prompt_cache_key: expect.stringMatching(/^closedloop-/),
    });
  });

  it('maps tools, a named tool choice and parallel_tool_calls', () => {
    const body = build({
      ...hi,
      tools: [{ name: 'f', description: 'd', inputSchema: { type: 'object', properties: {} } }],
      toolChoice: { type: 'tool', name: 'f' },
      parallelToolCalls: false,
    });
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'f', description: 'd', parameters: { type: 'object', properties: {} } },
      },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'f' } });
    expect(body.parallel_tool_calls).toBe(false);
  });

  it('refuses a forced tool choice without tools, and drops toolChoice none without tools', () => {
    expect(() => build({ ...hi, toolChoice: 'required' })).toThrowError(/needs at least one tool/);
    expect(build({ ...hi, toolChoice: 'none' })).not.toHaveProperty('tool_choice');
  });

  it('sends a strict json_schema when the schema allows it, non-strict otherwise, json_object without support', () => {
    const closed = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    const open = { type: 'object', properties: { a: { type: 'string' } } };
    expect(
      build({ ...hi, responseFormat: { type: 'json', schema: closed, name: 'my answer!' } }).response_format,
    ).toEqual({
      type: 'json_schema',
      json_schema: { name: 'my_answer_', schema: closed, strict: true },
    });
    expect(build({ ...hi, responseFormat: { type: 'json', schema: open } }).response_format).toMatchObject({
      json_schema: { name: 'response', strict: false },
    });
    expect(
      build({ ...hi, responseFormat: { type: 'json', schema: closed } }, { capabilities: plain })
        .response_format,
    ).toEqual({ type: 'json_object' });
  });

  it('asks for logprobs only when the model supports them', () => {
    expect(build({ ...hi, logprobs: true }).logprobs).toBe(true);
    expect(build({ ...hi, logprobs: true }, { capabilities: plain })).not.toHaveProperty('logprobs');
  });

  it('streams with include_usage and maps the typed providerOptions; extraBody goes in last', () => {
    const body = build(
      {
        ...hi,
        providerOptions: { openai: { seed: 7, user: 'u-1', extraBody: { user: 'raw', x_flag: true } } },
      },
      { stream: true },
    );
    expect(body).toMatchObject({
      stream: true,
      stream_options: { include_usage: true },
      seed: 7,
      user: 'raw',
      x_flag: true,
    });
    const compat = build(
      { ...hi, providerOptions: { 'openai-compatible': { topK: 20 } } },
      { provider: 'openai-compatible', capabilities: plain },
    );
    expect(compat).toMatchObject({ top_k: 20 });
  });

  it('rejects unknown or badly typed provider options, naming them and the known ones', () => {
    expect(() => build({ ...hi, providerOptions: { openai: { top_k: 20 } } })).toThrowError(
      /providerOptions\.openai: unknown option "top_k"\. Known options: user, .*extraBody/,
    );
    expect(() => build({ ...hi, providerOptions: { openai: { seed: 'x' } } })).toThrowError(/seed: /);
    // Options for other providers are not ours to judge.
    expect(() => build({ ...hi, providerOptions: { anthropic: { top_k: 20 } } })).not.toThrow();
    expect(() => build({ ...hi, serviceTier: 'turbo' as never })).toThrowError(
      /serviceTier "turbo" is not one of auto, default, flex, priority/,
    );
  });

  it('maps the typed per-call options: stop sequences, seed, reasoning effort, service tier, verbosity', () => {
    const gpt5 = resolveCapabilities({ provider: 'openai', modelId: 'gpt-5' });
    const warnings: string[] = [];
    const body = buildOpenAIRequest({
      provider: 'openai',
      modelId: 'gpt-5',
      request: { ...hi, seed: 3, reasoningEffort: 'minimal', serviceTier: 'flex', verbosity: 'low' },
      capabilities: gpt5,
      settings: {},
      stream: false,
      warnings,
    });
    expect(body).toMatchObject({
      seed: 3,
      reasoning_effort: 'minimal',
      service_tier: 'flex',
      verbosity: 'low',
    });
    expect(warnings).toEqual([]);
    const chat = build({ ...hi, stopSequences: ['END'], reasoningEffort: 'high', verbosity: 'high' });
    expect(chat.stop).toEqual(['END']);
    expect(chat).not.toHaveProperty('reasoning_effort');
    expect(chat).not.toHaveProperty('verbosity');
    expect(() => build({ ...hi, stopSequences: ['a', 'b', 'c', 'd', 'e'] })).toThrowError(
      /at most 4 stopSequences/,
    );
  });

  it('marks tools strict when their schema allows it, and honours strict: false', () => {
    const closed = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    const open = { type: 'object', properties: { a: { type: 'string' } } };
    const body = build({
      ...hi,
      tools: [
        { name: 'strict_ok', description: 'd', inputSchema: closed },
        { name: 'loose', description: 'd', inputSchema: open },
        { name: 'opted_out', description: 'd', inputSchema: closed, strict: false },
      ],
    });
    expect(body.tools?.map((tool) => (tool.type === 'function' ? tool.function.strict : undefined))).toEqual([
      true,
      undefined,
      undefined,
    ]);
    // Servers without strict tools never get the flag.
    const compat = build(
      { ...hi, tools: [{ name: 'strict_ok', description: 'd', inputSchema: closed }] },
      { provider: 'openai-compatible', capabilities: plain },
    );
    expect(compat.tools?.[0]).not.toHaveProperty('function.strict');
  });

  it('sends prompt_cache_key for OpenAI (stable per system prompt and tools), never to other servers', () => {
    const key = build({
      ...hi,
      messages: [
        { role: 'system', content: 'S' },
        { role: 'user', content: '1' },
      ],
    }).prompt_cache_key;
    expect(key).toMatch(/^closedloop-/);
    expect(
      build({
        ...hi,
        messages: [
          { role: 'system', content: 'S' },
          { role: 'user', content: '2' },
        ],
      }).prompt_cache_key,
    ).toBe(key);
    expect(build({ ...hi, promptCache: { key: 'run-1' } }).prompt_cache_key).toBe('run-1');
    expect(build({ ...hi, promptCache: false })).not.toHaveProperty('prompt_cache_key');
    expect(build(hi, { provider: 'openai-compatible', capabilities: plain })).not.toHaveProperty(
      'prompt_cache_key',
    );
  });

  it('maps content parts: text, images (data or url) and PDF files', () => {
    const body = build({
      messages: [
        {
          role: 'user',
          content: 'What is in these?',
          parts: [
            { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            { type: 'image', url: 'https://example.com/cat.jpg', detail: 'low' },
            { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=', filename: 'report.pdf' },
            { type: 'text', text: 'Be brief.' },
          ],
        },
      ],
    });
    expect(body.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is in these?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'low' } },
        { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=', filename: 'report.pdf' } },
        { type: 'text', text: 'Be brief.' },
      ],
    });
    expect(() =>
      build({
        messages: [{ role: 'user', content: '', parts: [{ type: 'image', data: 'x', url: 'https://x' }] }],
      }),
    ).toThrowError(/messages\[0\]\.parts\[0\] \(image\) needs exactly one of data/);
  });
});
