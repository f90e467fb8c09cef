import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { createOpenAICompatible as createOpenAICompatibleV4 } from '@ai-sdk/openai-compatible-v4';
import { ModelError } from '@closedloop/model';
import {
  chatCompletionsWireQuirks,
  collectStream,
  finishedResult,
  modelRejection,
  replayFixtures,
  runWireQuirkSuite,
} from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { fromAISDK } from './ai-sdk-chat-model';

// Chat Completions traffic that servers really send, through `@ai-sdk/openai-compatible` (the AI
// SDK's own HTTP client and stream parser) and the bridge, over loopback HTTP.
const { server, json, read, sse } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
const ask = {
  messages: [{ role: 'user' as const, content: 'Write the plan.' }],
  tools: ['read_file', 'write_file', 'run_command'].map((name) => ({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  })),
};

const model = () =>
  fromAISDK(
    createOpenAICompatible({
      name: 'loopback',
      baseURL: `${server.url}/v1`,
      apiKey: 'sk-loopback-000000',
      includeUsage: true,
    })('gpt-4.1'),
    { name: 'openai-compatible' },
  );

// The recorded Chat Completions behaviours every adapter of that wire format must handle alike
// (the table is shared with @closedloop/provider-openai), through AI SDK 6 and AI SDK 7's clients.
for (const [title, create] of [
  ['fromAISDK(@ai-sdk/openai-compatible@2, specification v3)', createOpenAICompatible],
  ['fromAISDK(@ai-sdk/openai-compatible@3, specification v4)', createOpenAICompatibleV4],
] as const) {
  runWireQuirkSuite({
    name: title,
    server,
    fixtures: { json, read, sse },
    cases: chatCompletionsWireQuirks,
    createModel: ({ serverUrl, streamIdleTimeoutMs }) =>
      fromAISDK(
        create({
          name: 'loopback',
          baseURL: `${serverUrl}/v1`,
          apiKey: 'sk-loopback-000000',
          includeUsage: true,
        })('gpt-4.1'),
        { name: 'openai-compatible', ...(streamIdleTimeoutMs !== undefined ? { streamIdleTimeoutMs } : {}) },
      ),
  });
}

describe('a tool call cut off by the output limit or a content filter', () => {
  it('streamed: the provider flushes the cut call as a tool-call; the bridge throws instead', async () => {
    server.script(sse('length-mid-tool-call-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).isRetryable).toBe(false);
    expect((error as ModelError).message).toMatch(
      /finish reason "length"\) inside tool call "write_file" \(call_Cut1\)/,
    );
    expect((error as ModelError).requestId).toBe('req_quirk');
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it('not streamed: neither the cut call nor the complete one before it is returned', async () => {
    server.script(json('length-mid-tool-call'));
    const error = await modelRejection(model().doGenerate(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).message).toMatch(/inside tool call "write_file" \(call_Cut2\)/);
    expect((error as ModelError).rawOutput).toBe('{"path":"README.md","content":"# Titl');
  });

  it('a complete call in a normal answer still streams and finishes (unparsable input only held)', async () => {
    server.script([
      {
        type: 'response',
        response: {
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'read_file', arguments: '{"path":"a.md"}' },
            },
          ]
            .map(
              (call) =>
                `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { tool_calls: [call] }, finish_reason: null }] })}\n\n`,
            )
            .concat(
              `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] })}\n\n`,
              'data: [DONE]\n\n',
            )
            .join(''),
        },
        chunking: 'events',
      },
    ]);
    const { parts } = await collectStream(model().doStream(ask));
    const result = finishedResult(parts);
    expect(result.toolCalls.map((call) => call.arguments)).toEqual([{ path: 'a.md' }]);
    expect(result.finishReason).toBe('tool-calls');
  });
});

describe('a 429 without retry-after', () => {
  it("waits for the spent limit's x-ratelimit-reset-* (through the AI SDK's APICallError)", async () => {
    server.script(json('rate-limited-reset-headers'));
    const error = await modelRejection(model().doGenerate(ask));
    expect((error as ModelError).code).toBe('rate-limited');
    expect((error as ModelError).retryAfterMs).toBe(1500);
  });
});

