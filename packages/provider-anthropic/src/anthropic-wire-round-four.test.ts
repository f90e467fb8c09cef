import { generate } from '@closedloop/model';
import { replayFixtures, runWireQuirkSuite } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createAnthropic } from './anthropic-provider';

// Recorded Messages API streams checked in the fourth hostile round (extended thinking, server
// tools with citations, refusals and context-window stops without a tool call, an error event
// after a finished tool_use block). Framings as api.anthropic.com sent them in 2025
// (anthropic-version 2023-06-01; Claude 3.7 Sonnet for redacted thinking, Sonnet 4.5 / Opus 4.1
// otherwise), replayed byte for byte through the official SDK; and a gateway in front of a local
// server (Ollama's native `done_reason: "load"`) forwarding a stop reason Anthropic never sends.
const { server, ...fixtures } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));

const model = ({ serverUrl, streamIdleTimeoutMs }: { serverUrl: string; streamIdleTimeoutMs?: number }) =>
  createAnthropic({
    apiKey: 'sk-ant-loopback-000000',
    baseURL: serverUrl,
    ...(streamIdleTimeoutMs !== undefined ? { streamIdleTimeoutMs } : {}),
  })('claude-sonnet-4-5');

runWireQuirkSuite({
  name: 'createAnthropic (round four)',
  server,
  fixtures,
  createModel: model,
  cases: [
    {
      title: 'thinking (thinking_delta, signature_delta), text, then a tool_use: the call',
      fixture: 'thinking-signature-tool-use-stream',
      call: 'stream',
      expected: {
        answer: {
          text: 'Reading the README first.',
          toolCalls: ['read_file {"path": "README.md"}'],
          finishReason: 'tool-calls',
          usage: { outputTokens: 96 },
        },
      },
    },
    {
      title: 'a redacted_thinking block, a thinking block, then the text: the text',
      fixture: 'redacted-thinking-stream',
      call: 'stream',
      expected: {
        answer: { text: 'The plan has three steps.', toolCalls: [], finishReason: 'stop' },
      },
    },
    {
      title:
        'web search (server_tool_use, web_search_tool_result) and cited text (citations_delta): the text, no call to run',
      fixture: 'web-search-citations-stream',
      call: 'stream',
      expected: {
        answer: {
          text: "I'll check the release notes.Node.js 22 ships V8 12.4.",
          toolCalls: [],
          finishReason: 'stop',
          usage: { inputTokens: 10682, outputTokens: 510 },
        },
      },
    },
    {
      title: 'a streaming refusal in the middle of the text (no block stop): a refusal, not a stop',
      fixture: 'refusal-mid-text-stream',
      call: 'stream',
      expected: {
        answer: {
          text: 'Here is how to synthes',
          toolCalls: [],
          finishReason: 'refusal',
          rawFinishReason: 'refusal',
        },
      },
    },
    {
      title: 'model_context_window_exceeded in the text: a length stop, not a stop',
      fixture: 'context-window-mid-text-stream',
      call: 'stream',
      expected: {
        answer: {
          text: 'The plan:\n1. Read',
          toolCalls: [],
          finishReason: 'length',
          rawFinishReason: 'model_context_window_exceeded',
        },
      },
    },
    {
      title: 'an overloaded_error event after a finished tool_use block: retryable overloaded, no call',
      fixture: 'overloaded-after-tool-use-stream',
      call: 'stream',
      expected: { error: { code: 'overloaded', isRetryable: true } },
    },
    {
      title:
        'a gateway\'s unknown stop reason ("load", its backend\'s) and no content block, streamed: a retryable invalid-response, not an empty answer',
      fixture: 'gateway-unknown-stop-nothing-stream',
      call: 'stream',
      expected: { error: { code: 'invalid-response', isRetryable: true, message: /"load"/ } },
    },
    {
      title: 'the same, not streamed: a retryable invalid-response',
      fixture: 'gateway-unknown-stop-nothing',
      call: 'generate',
      expected: { error: { code: 'invalid-response', isRetryable: true, message: /"load"/ } },
    },
  ],
});

