import { createGoogleGenerativeAI } from '@ai-sdk/google-v4';
import { type GenerateRequest, ModelError, type StreamPart } from '@closedloop/model';
import { readRecordedResponse, useLoopbackServer } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { fromAISDK } from './ai-sdk-chat-model';

// AI SDK 7's Google provider (`@ai-sdk/google@4`, installed as `@ai-sdk/google-v4`): its models
// implement specification v4. Real client, real HTTP, recorded Gemini responses on loopback.
const fixture = (name: string) =>
  readRecordedResponse(new URL(`./__fixtures__/gemini/${name}.http`, import.meta.url));

const apiKey = 'test-google-key-v4';
const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};

describe('fromAISDK over @ai-sdk/google@4 (specification v4) on loopback', () => {
  const server = useLoopbackServer();
  const gemini = () => {
    const model = createGoogleGenerativeAI({ baseURL: `${server.url}/v1beta`, apiKey })('gemini-2.5-flash');
    expect(model.specificationVersion).toBe('v4');
    return fromAISDK(model, { secrets: [apiKey], capabilities: { contextWindow: 1_048_576 } });
  };

  it('generates and round-trips: image parts and reasoning effort sent, tool call with its thought signature back', async () => {
    server.script([
      { type: 'response', response: fixture('tool-call') },
      { type: 'response', response: fixture('tool-call') },
    ]);
    const chat = gemini();
    expect([chat.provider, chat.modelId]).toEqual(['google', 'gemini-2.5-flash']);
    const request: GenerateRequest = {
      messages: [
        {
          role: 'user',
          content: 'Weather in Paris?',
          parts: [{ type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
        },
      ],
      tools: [weatherTool],
      reasoningEffort: 'low',
    };
    const result = await chat.doGenerate(request);
    expect(result).toMatchObject({
      text: '',
      finishReason: 'tool-calls',
      rawFinishReason: 'STOP',
      reasoning: [{ text: 'The user wants the weather in Paris.' }],
      toolCalls: [
        {
          name: 'get_weather',
          arguments: { city: 'Paris' },
          providerData: { providerMetadata: { google: { thoughtSignature: 'c2lnLXBhcmlz' } } },
        },
      ],
      usage: {
        inputTokens: 41,
        outputTokens: 33,
        totalTokens: 74,
        cachedInputTokens: 16,
        reasoningTokens: 24,
      },
      response: { id: 'gem-resp-1', requestId: 'req_gemini_tool' },
    });
    // v4 carries the reasoning effort (Gemini 2.5: a thinking budget), so no "left out" warning.
    expect(result.warnings ?? []).toEqual([]);
    const sent = server.requests[0]?.json as {
      contents: unknown;
      generationConfig: { thinkingConfig?: { thinkingBudget?: number } };
    };
    expect(sent.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'Weather in Paris?' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
    ]);
    expect(sent.generationConfig.thinkingConfig?.thinkingBudget).toBeGreaterThan(0);

    const [call] = result.toolCalls;
    if (!call) throw new Error('expected a tool call');
    await chat.doGenerate({
      messages: [
        ...request.messages,
        {
          role: 'assistant',
          content: result.text,
          toolCalls: result.toolCalls,
          ...(result.reasoning ? { reasoning: result.reasoning } : {}),
        },
        { role: 'tool', toolCallId: call.id, toolName: call.name, content: '18°C, clear' },
      ],
      tools: [weatherTool],
    });
    const followUp = server.requests[1]?.json as { contents: unknown[] };
    expect(followUp.contents.slice(1)).toEqual([
      {
        role: 'model',
        parts: [
          { text: 'The user wants the weather in Paris.', thought: true },
          {
            functionCall: { id: call.id, name: 'get_weather', args: { city: 'Paris' } },
            thoughtSignature: 'c2lnLXBhcmlz',
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: call.id,
              name: 'get_weather',
              response: { name: 'get_weather', content: '18°C, clear' },
            },
          },
        ],
      },
    ]);
  });

  it('streams text deltas and one finish', async () => {
    server.script([{ type: 'response', response: fixture('text-stream'), chunking: 'events' }]);
    const parts: StreamPart[] = [];
    for await (const part of gemini().doStream({ messages: [{ role: 'user', content: 'Primes?' }] }))
      parts.push(part);
    expect(parts.filter((part) => part.type === 'text-delta').map((part) => part.delta)).toEqual([
      'Two, three',
      ' and five.',
    ]);
    expect(parts.at(-1)).toMatchObject({
      type: 'finish',
      result: {
        text: 'Two, three and five.',
        finishReason: 'stop',
        rawFinishReason: 'STOP',
        usage: { inputTokens: 7, outputTokens: 6, totalTokens: 13 },
        response: { id: 'gem-stream-1' },
      },
    });
  });

  it("a stream that ends before Gemini's finish reason (v4 `interrupted`) is a retryable network error", async () => {
    // Two events, then a clean end of the body: no finishReason ever arrives.
    server.script([
      { type: 'response', response: fixture('text-stream'), chunking: 'events', limitEvents: 2 },
    ]);
    const deltas: string[] = [];
    const error = await (async () => {
      for await (const part of gemini().doStream({ messages: [{ role: 'user', content: 'Primes?' }] }))
        if (part.type === 'text-delta') deltas.push(part.delta);
    })().catch((caught: unknown) => caught);
    expect(deltas).toEqual(['Two, three', ' and five.']);
    expect(ModelError.isInstance(error) && [error.code, error.isRetryable]).toEqual(['network', true]);
    expect((error as Error).message).toMatch(/ended before the provider's finish reason/);
  });

  it('maps a Gemini 400 to bad-request without the key; aborts are aborted', async () => {
    server.script([{ type: 'response', response: fixture('bad-request') }, { type: 'hang' }]);
    const chat = gemini();
    const error = await chat
      .doGenerate({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && [error.code, error.status, error.isRetryable]).toEqual([
      'bad-request',
      400,
      false,
    ]);
    expect((error as Error).message).toMatch(/HTTP 400 400: \* GenerateContentRequest/);
    expect(JSON.stringify(error)).not.toContain(apiKey);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const aborted = await chat
      .doGenerate({ messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(ModelError.isInstance(aborted) && aborted.code).toBe('aborted');
  });
});
