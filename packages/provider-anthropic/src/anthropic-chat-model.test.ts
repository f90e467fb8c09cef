import { generate, generateObject, registerCapabilities, resolveCapabilities } from '@closedloop/model';
import {
  modelRejection,
  parseRecordedResponse,
  replayFixtures,
  streamResult,
} from '@closedloop/model/conformance';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { anthropic, createAnthropic } from './anthropic-provider';

const { server, read: fixture } = replayFixtures(new URL('./__fixtures__/', import.meta.url));
const question = { messages: [{ role: 'user' as const, content: 'What is 6 times 7?' }] };

// The default run stays quiet: a console.warn (the SDK warns about deprecated model ids and
// `thinking.type=enabled` on some models) fails the test that caused it.
let warn: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  warn = vi.spyOn(console, 'warn');
});
afterEach(() => {
  vi.unstubAllEnvs();
  expect(warn, 'something printed a warning').not.toHaveBeenCalled();
  warn.mockRestore();
});

const provider = () => createAnthropic({ apiKey: 'sk-ant-loopback-000000', baseURL: server.url });

const signature = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYWRkeSBzaWduYXR1cmUiMLoopbackSignatureForTests0000==';
const redactedData = 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP';

describe('AnthropicChatModel over the loopback server', () => {
  it('returns thinking and redacted thinking as reasoning parts, with thinking tokens', async () => {
    server.script([{ type: 'response', response: fixture('thinking') }]);
    const model = provider()('claude-sonnet-4-6', { thinking: { budgetTokens: 2048 } });
    const result = await model.doGenerate({ ...question, temperature: 0.2 });
    expect(result.text).toBe('42');
    expect(result.reasoning).toEqual([
      { text: 'The user wants a number. 6 times 7 is 42.', signature },
      { text: '', signature: redactedData, redacted: true },
    ]);
    expect(result.usage).toMatchObject({ reasoningTokens: 80, outputTokens: 90 });
    expect(server.requests[0]?.json).toMatchObject({
      thinking: { type: 'enabled', budget_tokens: 2048 },
      max_tokens: 2048 + 8192,
    });
    expect(server.requests[0]?.json).not.toHaveProperty('temperature');
  });

  it('streams thinking deltas, assembles the signature and sends it all back on the next turn', async () => {
    server.script([
      { type: 'response', response: fixture('thinking-stream'), chunking: 'events' },
      { type: 'response', response: fixture('text') },
    ]);
    const model = provider()('claude-sonnet-4-6', { thinking: { budgetTokens: 1024 } });
    const { parts, result } = await streamResult(model.doStream(question));
    expect(
      parts
        .filter((part) => part.type === 'reasoning-delta')
        .map((part) => part.type === 'reasoning-delta' && part.delta),
    ).toEqual(['The user wants a number.', ' 6 times 7 is 42.']);
    expect(result.reasoning).toEqual([
      { text: 'The user wants a number. 6 times 7 is 42.', signature },
      { text: '', signature: redactedData, redacted: true },
    ]);
    expect(result.text).toBe('42');

    await model.doGenerate({
      messages: [
        ...question.messages,
        {
          role: 'assistant',
          content: result.text,
          ...(result.reasoning ? { reasoning: result.reasoning } : {}),
        },
        { role: 'user', content: 'And 7 times 8?' },
      ],
    });
    const sent = server.requests[1]?.json as { messages: unknown[] };
    expect(sent.messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'The user wants a number. 6 times 7 is 42.', signature },
        { type: 'redacted_thinking', data: redactedData },
        { type: 'text', text: '42' },
      ],
    });
  });

  it('maps refusal and max_tokens stop reasons', async () => {
    server.script([
      { type: 'response', response: fixture('refusal') },
      { type: 'response', response: fixture('max-tokens') },
    ]);
    const model = provider()('claude-sonnet-4-6');
    expect(await model.doGenerate(question)).toMatchObject({
      finishReason: 'refusal',
      rawFinishReason: 'refusal',
    });
    expect(await model.doGenerate(question)).toMatchObject({
      finishReason: 'length',
      rawFinishReason: 'max_tokens',
    });
  });

  it('a spend-limit 429 is rate-limited but not retryable', async () => {
    server.script([{ type: 'response', response: fixture('spend-limit') }]);
    const error = await modelRejection(provider()('claude-sonnet-4-6').doGenerate(question));
    expect(error).toMatchObject({
      code: 'rate-limited',
      status: 429,
      isRetryable: false,
      requestId: 'req_spend_limit',
    });
  });

  it('unwraps a non-object structured-output schema, generated and streamed', async () => {
    const tags = ['breakfast', 'sweet'];
    const message = {
      id: 'msg_x',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [{ type: 'tool_use', id: 'toolu_x', name: 'tags', input: { value: tags } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 5, output_tokens: 5 },
    };
    const event = (name: string, data: object) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
    const streamed = [
      event('message_start', {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null },
      }),
      event('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: 'toolu_x', name: 'tags', input: {} },
      }),
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: '{"value": ["breakfast",' },
      }),
      event('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: ' "sweet"]}' },
      }),
      event('content_block_stop', { type: 'content_block_stop', index: 0 }),
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'tool_use' },
        usage: { output_tokens: 9 },
      }),
      event('message_stop', { type: 'message_stop' }),
    ].join('');
    server.script([
      {
        type: 'response',
        response: parseRecordedResponse(
          `HTTP/1.1 200 OK\ncontent-type: application/json\n\n${JSON.stringify(message)}`,
        ),
      },
      {
        type: 'response',
        response: parseRecordedResponse(`HTTP/1.1 200 OK\ncontent-type: text/event-stream\n\n${streamed}`),
        chunking: 'events',
      },
    ]);
    const request = {
      ...question,
      responseFormat: {
        type: 'json' as const,
        name: 'tags',
        schema: { type: 'array', items: { type: 'string' } },
      },
    };
    const model = provider()('claude-sonnet-4-6');
    const generated = await model.doGenerate(request);
    expect(JSON.parse(generated.text)).toEqual(tags);
    expect(generated.finishReason).toBe('stop');
    const { parts, result } = await streamResult(model.doStream(request));
    expect(JSON.parse(result.text)).toEqual(tags);
    expect(parts.filter((part) => part.type === 'text-delta')).toHaveLength(1);
    expect(server.requests[1]?.json).toMatchObject({
      tool_choice: { type: 'tool', name: 'tags' },
      stream: true,
    });
  });
});