describe('extended thinking with tool use, over two turns', () => {
  it('sends the signed thinking back, before the tool_use it led to, unchanged', async () => {
    server.script([
      ...fixtures.sse('thinking-signature-tool-use-stream'),
      ...fixtures.sse('redacted-thinking-stream'),
    ]);
    const chat = model({ serverUrl: server.url });
    const tools = [
      {
        name: 'read_file',
        description: 'Reads a file.',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      },
    ];
    const first = await generate(
      chat,
      { messages: [{ role: 'user', content: 'Plan it.' }], tools },
      {
        onPart: () => {},
      },
    );
    expect(first.reasoning).toEqual([
      {
        text: 'The user wants the plan. I should read the README first.',
        signature: 'EqQBCkgIBxABGAIiQL7bJ2eXkFJ3mQYt0C1nV0E1aS5qk0h9q2qf4TgY0qRwV7tVQeH0c7h1l2w==',
      },
    ]);
    const call = first.toolCalls[0];
    if (!call) throw new Error('no tool call');
    await generate(
      chat,
      {
        messages: [
          { role: 'user', content: 'Plan it.' },
          {
            role: 'assistant',
            content: first.text,
            toolCalls: first.toolCalls,
            reasoning: first.reasoning ?? [],
          },
          { role: 'tool', toolCallId: call.id, toolName: call.name, content: '# Readme' },
        ],
        tools,
      },
      { onPart: () => {} },
    );
    const sent = server.requests.at(-1)?.json as { messages: Array<{ role: string; content: unknown }> };
    expect(sent.messages[1]).toEqual({
      role: 'assistant',
      content: [
        {
          type: 'thinking',
          thinking: 'The user wants the plan. I should read the README first.',
          signature: 'EqQBCkgIBxABGAIiQL7bJ2eXkFJ3mQYt0C1nV0E1aS5qk0h9q2qf4TgY0qRwV7tVQeH0c7h1l2w==',
        },
        { type: 'text', text: 'Reading the README first.' },
        { type: 'tool_use', id: 'toolu_01ThinkRead', name: 'read_file', input: { path: 'README.md' } },
      ],
    });
  });
});

describe('a gateway that sends the whole message in message_start, thinking included', () => {
  it('keeps the redacted_thinking and the signed thinking, in order, for the next turn', async () => {
    server.script(fixtures.sse('gateway-thinking-in-message-start-stream'));
    const result = await generate(
      model({ serverUrl: server.url }),
      { messages: [{ role: 'user', content: 'Plan it.' }] },
      { onPart: () => {} },
    );
    expect(result.toolCalls.map((call) => call.rawArguments)).toEqual(['{"path":"README.md"}']);
    expect(result.reasoning).toEqual([
      {
        text: '',
        signature:
          'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj2pZZj8Xm1Yn3kNZx',
        redacted: true,
      },
      { text: 'Read the README first.', signature: 'ErUBCkYIBxgCIkB0c2lnbmF0dXJlLWdhdGV3YXk=' },
    ]);
  });
});

// Claude 4 with interleaved thinking signs each thinking block at its place among the tool_use
// blocks; a turn sent back rebuilt as [all thinking][text][all tool_use] is a 400 ("thinking or
// redacted_thinking blocks in the latest assistant message cannot be modified").
describe('interleaved thinking (thinking, text, tool_use, thinking, tool_use), over two turns', () => {
  const tools = [
    {
      name: 'read_file',
      description: 'Reads a file.',
      inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    },
  ];
  const expectedTurn = {
    role: 'assistant',
    content: [
      {
        type: 'thinking',
        thinking: 'First the package manifest.',
        signature: 'EqMBCkgIBxABGAIiQFirstThinkingSignature0000000000000000==',
      },
      { type: 'text', text: 'Reading the manifest.' },
      { type: 'tool_use', id: 'toolu_01Manifest', name: 'read_file', input: { path: 'package.json' } },
      {
        type: 'thinking',
        thinking: 'The lockfile too, in parallel.',
        signature: 'EqMBCkgIBxABGAIiQSecondThinkingSignature000000000000000==',
      },
      { type: 'tool_use', id: 'toolu_01Lockfile', name: 'read_file', input: { path: 'pnpm-lock.yaml' } },
    ],
  };

  it.each([
    ['streamed', 'interleaved-thinking-tool-use-stream', true],
    ['not streamed', 'interleaved-thinking-tool-use', false],
  ] as const)('%s: the thinking goes back where it was, between the calls', async (_, fixture, streamed) => {
    server.script([
      ...(streamed ? fixtures.sse(fixture) : fixtures.json(fixture)),
      ...fixtures.sse('redacted-thinking-stream'),
    ]);
    const chat = model({ serverUrl: server.url });
    const first = await generate(
      chat,
      { messages: [{ role: 'user', content: 'Check the deps.' }], tools },
      streamed ? { onPart: () => {} } : {},
    );
    expect(first.toolCalls.map((call) => call.rawArguments)).toEqual(
      ['{"path": "package.json"}', '{"path": "pnpm-lock.yaml"}'].map((raw) =>
        streamed ? raw : JSON.stringify(JSON.parse(raw)),
      ),
    );
    // The assistant message as the executor journals it (JSON), then sent back.
    const assistant = JSON.parse(
      JSON.stringify({
        role: 'assistant',
        content: first.text,
        toolCalls: first.toolCalls,
        reasoning: first.reasoning,
      }),
    );
    await generate(
      chat,
      {
        messages: [
          { role: 'user', content: 'Check the deps.' },
          assistant,
          ...first.toolCalls.map((call) => ({
            role: 'tool' as const,
            toolCallId: call.id,
            toolName: call.name,
            content: '{}',
          })),
        ],
        tools,
      },
      { onPart: () => {} },
    );
    const sent = server.requests.at(-1)?.json as { messages: unknown[] };
    expect(sent.messages[1]).toEqual(expectedTurn);
  });
});
