import type {
  LanguageModelV2,
  LanguageModelV2CallOptions,
  LanguageModelV2Content,
  LanguageModelV2StreamPart,
} from '@ai-sdk/provider';
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
});
