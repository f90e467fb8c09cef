import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV2Content,
  LanguageModelV2StreamPart,
} from '@ai-sdk/provider';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider-v4';
import { generate, ModelError, type StreamPart } from '@closedloop/model';
import { describe, expect, it } from 'vitest';
import { fromAISDK } from './ai-sdk-chat-model';

/** A minimal AI SDK 5 (specification v2) model that records its calls. */
function v2Model(options: { stream?: LanguageModelV2StreamPart[] } = {}) {
  const calls: LanguageModelV2CallOptions[] = [];
  const model: LanguageModelV2 = {
    specificationVersion: 'v2',
    provider: 'acme.chat',
    modelId: 'acme-1',
    supportedUrls: {},
    async doGenerate(call) {
      calls.push(call);
      const content: LanguageModelV2Content[] = [
        { type: 'reasoning', text: 'Thinking.', providerMetadata: { acme: { signature: 'sig-1' } } },
        { type: 'text', text: 'Calling.' },
        {
          type: 'tool-call',
          toolCallId: 't1',
          toolName: 'get_weather',
          input: '{"city":"Paris"}',
          providerMetadata: { acme: { thought: 'x' } },
        },
      ];
      return {
        content,
        finishReason: 'tool-calls',
        usage: {
          inputTokens: 20,
          outputTokens: 5,
          totalTokens: 25,
          reasoningTokens: 2,
          cachedInputTokens: 8,
        },
        warnings: [{ type: 'unsupported-setting', setting: 'seed' }],
        response: { id: 'r-1', modelId: 'acme-1-2025', headers: { 'x-request-id': 'req-1' } },
      };
    },
    async doStream(call) {
      calls.push(call);
      const parts = options.stream ?? [];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
  return { model, calls };
}

describe('fromAISDK over a specification-v2 model', () => {
  it('maps the result: text, reasoning and tool calls with provider metadata, usage, warnings', async () => {
    const { model } = v2Model();
    const chat = fromAISDK(model, { capabilities: { contextWindow: 64_000 } });
    expect(chat.provider).toBe('acme');
    const result = await chat.doGenerate({ messages: [{ role: 'user', content: 'Weather?' }], seed: 1 });
    expect(result).toMatchObject({
      text: 'Calling.',
      finishReason: 'tool-calls',
      reasoning: [
        { text: 'Thinking.', providerData: { providerMetadata: { acme: { signature: 'sig-1' } } } },
      ],
      toolCalls: [
        {
          id: 't1',
          name: 'get_weather',
          arguments: { city: 'Paris' },
          providerData: { providerMetadata: { acme: { thought: 'x' } } },
        },
      ],
      usage: { inputTokens: 20, outputTokens: 5, totalTokens: 25, reasoningTokens: 2, cachedInputTokens: 8 },
      response: { id: 'r-1', modelId: 'acme-1-2025', requestId: 'req-1' },
      warnings: ['unsupported-setting seed'],
    });
  });

  it('sends reasoning and tool calls back with their metadata as providerOptions; merges tool results', async () => {
    const { model, calls } = v2Model();
    const chat = fromAISDK(model, { capabilities: { contextWindow: 64_000 } });
    const first = await chat.doGenerate({ messages: [{ role: 'user', content: 'Weather?' }] });
    await chat.doGenerate({
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: 'Weather?',
          parts: [{ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
        },
        {
          role: 'assistant',
          content: first.text,
          toolCalls: first.toolCalls,
          ...(first.reasoning ? { reasoning: first.reasoning } : {}),
        },
        { role: 'tool', toolCallId: 't1', toolName: 'get_weather', content: 'sunny' },
        { role: 'tool', toolCallId: 't2', toolName: 'get_weather', content: 'boom', isError: true },
      ],
    });
    expect(calls[1]?.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather?' },
          { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'Thinking.', providerOptions: { acme: { signature: 'sig-1' } } },
          { type: 'text', text: 'Calling.' },
          {
            type: 'tool-call',
            toolCallId: 't1',
            toolName: 'get_weather',
            input: { city: 'Paris' },
            providerOptions: { acme: { thought: 'x' } },
          },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 't1',
            toolName: 'get_weather',
            output: { type: 'text', value: 'sunny' },
          },
          {
            type: 'tool-result',
            toolCallId: 't2',
            toolName: 'get_weather',
            output: { type: 'error-text', value: 'boom' },
          },
        ],
      },
    ]);
  });

  it('reads nothing after the finish part: a late delta, tool call, error or second finish is not the answer', async () => {
    const { model } = v2Model({
      stream: [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 'a' },
        { type: 'text-delta', id: 'a', delta: 'Done.' },
        { type: 'finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 } },
        { type: 'text-delta', id: 'a', delta: ' And more.' },
        { type: 'tool-call', toolCallId: 'late', toolName: 'delete_file', input: '{"path":"x"}' },
        { type: 'error', error: new Error('late') },
        {
          type: 'finish',
          finishReason: 'length',
          usage: { inputTokens: 9, outputTokens: 9, totalTokens: 18 },
        },
      ],
    });
    const parts: StreamPart[] = [];
    const result = await generate(
      fromAISDK(model, { capabilities: {} }),
      { messages: [{ role: 'user', content: 'go' }] },
      { onPart: (part) => parts.push(part) },
    );
    expect(parts.map((part) => part.type)).toEqual(['text-delta', 'finish']);
    expect(result).toMatchObject({
      text: 'Done.',
      toolCalls: [],
      finishReason: 'stop',
      usage: { totalTokens: 5 },
    });
  });

  it('streams v2 parts: deltas, tool input, finish; a stream error part is a typed error', async () => {
    const { model } = v2Model({
      stream: [
        { type: 'stream-start', warnings: [] },
        { type: 'response-metadata', id: 'r-2', modelId: 'acme-1' },
        { type: 'text-start', id: 'a' },
        { type: 'text-delta', id: 'a', delta: 'Hi' },
        { type: 'tool-input-start', id: 'c1', toolName: 'list_files' },
        { type: 'tool-input-delta', id: 'c1', delta: '{}' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'list_files', input: '{}' },
        {
          type: 'finish',
          finishReason: 'tool-calls',
          usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 },
        },
      ],
    });
    const parts: StreamPart[] = [];
    const result = await generate(
      fromAISDK(model, { capabilities: {} }),
      { messages: [{ role: 'user', content: 'go' }] },
      { onPart: (part) => parts.push(part) },
    );
    expect(parts.map((part) => part.type)).toEqual([
      'text-delta',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call',
      'finish',
    ]);
    expect(result).toMatchObject({ text: 'Hi', finishReason: 'tool-calls', response: { id: 'r-2' } });

    const failing = v2Model({
      stream: [
        {
          type: 'error',
          error: { error: { message: 'Invalid schema for tool', type: 'invalid_request_error', code: 400 } },
        },
      ],
    });
    const error = await generate(
      fromAISDK(failing.model, { capabilities: {} }),
      { messages: [{ role: 'user', content: 'go' }] },
      {
        onPart: () => {},
        retry: { sleep: async () => {} },
      },
    ).catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && [error.code, error.isRetryable]).toEqual(['bad-request', false]);
    expect(failing.calls).toHaveLength(1);
  });

  it('rejects something that is not an AI SDK language model', () => {
    expect(() =>
      fromAISDK({ specificationVersion: 'v5', provider: 'x', modelId: 'y' } as never),
    ).toThrowError(/expected an AI SDK language model \(specificationVersion v2, v3 or v4\), got "v5"/);
  });

  it('rejects bad numeric options and an empty name at construction with a typed error', () => {
    const model = v4Model().model as never;
    const messageOf = (options: Parameters<typeof fromAISDK>[1]) => {
      try {
        fromAISDK(model, options);
      } catch (error) {
        return ModelError.isInstance(error) ? `${error.code}: ${error.message}` : String(error);
      }
      return 'no error';
    };
    expect(messageOf({ streamIdleTimeoutMs: -1 })).toBe(
      'bad-request: fromAISDK: streamIdleTimeoutMs must be a number of milliseconds >= 0 (0 turns the stall guard off), got -1',
    );
    expect(messageOf({ streamIdleTimeoutMs: Number.NaN })).toMatch(/got NaN$/);
    expect(messageOf({ timeoutMs: 0 })).toMatch(
      /^bad-request: fromAISDK: timeoutMs must be a positive number/,
    );
    expect(messageOf({ timeoutMs: Number.NaN })).toMatch(/got NaN$/);
    expect(messageOf({ name: ' ' })).toBe('bad-request: fromAISDK: name must not be empty');
    expect(messageOf({ streamIdleTimeoutMs: 0, timeoutMs: 1_000 })).toBe('no error');
  });
});

