import { generate, ModelError, type StreamPart } from '@closedloop/model';
import {
  collectStream,
  finishedResult,
  fixtureReplies,
  modelRejection,
  replayFixtures,
} from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createAnthropic } from './anthropic-provider';

// Traffic that Anthropic (and gateways in front of it) really send and the happy-path docs do not
// show, replayed over loopback HTTP through the official SDK.
const { server, json, read, sse } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
const objectSchema = { type: 'object', properties: { path: { type: 'string' } } };
const ask = {
  messages: [{ role: 'user' as const, content: 'Write the plan.' }],
  tools: ['read_file', 'write_file', 'run_command'].map((name) => ({
    name,
    description: `The ${name} tool.`,
    inputSchema: objectSchema,
  })),
};

const model = () =>
  createAnthropic({ apiKey: 'sk-ant-loopback-000000', baseURL: server.url })('claude-sonnet-4-5');

describe('a tool_use block cut off by max_tokens', () => {
  it('streamed: a typed error; the complete call before it is streamed, the cut one never is', async () => {
    server.script(sse('max-tokens-mid-tool-use-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    const modelError = error as ModelError;
    expect(modelError.code).toBe('invalid-response');
    expect(modelError.isRetryable).toBe(false);
    expect(modelError.requestId).toBe('req_quirk_anthropic');
    expect(modelError.message).toMatch(
      /finish reason "max_tokens"\) inside tool call "write_file" \(toolu_01Write\)/,
    );
    expect(modelError.rawOutput).toBe(
      '{"path": "notes/plan.md", "content": "# Plan\\n\\n1. Read the menu\\n2. Write',
    );
    const calls = parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall.name] : []));
    expect(calls).toEqual(['read_file']);
    expect(parts.some((part) => part.type === 'finish')).toBe(false);
  });

  it('streamed without the block stop: the same error, not a silently dropped call', async () => {
    server.script(sse('max-tokens-mid-tool-use-unclosed-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).rawOutput).toBe('{"path": "notes/plan.md", "cont');
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });

  it('not streamed: the server-parsed partial input is never returned as a call', async () => {
    server.script(json('max-tokens-mid-tool-use'));
    const error = await modelRejection(model().doGenerate(ask));
    expect(error.code).toBe('invalid-response');
    expect(error.message).toMatch(/inside tool call "write_file" \(toolu_01Write\)/);
    expect(error.rawOutput).toBe('{"path":"notes/plan.md"}');
  });

  it('a streaming refusal inside a tool call is the same error, not a half command', async () => {
    server.script(sse('refusal-mid-tool-use-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(/finish reason "refusal"\) inside tool call "run_command"/);
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
  });

  it('model_context_window_exceeded inside a tool call is context-length', async () => {
    server.script(sse('context-window-mid-tool-use-stream'));
    const { error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('context-length');
    expect((error as ModelError).isRetryable).toBe(false);
    expect((error as ModelError).message).toMatch(/"run_command" \(toolu_01Cmd\)/);
  });
});

describe("a 200 carrying Anthropic's error body (gateways)", () => {
  it('is classified by its type: overloaded and retried by generate, plain and streamed', async () => {
    server.script([...json('overloaded-200-body'), ...json('overloaded-200-body')]);
    const plain = await modelRejection(model().doGenerate(ask));
    const streamed = (await collectStream(model().doStream(ask))).error as ModelError;
    for (const error of [plain, streamed]) {
      expect(error.code).toBe('overloaded');
      expect(error.isRetryable).toBe(true);
      expect(error.message).toMatch(/overloaded_error: Overloaded/);
    }
    // Retried like a 529: the second attempt's answer is what generate returns.
    server.script([...json('overloaded-200-body'), ...json('max-tokens-mid-tool-use')]);
    const retried = await modelRejection(
      generate(model(), ask, { retry: { initialDelayMs: 1, jitter: false } }),
    );
    expect(server.requests).toHaveLength(2);
    expect(retried.code).toBe('invalid-response');
  });
});

describe('a 429 without retry-after', () => {
  it('waits until the spent limit resets (anthropic-ratelimit-*-reset), not the unspent one', async () => {
    const at = (ms: number) => new Date(Date.now() + ms).toISOString();
    server.script([
      {
        type: 'response',
        response: {
          status: 429,
          headers: {
            'content-type': 'application/json',
            'request-id': 'req_quirk_rate',
            'anthropic-ratelimit-requests-remaining': '49',
            'anthropic-ratelimit-requests-reset': at(30_000),
            'anthropic-ratelimit-input-tokens-remaining': '0',
            'anthropic-ratelimit-input-tokens-reset': at(8000),
          },
          body: JSON.stringify({
            type: 'error',
            error: {
              type: 'rate_limit_error',
              message:
                'This request would exceed the rate limit for your organization of 30,000 input tokens per minute.',
            },
          }),
        },
      },
    ]);
    const error = await modelRejection(model().doGenerate(ask));
    expect(error.code).toBe('rate-limited');
    expect(error.retryAfterMs).toBeGreaterThan(6000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(8000);
  });
});

describe('an event stream without event: lines (Anthropic-compatible gateways)', () => {
  const expectReadFile = (parts: StreamPart[]) => {
    const last = parts.at(-1);
    expect(last?.type).toBe('finish');
    if (last?.type !== 'finish') return;
    expect(last.result.text).toBe('Reading it now.');
    expect(last.result.toolCalls).toEqual([
      {
        id: 'toolu_gw_01',
        name: 'read_file',
        arguments: { path: 'README.md' },
        rawArguments: '{"path": "README.md"}',
      },
    ]);
    expect(last.result.finishReason).toBe('tool-calls');
    expect(last.result.usage.outputTokens).toBe(41);
  };

  it('is read as the events its data names, written in pieces', async () => {
    server.script(sse('gateway-unnamed-events-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    expectReadFile(parts);
  });

  it('also with CRLF line ends, and an unnamed error event is the typed error', async () => {
    const body = read('gateway-unnamed-events-stream').body.replaceAll('\n', '\r\n');
    server.script([
      { type: 'response', response: { status: 200, headers: { 'content-type': 'text/event-stream' }, body } },
    ]);
    expectReadFile((await collectStream(model().doStream(ask))).parts);
    const cut = read('gateway-unnamed-events-stream').body.split('\n\n').slice(0, 4).join('\n\n');
    server.script([
      {
        type: 'response',
        response: {
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
          body: `${cut}\n\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n`,
        },
      },
    ]);
    const { error } = await collectStream(model().doStream(ask));
    expect((error as ModelError).code).toBe('overloaded');
  });
});

describe('an unnamed error a gateway injects into a named stream', () => {
  it("Anthropic's error shape is the typed overload, not a cut connection (LF, CRLF and lone-CR line ends)", async () => {
    const recorded = read('gateway-unnamed-error-in-named-stream');
    for (const newline of ['\n', '\r\n', '\r']) {
      server.script([
        {
          type: 'response',
          response: { ...recorded, body: recorded.body.replaceAll('\n', newline) },
          chunking: 'bytes',
        },
      ]);
      const { parts, error } = await collectStream(model().doStream(ask));
      expect(ModelError.isInstance(error)).toBe(true);
      expect([(error as ModelError).code, (error as ModelError).isRetryable]).toEqual(['overloaded', true]);
      expect((error as ModelError).message).toMatch(/overloaded_error: Overloaded/);
      expect(parts.some((part) => part.type === 'finish')).toBe(false);
    }
  });

  it("OpenAI's error shape ({error: {type, message}}) inside a tool call is the typed rate limit, and no call", async () => {
    server.script(sse('gateway-openai-shaped-error-in-named-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect([(error as ModelError).code, (error as ModelError).isRetryable]).toEqual(['rate-limited', true]);
    expect(parts.some((part) => part.type === 'finish' || part.type === 'tool-call')).toBe(false);
  });
});

describe('one JSON error body under an event-stream content type (a gateway)', () => {
  it('is its typed error, not a retryable "cut stream"', async () => {
    server.script(sse('gateway-json-error-as-event-stream', { chunking: 'bytes' }));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect([(error as ModelError).code, (error as ModelError).isRetryable]).toEqual(['rate-limited', true]);
    expect((error as ModelError).message).toMatch(/30,000 input tokens per minute/);
    expect(parts).toEqual([]);
  });
});

describe("a gateway's whole message in message_start (no content blocks)", () => {
  it('is the answer: its text and its tool call', async () => {
    server.script(sse('gateway-whole-message-in-message-start-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const last = parts.at(-1);
    expect(last?.type).toBe('finish');
    const result = last?.type === 'finish' ? last.result : undefined;
    expect(result?.text).toBe("I'll read the README first.");
    expect(result?.toolCalls.map((call) => [call.id, call.name, call.rawArguments])).toEqual([
      ['toolu_01GwWhole', 'read_file', '{"path":"README.md"}'],
    ]);
    expect(result?.finishReason).toBe('tool-calls');
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(1);
  });
});

describe('stop_reason "tool_use" without a tool_use block (a proxy lost it)', () => {
  it('is an invalid-response, streamed and not: never a clean "tool-calls" finish with no call', async () => {
    server.script([...sse('proxy-tool-use-without-block-stream'), ...json('proxy-tool-use-without-block')]);
    const streamed = await collectStream(model().doStream(ask));
    const plain = await modelRejection(model().doGenerate(ask));
    for (const error of [streamed.error as ModelError, plain]) {
      expect(ModelError.isInstance(error)).toBe(true);
      expect([error.code, error.isRetryable]).toEqual(['invalid-response', false]);
      expect(error.message).toMatch(/the stop reason is "tool_use" but no tool call arrived/);
      expect(error.rawOutput).toBe('Running the tests now.');
    }
    expect(streamed.parts.some((part) => part.type === 'finish')).toBe(false);
  });
});

describe('a tool_use block without a tool name (a proxy lost it)', () => {
  it('is an invalid-response, not a call to run', async () => {
    server.script(sse('proxy-nameless-tool-use-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect([(error as ModelError).code, (error as ModelError).isRetryable]).toEqual([
      'invalid-response',
      false,
    ]);
    expect((error as ModelError).message).toMatch(/tool call "toolu_01Nameless" has no tool name/);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe('an HTML login page with a 200 (an access proxy in front of the gateway)', () => {
  it('is a non-retryable invalid-response naming the page, streamed and not, sent once', async () => {
    server.script([...sse('cloudflare-access-login-200'), ...json('cloudflare-access-login-200')]);
    const streamed = await collectStream(model().doStream(ask));
    const plain = await modelRejection(model().doGenerate(ask));
    for (const error of [streamed.error as ModelError, plain]) {
      expect(ModelError.isInstance(error)).toBe(true);
      expect([error.code, error.isRetryable]).toEqual(['invalid-response', false]);
      expect(error.message).toMatch(/HTML page \(text\/html, titled "Sign in ・ Cloudflare Access"\)/);
    }
    expect(streamed.parts).toEqual([]);
    expect(server.requests).toHaveLength(2);
  });
});

describe('tool-call ids from other providers in the history', () => {
  it("are sent valid and unique (Kimi's functions.x:0, call_0 every turn, an empty id); each result follows its call", async () => {
    const answer = fixtureReplies(new URL('./__fixtures__/', import.meta.url));
    server.script(answer.json('text'));
    const call = (id: string, path: string) => ({
      id,
      name: 'read_file',
      arguments: { path },
      rawArguments: JSON.stringify({ path }),
    });
    const history = [
      { role: 'user' as const, content: 'Read both files.' },
      {
        role: 'assistant' as const,
        content: '',
        toolCalls: [call('functions.read_file:0', 'a.md'), call('functions.read_file:1', 'b.md')],
      },
      { role: 'tool' as const, toolCallId: 'functions.read_file:1', toolName: 'read_file', content: 'B' },
      { role: 'tool' as const, toolCallId: 'functions.read_file:0', toolName: 'read_file', content: 'A' },
      { role: 'assistant' as const, content: '', toolCalls: [call('call_0', 'c.md')] },
      { role: 'tool' as const, toolCallId: 'call_0', toolName: 'read_file', content: 'C' },
      { role: 'assistant' as const, content: '', toolCalls: [call('call_0', 'd.md'), call('', 'e.md')] },
      { role: 'tool' as const, toolCallId: 'call_0', toolName: 'read_file', content: 'D' },
      { role: 'tool' as const, toolCallId: '', toolName: 'read_file', content: 'E' },
      { role: 'user' as const, content: 'Summarise.' },
    ];
    await model().doGenerate({ ...ask, messages: history });
    const sent = server.requests[0]?.json as {
      messages: Array<{ role: string; content: Array<Record<string, unknown>> | string }>;
    };
    const blocks = sent.messages.flatMap((message) =>
      Array.isArray(message.content) ? message.content : [],
    );
    const uses = blocks.filter((block) => block.type === 'tool_use');
    const ids = uses.map((block) => block.id as string);
    expect(ids).toEqual(['functions_read_file_0', 'functions_read_file_1', 'call_0', 'call_0_2', 'toolu_4']);
    for (const id of ids) expect(id).toMatch(/^[a-zA-Z0-9_-]+$/);
    // Every result names the id its own call was sent with.
    const pathOf = new Map(uses.map((block) => [block.id, (block.input as { path: string }).path]));
    const results = blocks
      .filter((block) => block.type === 'tool_result')
      .map((block) => [pathOf.get(block.tool_use_id), block.content]);
    expect(results).toEqual([
      ['b.md', 'B'],
      ['a.md', 'A'],
      ['c.md', 'C'],
      ['d.md', 'D'],
      ['e.md', 'E'],
    ]);
  });

  it("Anthropic's own ids pass unchanged", async () => {
    const answer = fixtureReplies(new URL('./__fixtures__/', import.meta.url));
    server.script(answer.json('text'));
    await model().doGenerate({
      ...ask,
      messages: [
        { role: 'user', content: 'Read it.' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [
            { id: 'toolu_01A09q90qw90lq917835lq9', name: 'read_file', arguments: {}, rawArguments: '{}' },
          ],
        },
        { role: 'tool', toolCallId: 'toolu_01A09q90qw90lq917835lq9', toolName: 'read_file', content: 'text' },
      ],
    });
    expect(server.requests[0]?.body).toContain('"tool_use_id":"toolu_01A09q90qw90lq917835lq9"');
    expect(server.requests[0]?.body).toContain('"id":"toolu_01A09q90qw90lq917835lq9"');
  });
});

describe('tool_use blocks a gateway streams its own way', () => {
  const calls = (parts: StreamPart[]) =>
    parts.flatMap((part) =>
      part.type === 'tool-call' ? [`${part.toolCall.id} ${part.toolCall.rawArguments}`] : [],
    );

  it('two blocks open at once, their deltas interleaved: both calls, none dropped', async () => {
    server.script(sse('gateway-interleaved-tool-use-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    expect(calls(parts)).toEqual(['toolu_a {"path":"a"}', 'toolu_b {"path":"b"}']);
    expect(finishedResult(parts).toolCalls.map((call) => call.name)).toEqual(['read_file', 'write_file']);
  });

  it('two calls with one id: each its own id, streamed or not (results are paired by id)', async () => {
    server.script(sse('gateway-duplicate-tool-ids-stream'));
    const { parts } = await collectStream(model().doStream(ask));
    expect(calls(parts)).toEqual(['toolu_1 {"path":"a"}', 'toolu_1_2 {"path":"b"}']);
    server.script(json('gateway-duplicate-tool-ids'));
    const result = await model().doGenerate(ask);
    expect(result.toolCalls.map((call) => call.id)).toEqual(['toolu_1', 'toolu_1_2']);
  });

  it('a call without an id gets one, streamed or not', async () => {
    server.script(sse('gateway-tool-use-without-id-stream'));
    const { parts } = await collectStream(model().doStream(ask));
    expect(calls(parts)).toEqual(['toolu_0 {"path":"a"}']);
    server.script(json('gateway-tool-use-without-id'));
    expect((await model().doGenerate(ask)).toolCalls.map((call) => call.id)).toEqual(['toolu_0']);
  });

  it('a stop reason no mapping knows after a call with unparsable input: a truncation error, no call', async () => {
    server.script(sse('unknown-stop-reason-mid-tool-use-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect([(error as ModelError).code, (error as ModelError).isRetryable]).toEqual([
      'invalid-response',
      false,
    ]);
    expect((error as ModelError).message).toMatch(/"end_of_text"\) inside tool call "write_file"/);
    expect(parts.some((part) => part.type === 'tool-call' || part.type === 'finish')).toBe(false);
  });
});

describe('events after message_stop (a proxy that replays or appends to the stream)', () => {
  it('are not the answer: no late text, tool call, stop reason, usage or error', async () => {
    server.script(sse('proxy-appended-after-message-stop-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    expect(parts.some((part) => part.type === 'tool-call')).toBe(false);
    const result = finishedResult(parts);
    expect(result.text).toBe('The build passes.');
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe('stop');
    expect(result.usage.outputTokens).toBe(6);
  });
});
