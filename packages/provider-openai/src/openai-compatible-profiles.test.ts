import { ModelError } from '@closedloop/model';
import { parseRecordedResponse, streamResult, useLoopbackServer } from '@closedloop/model/conformance';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { profileForBaseURL } from './openai-compatible-profiles';
import { createOpenAI } from './openai-provider';

const server = useLoopbackServer();

afterEach(() => {
  vi.unstubAllEnvs();
});

const hi = { messages: [{ role: 'user' as const, content: 'hi' }] };
const quiet = { capabilities: { contextWindow: 32_000 } };

function sse(chunks: object[], headers = ''): ReturnType<typeof parseRecordedResponse> {
  const body = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('');
  return parseRecordedResponse(
    `HTTP/1.1 200 OK\ncontent-type: text/event-stream\n${headers}\n${body}data: [DONE]\n\n`,
  );
}

const chunk = (delta: object, extra: object = {}, finish: string | null = null) => ({
  id: 'c-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});

describe('profiles', () => {
  it('are chosen from the base URL host, a local port, the name, or explicitly', () => {
    expect(profileForBaseURL('https://api.deepseek.com/v1')).toMatchObject({
      profile: { name: 'deepseek' },
      byHost: true,
    });
    expect(profileForBaseURL('https://my-res.openai.azure.com/openai/v1')?.profile.name).toBe('azure');
    expect(profileForBaseURL('http://localhost:11434/v1')).toMatchObject({
      profile: { name: 'ollama' },
      byHost: false,
    });
    expect(profileForBaseURL('http://10.0.0.5:11434/v1')).toBeUndefined();
    expect(createOpenAI({ baseURL: 'https://api.mistral.ai/v1', apiKey: 'k' }).provider).toBe('mistral');
    expect(createOpenAI({ baseURL: 'https://api.groq.com/openai/v1', apiKey: 'k' }).provider).toBe('groq');
    // A local server found by its port keeps the generic id.
    expect(createOpenAI({ baseURL: 'http://127.0.0.1:11434/v1' }).provider).toBe('openai-compatible');
    expect(createOpenAI({ profile: 'deepseek', apiKey: 'k' }).provider).toBe('deepseek');
    expect(createOpenAI({ name: 'xai', apiKey: 'k' }).provider).toBe('xai');
    expect(() => createOpenAI({ profile: 'nope' as never })).toThrowError(/unknown profile "nope"/);
  });

  it('a profile brings its base URL and reads only its own key variable', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-openai-must-stay-home');
    vi.stubEnv('DEEPSEEK_API_KEY', '');
    const missing = await createOpenAI({ profile: 'deepseek' })('deepseek-chat')
      .doGenerate(hi)
      .catch((error: unknown) => error);
    expect(ModelError.isInstance(missing) && missing.code).toBe('auth');
    expect((missing as Error).message).toContain('DEEPSEEK_API_KEY');
    vi.stubEnv('DEEPSEEK_API_KEY', 'sk-deepseek-0000000001');
    server.script([
      {
        type: 'response',
        response: parseRecordedResponse(
          `HTTP/1.1 200 OK\ncontent-type: application/json\n\n${JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 1,
            model: 'deepseek-chat',
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            usage: {
              prompt_tokens: 10,
              completion_tokens: 1,
              total_tokens: 11,
              prompt_cache_hit_tokens: 8,
              prompt_cache_miss_tokens: 2,
            },
          })}`,
        ),
      },
    ]);
    const model = createOpenAI({ profile: 'deepseek', baseURL: `${server.url}/v1` })('deepseek-chat');
    const result = await model.doGenerate(hi);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-deepseek-0000000001');
    expect(result.usage).toMatchObject({ inputTokens: 10, cachedInputTokens: 8 });
    expect(model.capabilities.contextWindow).toBe(128_000);
  });
});

describe('wire quirks of OpenAI-compatible streams', () => {
  it('an error object streamed without an `error` wrapper (vLLM) is a typed, non-retryable error', async () => {
    server.script([
      {
        type: 'response',
        response: sse([
          {
            object: 'error',
            message: 'max_tokens must be at least 1, got -1.',
            type: 'BadRequestError',
            param: null,
            code: 400,
          },
        ]),
        chunking: 'events',
      },
    ]);
    const model = createOpenAI({ baseURL: `${server.url}/v1` })('qwen3', quiet);
    const error = await streamResult(model.doStream(hi)).catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && [error.code, error.isRetryable]).toEqual(['bad-request', false]);
  });

  it('calls that all arrive at index 0 with their own ids (Ollama) stay separate calls', async () => {
    server.script([
      {
        type: 'response',
        response: sse([
          chunk({ role: 'assistant', content: '' }),
          chunk({
            tool_calls: [
              {
                index: 0,
                id: 'call_a',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
            ],
          }),
          chunk({
            tool_calls: [
              {
                index: 0,
                id: 'call_b',
                type: 'function',
                function: { name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
              },
            ],
          }),
          chunk({}, {}, 'tool_calls'),
        ]),
        chunking: 'events',
      },
    ]);
    const model = createOpenAI({ baseURL: `${server.url}/v1` })('llama3.1', quiet);
    const { result, parts } = await streamResult(model.doStream(hi));
    expect(result.toolCalls.map(({ id, name, arguments: args }) => ({ id, name, args }))).toEqual([
      { id: 'call_a', name: 'get_weather', args: { city: 'Paris' } },
      { id: 'call_b', name: 'get_time', args: { timezone: 'Europe/Paris' } },
    ]);
    expect(
      parts
        .filter((part) => part.type === 'tool-call-delta')
        .map((part) => part.type === 'tool-call-delta' && part.index),
    ).toEqual([0, 1]);
  });

  it('reads usage from x_groq and from a usage-bearing final choice chunk', async () => {
    server.script([
      {
        type: 'response',
        response: sse([
          chunk({ role: 'assistant', content: 'Hi' }),
          chunk(
            {},
            { x_groq: { id: 'req_g', usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } } },
            'stop',
          ),
        ]),
        chunking: 'events',
      },
    ]);
    const model = createOpenAI({ profile: 'groq', apiKey: 'k', baseURL: `${server.url}/v1` })(
      'llama-3.3-70b',
      quiet,
    );
    const { result } = await streamResult(model.doStream(hi));
    expect(result.usage).toEqual({ inputTokens: 9, outputTokens: 2, totalTokens: 11 });
    expect(server.requests[0]?.json).toMatchObject({ stream_options: { include_usage: true } });
  });

  it('Mistral: tool-call ids it would reject are rewritten consistently, seed is random_seed', async () => {
    server.script([
      {
        type: 'response',
        response: parseRecordedResponse(
          `HTTP/1.1 200 OK\ncontent-type: application/json\n\n${JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 1,
            model: 'mistral-large-latest',
            choices: [{ index: 0, message: { role: 'assistant', content: 'done' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          })}`,
        ),
      },
    ]);
    const model = createOpenAI({ profile: 'mistral', apiKey: 'k', baseURL: `${server.url}/v1` })(
      'mistral-large-latest',
      quiet,
    );
    await model.doGenerate({
      seed: 7,
      toolChoice: 'required',
      tools: [{ name: 'get_weather', description: 'd', inputSchema: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'call_from_openai_123', name: 'get_weather', arguments: {}, rawArguments: '{}' }],
        },
        { role: 'tool', toolCallId: 'call_from_openai_123', toolName: 'get_weather', content: 'sunny' },
      ],
    });
    const body = server.requests[0]?.json as {
      messages: Array<Record<string, unknown>>;
      random_seed: number;
      tool_choice: string;
    };
    const assistant = body.messages[1] as { tool_calls: Array<{ id: string }> };
    const id = assistant.tool_calls[0]?.id;
    expect(id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(body.messages[2]).toMatchObject({ role: 'tool', tool_call_id: id });
    expect(body.random_seed).toBe(7);
    expect(body.tool_choice).toBe('any');
    expect(body).not.toHaveProperty('stream_options');
  });

  it('reasoning inlined as <think> tags (Together, older Ollama) is split off, streamed and not, and not sent back', async () => {
    const pieces = ['<thi', 'nk>2 + 2', ' is 4.</th', 'ink>\n\n', 'The answer', ' is 4.'];
    server.script([
      {
        type: 'response',
        response: sse([...pieces.map((content) => chunk({ content })), chunk({}, {}, 'stop')]),
        chunking: 'events',
      },
    ]);
    const model = createOpenAI({ profile: 'together', apiKey: 'k', baseURL: `${server.url}/v1` })(
      'deepseek-ai/DeepSeek-R1',
      quiet,
    );
    const { result, parts } = await streamResult(model.doStream(hi));
    expect(result.text).toBe('The answer is 4.');
    expect(result.reasoning?.map((part) => part.text).join('')).toBe('2 + 2 is 4.');
    expect(
      parts
        .filter((part) => part.type === 'text-delta')
        .map((part) => part.type === 'text-delta' && part.delta)
        .join(''),
    ).toBe('The answer is 4.');
    server.script([
      {
        type: 'response',
        response: parseRecordedResponse(
          `HTTP/1.1 200 OK\ncontent-type: application/json\n\n${JSON.stringify({
            id: 'x',
            object: 'chat.completion',
            created: 1,
            model: 'm',
            choices: [
              {
                index: 0,
                message: { role: 'assistant', content: '<think>\nhmm\n</think>\n\nDone.' },
                finish_reason: 'stop',
              },
            ],
          })}`,
        ),
      },
    ]);
    const whole = await model.doGenerate({
      messages: [
        { role: 'user', content: 'Go.' },
        {
          role: 'assistant',
          content: 'ok',
          ...(result.reasoning ? { reasoning: result.reasoning } : {}),
          toolCalls: [{ id: 'c1', name: 't', arguments: {}, rawArguments: '{}' }],
        },
        { role: 'tool', toolCallId: 'c1', toolName: 't', content: 'done' },
      ],
    });
    expect(whole).toMatchObject({ text: 'Done.', reasoning: [{ text: '\nhmm\n' }] });
    expect(JSON.stringify(server.requests[0]?.json)).not.toContain('2 + 2 is 4.');
  });

  it('OpenRouter: streamed reasoning_details are merged and sent back as they came', async () => {
    server.script([
      {
        type: 'response',
        response: sse([
          chunk({
            role: 'assistant',
            content: '',
            reasoning: 'Need',
            reasoning_details: [
              { type: 'reasoning.text', text: 'Need', format: 'anthropic-claude-v1', index: 0 },
            ],
          }),
          chunk({
            reasoning: ' the weather.',
            reasoning_details: [{ type: 'reasoning.text', text: ' the weather.', index: 0 }],
          }),
          chunk({ reasoning_details: [{ type: 'reasoning.text', signature: 'sig-xyz', index: 0 }] }),
          chunk({
            tool_calls: [
              {
                index: 0,
                id: 'toolu_1',
                type: 'function',
                function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              },
            ],
          }),
          chunk({}, {}, 'tool_calls'),
        ]),
        chunking: 'events',
      },
    ]);
    const model = createOpenAI({ profile: 'openrouter', apiKey: 'k', baseURL: `${server.url}/v1` })(
      'anthropic/claude-sonnet-4-6',
    );
    const { result } = await streamResult(model.doStream(hi));
    expect(result.reasoning).toEqual([
      {
        text: 'Need the weather.',
        providerData: {
          field: 'reasoning',
          reasoningDetails: [
            {
              type: 'reasoning.text',
              text: 'Need the weather.',
              format: 'anthropic-claude-v1',
              index: 0,
              signature: 'sig-xyz',
            },
          ],
        },
      },
    ]);
    server.script([
      {
        type: 'response',
        response: sse([chunk({ role: 'assistant', content: 'Sunny.' }), chunk({}, {}, 'stop')]),
        chunking: 'events',
      },
    ]);
    await streamResult(
      model.doStream({
        messages: [
          ...hi.messages,
          {
            role: 'assistant',
            content: '',
            toolCalls: result.toolCalls,
            ...(result.reasoning ? { reasoning: result.reasoning } : {}),
          },
          { role: 'tool', toolCallId: 'toolu_1', toolName: 'get_weather', content: 'sunny' },
        ],
      }),
    );
    const sent = server.requests[0]?.json as { messages: Array<Record<string, unknown>> };
    expect(sent.messages[1]?.reasoning_details).toEqual(
      result.reasoning?.[0]?.providerData?.reasoningDetails,
    );
  });
});