/** A minimal AI SDK 7 (specification v4) model that records its calls. */
function v4Model(
  options: {
    content?: LanguageModelV4Content[];
    finishReason?: LanguageModelV4FinishReason;
    stream?: LanguageModelV4StreamPart[];
  } = {},
) {
  const calls: LanguageModelV4CallOptions[] = [];
  const usage = {
    inputTokens: { total: 30, noCache: 10, cacheRead: 12, cacheWrite: 8 },
    outputTokens: { total: 7, text: 4, reasoning: 3 },
  };
  const model: LanguageModelV4 = {
    specificationVersion: 'v4',
    provider: 'acme.responses',
    modelId: 'acme-2',
    supportedUrls: {},
    async doGenerate(call) {
      calls.push(call);
      return {
        content: options.content ?? [{ type: 'text', text: 'Done.' }],
        finishReason: options.finishReason ?? { unified: 'stop', raw: 'end_turn' },
        usage,
        warnings: [
          { type: 'unsupported', feature: 'topK', details: 'ignored' },
          { type: 'deprecated', setting: 'legacyMode', message: 'legacyMode is deprecated; use mode' },
        ],
        response: { id: 'r-4', modelId: 'acme-2-2026', headers: { 'request-id': 'req-4' } },
      };
    },
    async doStream(call) {
      calls.push(call);
      const parts = options.stream ?? [];
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
  return { model, calls };
}

describe('fromAISDK over a specification-v4 model (AI SDK 7)', () => {
  it('sends V4 call options: tagged file data, the reasoning effort as `reasoning`', async () => {
    const { model, calls } = v4Model();
    const result = await fromAISDK(model, { capabilities: {} }).doGenerate({
      messages: [
        {
          role: 'user',
          content: 'Compare.',
          parts: [
            { type: 'image', url: 'https://example.com/a.png' },
            { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=', filename: 'b.pdf' },
          ],
        },
      ],
      reasoningEffort: 'high',
      serviceTier: 'flex',
      tools: [{ name: 'list_files', description: 'List files.', inputSchema: { type: 'object' } }],
      toolChoice: { type: 'tool', name: 'list_files' },
    });
    expect(calls[0]).toMatchObject({
      prompt: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare.' },
            {
              type: 'file',
              mediaType: 'image/*',
              data: { type: 'url', url: new URL('https://example.com/a.png') },
            },
            {
              type: 'file',
              mediaType: 'application/pdf',
              filename: 'b.pdf',
              data: { type: 'data', data: 'JVBERi0=' },
            },
          ],
        },
      ],
      reasoning: 'high',
      tools: [{ type: 'function', name: 'list_files', description: 'List files.' }],
      toolChoice: { type: 'tool', toolName: 'list_files' },
    });
    // Only what V4 has no field for is reported as left out.
    expect(result.warnings).toEqual([
      "serviceTier has no AI SDK call option and was left out; set it in the provider's providerOptions",
      'unsupported topK: ignored',
      'legacyMode is deprecated; use mode',
    ]);
  });

  it('maps V4 content: text, reasoning, client tool calls; skips files, sources, custom and provider-executed parts', async () => {
    const { model } = v4Model({
      content: [
        { type: 'reasoning', text: 'Plan.', providerMetadata: { acme: { signature: 's-4' } } },
        { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
        { type: 'custom', kind: 'acme.compaction' },
        { type: 'source', sourceType: 'url', id: 'src-1', url: 'https://example.com' },
        {
          type: 'text',
          text: 'Found it.',
          citations: [
            { source: { type: 'source', sourceType: 'url', id: 'src-1', url: 'https://example.com' } },
          ],
        },
        {
          type: 'file',
          mediaType: 'image/png',
          data: { type: 'url', url: new URL('https://example.com/c.png') },
        },
        {
          type: 'tool-call',
          toolCallId: 'ws-1',
          toolName: 'web_search',
          input: '{"q":"x"}',
          providerExecuted: true,
        },
        { type: 'tool-result', toolCallId: 'ws-1', toolName: 'web_search', result: { hits: 1 } },
        { type: 'tool-approval-request', approvalId: 'a-1', toolCallId: 'ws-2' },
        { type: 'tool-call', toolCallId: 'c-1', toolName: 'read_file', input: '{"path":"a.txt"}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_use' },
    });
    const result = await fromAISDK(model, { capabilities: {} }).doGenerate({
      messages: [{ role: 'user', content: 'Search.' }],
    });
    expect(result).toMatchObject({
      text: 'Found it.',
      reasoning: [{ text: 'Plan.', providerData: { providerMetadata: { acme: { signature: 's-4' } } } }],
      toolCalls: [{ id: 'c-1', name: 'read_file', arguments: { path: 'a.txt' } }],
      finishReason: 'tool-calls',
      rawFinishReason: 'tool_use',
      usage: {
        inputTokens: 30,
        outputTokens: 7,
        totalTokens: 37,
        cachedInputTokens: 12,
        cacheWriteInputTokens: 8,
        reasoningTokens: 3,
      },
      response: { id: 'r-4', modelId: 'acme-2-2026', requestId: 'req-4' },
    });
    expect(result.toolCalls).toHaveLength(1);
  });

  it("an `interrupted` finish (the provider's response ended without a completion signal) is a retryable network error", async () => {
    const { model } = v4Model({
      content: [{ type: 'text', text: 'Half an ans' }],
      finishReason: { unified: 'interrupted', raw: undefined },
    });
    const error = await fromAISDK(model, { capabilities: {} })
      .doGenerate({ messages: [{ role: 'user', content: 'go' }] })
      .catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && [error.code, error.isRetryable]).toEqual(['network', true]);
    expect((error as Error).message).toMatch(/the response ended before the provider's finish reason/);
  });

  it('streams V4 parts; an `interrupted` stream is a cut, not a finished answer', async () => {
    const stream: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: 'r-5', modelId: 'acme-2' },
      { type: 'reasoning-start', id: 'r', providerMetadata: { acme: { signature: 's-5' } } },
      { type: 'reasoning-delta', id: 'r', delta: 'Think.' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'custom', kind: 'acme.marker' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Hel' },
      { type: 'text-delta', id: 't', delta: 'lo' },
      { type: 'text-end', id: 't', citations: [] },
      { type: 'source', sourceType: 'url', id: 's', url: 'https://example.com' },
      { type: 'tool-input-start', id: 'c1', toolName: 'read_file' },
      { type: 'tool-input-delta', id: 'c1', delta: '{"path":' },
      { type: 'tool-input-delta', id: 'c1', delta: '"a.txt"}' },
      { type: 'tool-input-end', id: 'c1' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: '{"path":"a.txt"}' },
    ];
    const finished = v4Model({
      stream: [
        ...stream,
        {
          type: 'finish',
          finishReason: { unified: 'tool-calls', raw: 'tool_use' },
          usage: {
            inputTokens: { total: 5, noCache: 5, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 4, text: 2, reasoning: 2 },
          },
        },
      ],
    });
    const parts: StreamPart[] = [];
    const result = await generate(
      fromAISDK(finished.model, { capabilities: {} }),
      { messages: [{ role: 'user', content: 'go' }] },
      { onPart: (part) => parts.push(part) },
    );
    expect(parts.map((part) => part.type)).toEqual([
      'reasoning-delta',
      'text-delta',
      'text-delta',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call-delta',
      'tool-call',
      'finish',
    ]);
    expect(result).toMatchObject({
      text: 'Hello',
      reasoning: [{ text: 'Think.', providerData: { providerMetadata: { acme: { signature: 's-5' } } } }],
      toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } }],
      finishReason: 'tool-calls',
      usage: { inputTokens: 5, outputTokens: 4, totalTokens: 9, reasoningTokens: 2 },
      response: { id: 'r-5', modelId: 'acme-2' },
    });

    const interrupted = v4Model({
      stream: [
        ...stream.slice(0, 9),
        {
          type: 'finish',
          finishReason: { unified: 'interrupted', raw: undefined },
          usage: {
            inputTokens: { total: 5, noCache: 5, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: undefined, text: undefined, reasoning: undefined },
          },
        },
      ],
    });
    const deltas: string[] = [];
    const error = await (async () => {
      for await (const part of fromAISDK(interrupted.model, { capabilities: {} }).doStream({
        messages: [{ role: 'user', content: 'go' }],
      }))
        if (part.type === 'text-delta') deltas.push(part.delta);
    })().catch((caught: unknown) => caught);
    expect(deltas).toEqual(['Hel', 'lo']);
    expect(ModelError.isInstance(error) && [error.code, error.isRetryable]).toEqual(['network', true]);
  });
});
