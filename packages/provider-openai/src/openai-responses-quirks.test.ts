import { ModelError } from '@closedloop/model';
import { collectStream, finishedResult, modelRejection, replayFixtures } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from './openai-provider';

// Responses API traffic from servers that implement it partly (gateways, local servers), replayed
// over loopback HTTP through the official SDK.
const { server, json, sse } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
const ask = {
  messages: [{ role: 'user' as const, content: 'Check the build.' }],
  tools: [
    {
      name: 'read_file',
      description: 'Reads a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ],
};
const model = () =>
  createOpenAI({ apiKey: 'sk-loopback-000000', baseURL: `${server.url}/v1` }).responses('gpt-5-mini');

describe('an answer only in the terminal events (no deltas)', () => {
  it('only response.completed: its text and its function call, not an empty "stop"', async () => {
    server.script(sse('responses-completed-only-stream', { chunking: 'bytes' }));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe("I'll read the README first.");
    expect(result.toolCalls).toEqual([
      {
        id: 'call_Xq81LrT0aV2dZ9mE',
        name: 'read_file',
        arguments: { path: 'README.md' },
        rawArguments: '{"path":"README.md"}',
      },
    ]);
    expect(result.finishReason).toBe('tool-calls');
    expect(result.usage.totalTokens).toBe(125);
    // The parts add up to the result, as for any stream.
    expect(parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('')).toBe(
      result.text,
    );
    expect(parts.filter((part) => part.type === 'tool-call')).toHaveLength(1);
  });

  it('only the done events, and an empty output in response.completed: the done text', async () => {
    server.script(sse('responses-done-events-only-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const result = finishedResult(parts);
    expect(result.text).toBe('The build is green: 212 tests passed.');
    expect(result.finishReason).toBe('stop');
    expect(result.response?.requestId).toBe('req_resp_done_only');
  });
});

describe('a response that is not finished', () => {
  it('status "queued" (a background response) is an invalid-response, not an empty answer', async () => {
    server.script(json('responses-background-queued'));
    const error = await modelRejection(model().doGenerate(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect([error.code, error.isRetryable, error.requestId]).toEqual([
      'invalid-response',
      false,
      'req_resp_queued',
    ]);
    expect(error.message).toMatch(/status "queued": it holds no finished answer/);
  });
});

describe('an incomplete response for a reason no mapping knows, with no text and no call', () => {
  // A compatible server's own incomplete reason ("interrupted"): only a reasoning item came back.
  it('is a retryable invalid-response, streamed or not — never an empty answer a step could end on', async () => {
    server.script(json('responses-incomplete-unknown-reason'));
    const error = await modelRejection(model().doGenerate(ask));
    expect(ModelError.isInstance(error)).toBe(true);
    expect([error.code, error.isRetryable, error.requestId]).toEqual([
      'invalid-response',
      true,
      'req_resp_interrupted',
    ]);
    expect(error.message).toMatch(/finish reason "interrupted"\) without any text or tool call/);

    server.script(sse('responses-incomplete-unknown-reason-stream'));
    const streamed = await collectStream(model().doStream(ask));
    expect(ModelError.isInstance(streamed.error)).toBe(true);
    expect((streamed.error as ModelError).code).toBe('invalid-response');
    expect(streamed.parts.some((part) => part.type === 'finish')).toBe(false);
  });
});

describe('two function calls with one call_id (a compatible server)', () => {
  it('each gets its own id, streamed or not: results are paired with calls by id', async () => {
    server.script(sse('responses-duplicate-call-ids-stream'));
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    const streamed = parts.flatMap((part) =>
      part.type === 'tool-call' ? [`${part.toolCall.id} ${part.toolCall.rawArguments}`] : [],
    );
    expect(streamed).toEqual(['call_a {"path":"a"}', 'call_a_2 {"path":"b"}']);
    expect(finishedResult(parts).toolCalls.map((call) => call.id)).toEqual(['call_a', 'call_a_2']);
    server.script(json('responses-duplicate-call-ids'));
    expect((await model().doGenerate(ask)).toolCalls.map((call) => call.id)).toEqual(['call_a', 'call_a_2']);
  });
});