describe('tool-call ids repeated across turns or empty (llama.cpp, Ollama history)', () => {
  const toolLoop = {
    tools: [{ name: 'read_file', description: 'd', inputSchema: { type: 'object', properties: {} } }],
    messages: [
      { role: 'user' as const, content: 'Read both files.' },
      {
        role: 'assistant' as const,
        content: '',
        toolCalls: [
          { id: 'call_0', name: 'read_file', arguments: { path: 'a' }, rawArguments: '{"path":"a"}' },
        ],
      },
      { role: 'tool' as const, toolCallId: 'call_0', toolName: 'read_file', content: 'A' },
      {
        role: 'assistant' as const,
        content: '',
        toolCalls: [
          { id: 'call_0', name: 'read_file', arguments: { path: 'b' }, rawArguments: '{"path":"b"}' },
        ],
      },
      { role: 'tool' as const, toolCallId: 'call_0', toolName: 'read_file', content: 'B' },
      {
        role: 'assistant' as const,
        content: '',
        toolCalls: [
          { id: '', name: 'read_file', arguments: { path: 'c' }, rawArguments: '{"path":"c"}' },
          { id: '', name: 'read_file', arguments: { path: 'd' }, rawArguments: '{"path":"d"}' },
        ],
      },
      { role: 'tool' as const, toolCallId: '', toolName: 'read_file', content: 'C' },
      { role: 'tool' as const, toolCallId: '', toolName: 'read_file', content: 'D' },
    ],
  };

  it.each([
    ['vLLM (generic profile)', 'http', /^[^\s]+$/],
    ['Mistral (9 letters/digits)', 'mistral', /^[a-zA-Z0-9]{9}$/],
  ])('%s: the request carries valid, unique ids, each result after its call', async (_, profile, valid) => {
    server.script([{ type: 'response', response: sse([chunk({ content: 'ok' }, {}, 'stop')]) }]);
    const model = createOpenAI({
      apiKey: 'k',
      baseURL: `${server.url}/v1`,
      ...(profile === 'mistral' ? { profile: 'mistral' as const } : { name: 'vllm' }),
    })('m', quiet);
    await streamResult(model.doStream(toolLoop));
    const body = server.requests[0]?.json as { messages: Array<Record<string, unknown>> } | undefined;
    const messages = body?.messages ?? [];
    const callIds = messages.flatMap((message) =>
      Array.isArray(message.tool_calls) ? message.tool_calls.map((call: { id: string }) => call.id) : [],
    );
    const resultIds = messages
      .filter((message) => message.role === 'tool')
      .map((message) => message.tool_call_id);
    expect(callIds).toHaveLength(4);
    expect(new Set(callIds).size).toBe(4);
    for (const id of callIds) expect(id).toMatch(valid);
    // Each result names the call just before it: A → call 1, B → call 2, C and D → calls 3 and 4.
    expect(resultIds).toEqual(callIds);
    if (profile !== 'mistral') expect(callIds[0]).toBe('call_0');
  });
});