describe('with @closedloop/model helpers', () => {
  it('generateObject uses the forced tool and parses its input', async () => {
    server.script([{ type: 'response', response: fixture('structured-output') }]);
    const { object } = await generateObject(
      provider()('claude-sonnet-4-6'),
      z.object({ title: z.string(), servings: z.number().int(), tags: z.array(z.string()) }),
      { prompt: 'A pancake recipe.', name: 'recipe', retry: false },
    );
    expect(object).toEqual({ title: 'Pancakes', servings: 4, tags: ['breakfast', 'sweet'] });
    expect(server.requests[0]?.json).toMatchObject({ tool_choice: { type: 'tool', name: 'recipe' } });
  });

  it('generate retries a 529 once: two attempts in total', async () => {
    server.script([
      { type: 'response', response: fixture('overloaded-529') },
      { type: 'response', response: fixture('text') },
    ]);
    const result = await generate(provider()('claude-sonnet-4-6'), question, {
      retry: { initialDelayMs: 1, jitter: false },
    });
    expect(result.text).toBe('Hello from the loopback server.');
    expect(server.requests).toHaveLength(2);
  });
});

describe('createAnthropic', () => {
  it('the default instance fails with auth, naming ANTHROPIC_API_KEY, when the key is missing', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    const error = await modelRejection(anthropic('claude-sonnet-4-6').doGenerate(question));
    expect(error).toMatchObject({ code: 'auth', isRetryable: false, provider: 'anthropic' });
    expect(error.message).toContain('ANTHROPIC_API_KEY');
  });

  it('reads ANTHROPIC_API_KEY at the first request and never sends ANTHROPIC_AUTH_TOKEN', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    const model = createAnthropic({ baseURL: server.url, headers: { 'anthropic-beta': 'test-beta-1' } })(
      'claude-sonnet-4-6',
    );
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-ant-set-after-creation-01');
    vi.stubEnv('ANTHROPIC_AUTH_TOKEN', 'bearer-token-that-must-not-be-sent');
    server.script([{ type: 'response', response: fixture('text') }]);
    const result = await model.doGenerate(question);
    expect(result.text).toBe('Hello from the loopback server.');
    const headers = server.requests[0]?.headers ?? {};
    expect(headers['x-api-key']).toBe('sk-ant-set-after-creation-01');
    expect(headers.authorization).toBeUndefined();
    expect(headers['anthropic-beta']).toBe('test-beta-1');
  });

  it('reports exactly the capability table, with registrations and overrides (no silent override)', () => {
    const provider = createAnthropic({ apiKey: 'k', name: 'claude-proxy' });
    for (const modelId of ['claude-sonnet-4-6', 'claude-haiku-4-5']) {
      expect(provider(modelId).capabilities).toEqual(resolveCapabilities({ provider: 'anthropic', modelId }));
    }
    const unregister = registerCapabilities({
      provider: 'anthropic',
      pattern: 'claude-sonnet-4*',
      capabilities: { structuredOutput: false },
    });
    try {
      expect(provider('claude-sonnet-4-6').capabilities.structuredOutput).toBe(false);
    } finally {
      unregister();
    }
    const warnings: string[] = [];
    const unknown = resolveCapabilities({
      provider: 'anthropic',
      modelId: 'claude-unreleased-9',
      onWarning: (message) => warnings.push(message),
    });
    expect(provider('claude-unreleased-9').capabilities).toEqual(unknown);
    expect(unknown.structuredOutput).toBe(false);
    expect(warnings).toHaveLength(1);
  });

  it('reports structured output as supported (forced tool) unless overridden, and validates options', () => {
    const provider = createAnthropic({ apiKey: 'k' });
    expect(provider('claude-sonnet-4-6').capabilities).toMatchObject({
      structuredOutput: true,
      toolCalling: true,
    });
    expect(
      provider.chat('claude-sonnet-4-6', { capabilities: { structuredOutput: false } }).capabilities
        .structuredOutput,
    ).toBe(false);
    expect(() => createAnthropic({ baseURL: 'api.anthropic.com' })).toThrowError(/not a valid http\(s\) URL/);
    expect(() => createAnthropic({ timeoutMs: -1 })).toThrowError(/timeoutMs/);
    expect(() => provider('  ')).toThrowError(/non-empty string/);
    expect(() => createAnthropic({ streamIdleTimeoutMs: -1 })).toThrowError(
      /^createAnthropic: streamIdleTimeoutMs must be a number of milliseconds >= 0 .*got -1$/,
    );
    expect(() => createAnthropic({ streamIdleTimeoutMs: Number.NaN })).toThrowError(/got NaN$/);
    // Numeric per-model settings fail when the model is created, not at its first request.
    expect(() => provider('claude-sonnet-4-6', { defaultMaxTokens: 0 })).toThrowError(
      /defaultMaxTokens must be a positive integer, got 0/,
    );
    expect(() => provider('claude-sonnet-4-6', { defaultMaxTokens: 1.5 })).toThrowError(/got 1.5/);
    expect(() => provider('claude-sonnet-4-6', { thinking: { budgetTokens: 512 } })).toThrowError(
      /thinking.budgetTokens must be an integer >= 1024, got 512/,
    );
    expect(() =>
      provider('claude-sonnet-4-6', { thinking: { budgetTokens: 1024 }, defaultMaxTokens: 4096 }),
    ).not.toThrow();
  });
});