describe('finish_reason "tool_calls" with no tool call (vLLM without a working tool parser)', () => {
  it('is a typed error carrying the text, not a tool-calls finish with nothing to run', async () => {
    server.script(json('vllm-tool-calls-finish-without-calls'));
    const error = await modelRejection(model().doGenerate(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(/finish reason is "tool_calls" but no tool call arrived/);
    expect((error as ModelError).rawOutput).toMatch(/^<tool_call>/);
  });
});

describe('one tool call sent again at a second index with the same id (LocalAI)', () => {
  it('is one call, not the command twice (the AI SDK gives the copy a new id)', async () => {
    server.script(sse('localai-same-call-at-two-indexes-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.toolCalls.map((call) => [call.id, call.name, call.rawArguments])).toEqual([
      ['LipwoT0puK4tQY6nxW39FNRyvQ6Hrh8p', 'exec', '{"cmd":"uname -a"}'],
    ]);
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(1);
    expect(new Set(parts.flatMap((part) => (part.type === 'tool-call-delta' ? [part.index] : [])))).toEqual(
      new Set([0]),
    );
    expect(result.reasoning?.[0]?.text).toBe('Okay, the user wants a command.');
    expect(result.usage.totalTokens).toBe(181);
  });

  it('the copy with other arguments is a typed error, not two calls', async () => {
    const recorded = read('localai-same-call-at-two-indexes-stream');
    const events = recorded.body.split('\n\n');
    events[4] = (events[4] as string).replace('uname -a', 'rm -rf build');
    server.script([{ type: 'response', response: { ...recorded, body: events.join('\n\n') } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(
      /sent again at another index .* two different complete argument texts/,
    );
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('two calls of the same tool with their own ids stay two calls', async () => {
    const recorded = read('localai-same-call-at-two-indexes-stream');
    const events = recorded.body.split('\n\n');
    events[4] = (events[4] as string).replace(
      '"index":1,"id":"LipwoT0puK4tQY6nxW39FNRyvQ6Hrh8p"',
      '"index":1,"id":"call_second"',
    );
    server.script([{ type: 'response', response: { ...recorded, body: events.join('\n\n') } }]);
    const result = finishedResult((await collectStream(model().doStream(ask))).parts);
    expect(result.toolCalls.map((call) => call.id)).toEqual([
      'LipwoT0puK4tQY6nxW39FNRyvQ6Hrh8p',
      'call_second',
    ]);
  });
});

describe('a tool call whose arguments are a JSON object, not a string (llama.cpp, Ollama)', () => {
  it('is that call, though the AI SDK rejects the chunk', async () => {
    server.script(sse('llama-cpp-object-arguments-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.toolCalls).toEqual([
      {
        id: 'call_llama0',
        name: 'get_weather',
        arguments: { city: 'Paris' },
        rawArguments: '{"city":"Paris"}',
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage.totalTokens).toBe(138);
  });

  it('any other chunk the AI SDK rejects still fails the stream', async () => {
    const recorded = read('llama-cpp-object-arguments-stream');
    const body = recorded.body.replace('"arguments":{"city":"Paris"}', '"arguments":42');
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect(parts.some((part) => part.type === 'finish' || part.type === 'tool-call')).toBe(false);
  });
});

describe("a stream of one chunk in a completion's shape (message, not delta)", () => {
  it('is its text and its tool call, not an empty answer (the AI SDK reads the chunk as empty)', async () => {
    server.script(sse('gateway-whole-message-chunk-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('Reading the README first.');
    expect(result.toolCalls).toEqual([
      {
        id: 'call_whole1',
        name: 'read_file',
        arguments: { path: 'README.md' },
        rawArguments: '{"path":"README.md"}',
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage).toMatchObject({ inputTokens: 88, outputTokens: 24, totalTokens: 112 });
  });

  it('with a cut-off finish, its call with partial arguments is the truncated-call error', async () => {
    const recorded = read('gateway-whole-message-chunk-stream');
    const body = recorded.body
      .replace('{\\"path\\":\\"README.md\\"}', '{\\"path\\":\\"READ')
      .replace('"finish_reason":"tool_calls"', '"finish_reason":"length"');
    expect(body).not.toBe(recorded.body);
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(/finish reason "length"\) inside tool call "read_file"/);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe('chunks the AI SDK schema rejects, read from their raw form', () => {
  it('MiniMax\'s role "" on every delta: the reasoning, text and tool call, not a failed stream', async () => {
    server.script(sse('minimax-empty-role-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.reasoning?.map((part) => part.text)).toEqual(['The user wants the tests run.']);
    expect(result.text).toBe('Running the tests.');
    expect(result.toolCalls).toEqual([
      {
        id: 'call_function_8kq2m1x7',
        name: 'run_command',
        arguments: { cmd: 'pnpm test' },
        rawArguments: '{"cmd": "pnpm test"}',
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.rawFinishReason).toBe('tool_calls');
    expect(result.usage).toMatchObject({ inputTokens: 233, outputTokens: 41, totalTokens: 274 });
  });

  it('a rejected chunk cut off by the output limit inside its call is the truncated-call error', async () => {
    const recorded = read('minimax-empty-role-stream');
    const body = recorded.body
      .replace(
        '{"index":0,"type":"function","function":{"arguments":" test\\"}"}}',
        '{"index":0,"type":"function","function":{"arguments":" te"}}',
      )
      .replace('"finish_reason":"tool_calls"', '"finish_reason":"length"');
    expect(body).not.toBe(recorded.body);
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(/finish reason "length"\) inside tool call "run_command"/);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it('a rejected chunk that is cut, with no finish reason anywhere, is still a cut', async () => {
    server.script(sse('minimax-empty-role-stream', { limitEvents: 4, after: 'destroy' }));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('network');
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe('keep-alive events with data (`event: ping` + `data: {}`)', () => {
  it('are skipped, not read as a failed chunk; the answer around them is whole', async () => {
    server.script(sse('gateway-ping-data-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('Step one: read the file.');
    expect(result.finishReason).toBe('stop');
    expect(result.usage.outputTokens).toBe(6);
  });

  it('an error object in a data chunk is still the error', async () => {
    const recorded = read('gateway-ping-data-stream');
    const body = recorded.body.replace(
      'data: {"type":"ping"}',
      'data: {"error":{"message":"overloaded","type":"server_error"}}',
    );
    expect(body).not.toBe(recorded.body);
    server.script([{ type: 'response', response: { ...recorded, body } }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });
});

describe('several choices in one stream (n > 1)', () => {
  it('tool calls in the second choice are a typed error: the AI SDK would merge them into the first', async () => {
    const recorded = read('n2-interleaved-choices-stream');
    const body = recorded.body.replace(
      '"index":1,"delta":{"content":"Plan B:"}',
      '"index":1,"delta":{"tool_calls":[{"index":0,"id":"call_b","type":"function","function":{"name":"run_command","arguments":"{\\"cmd\\":\\"rm -rf build\\"}"}}]}',
    );
    expect(body).not.toBe(recorded.body);
    server.script([{ type: 'response', response: { ...recorded, body }, chunking: 'events' }]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect([(error as ModelError).code, (error as ModelError).isRetryable]).toEqual([
      'invalid-response',
      false,
    ]);
    expect((error as ModelError).message).toMatch(/more than one choice, and choice 1 carries tool calls/);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe('the deprecated function_call streamed (older Azure API versions), which the AI SDK drops', () => {
  /** The recorded stream with each chunk's JSON changed by `edit` (`[DONE]` and comments kept). */
  const edited = (fixture: string, edit: (chunk: { choices: Array<Record<string, unknown>> }) => void) => {
    const recorded = read(fixture);
    const body = recorded.body
      .split('\n\n')
      .map((event) => {
        if (!event.startsWith('data: {')) return event;
        const chunk = JSON.parse(event.slice('data: '.length));
        edit(chunk);
        return `data: ${JSON.stringify(chunk)}`;
      })
      .join('\n\n');
    expect(body).not.toBe(recorded.body);
    return [{ type: 'response' as const, response: { ...recorded, body }, chunking: 'events' as const }];
  };

  it('streams as one tool call: the deltas (id, name, arguments), then the call, then the finish', async () => {
    server.script(sse('azure-legacy-function-call-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    expect(parts.map((part) => part.type)).toEqual(['tool-call-delta', 'tool-call', 'finish']);
    expect(parts[0]).toEqual({
      type: 'tool-call-delta',
      index: 0,
      id: 'call_0',
      name: 'get_weather',
      argumentsDelta: '{\n  "city": "Paris"\n}',
    });
    const result = finishedResult(parts);
    expect(result.toolCalls).toEqual([
      {
        id: 'call_0',
        name: 'get_weather',
        arguments: { city: 'Paris' },
        rawArguments: '{\n  "city": "Paris"\n}',
      },
    ]);
    expect(result.response?.requestId).toBe('req_azure_legacy');
    expect(result.response?.id).toBe('chatcmpl-8LegacyAzLoop');
  });

  it('sent alongside the same call as tool_calls (a server sending both shapes): one call, not two', async () => {
    server.script(
      edited('azure-legacy-function-call-stream', (chunk) => {
        const delta = chunk.choices[0]?.delta as Record<string, unknown> | undefined;
        const legacy = delta?.function_call as Record<string, unknown> | undefined;
        if (!delta || !legacy) return;
        delta.tool_calls = [
          {
            index: 0,
            ...(legacy.name ? { id: 'call_both', type: 'function' } : {}),
            function: legacy,
          },
        ];
      }),
    );
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    expect(finishedResult(parts).toolCalls.map((call) => [call.id, call.name, call.rawArguments])).toEqual([
      ['call_both', 'get_weather', '{\n  "city": "Paris"\n}'],
    ]);
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(1);
  });

  it('without a function name: a typed error, not a call named ""', async () => {
    server.script(
      edited('azure-legacy-function-call-stream', (chunk) => {
        const legacy = (chunk.choices[0]?.delta as Record<string, unknown> | undefined)?.function_call;
        if (legacy && typeof legacy === 'object') delete (legacy as Record<string, unknown>).name;
      }),
    );
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect([(error as ModelError).code, (error as ModelError).message]).toEqual([
      'invalid-response',
      expect.stringMatching(/function_call has no function name/),
    ]);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it("in another choice than the answer's (n > 1): a typed error, not dropped", async () => {
    server.script(
      edited('n2-interleaved-choices-stream', (chunk) => {
        const choice = chunk.choices[0];
        if (choice?.index === 1 && (choice.delta as Record<string, unknown>).content === 'Plan B:')
          choice.delta = { function_call: { name: 'run_command', arguments: '{"cmd":"rm -rf build"}' } };
      }),
    );
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).message).toMatch(/more than one choice, and choice 1 carries tool calls/);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe("a stream's error event", () => {
  it("keeps the response's request id (x-request-id), as the OpenAI adapter does", async () => {
    server.script(sse('event-error-code-details-stream'));
    const { error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).requestId).toBe('req_event_error_details');
    expect((error as ModelError).message).toMatch(/\(request req_event_error_details\)/);
  });
});

describe('tool-call ids a server repeats or leaves out (not streamed)', () => {
  it('every call of the answer gets its own id: results are paired with calls by id', async () => {
    server.script(json('duplicate-tool-call-ids'));
    const result = await model().doGenerate(ask);
    const ids = result.toolCalls.map((call) => call.id);
    expect(result.toolCalls.map((call) => call.rawArguments)).toEqual([
      '{"path":"a.md"}',
      '{"path":"b.md"}',
      '{"path":"c.md"}',
    ]);
    expect(ids.slice(0, 2)).toEqual(['call_read_file', 'call_read_file_2']);
    expect(new Set(ids).size).toBe(3);
  });
});
