import { ModelError } from '@closedloop/model';
import { collectStream, replayFixtures } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createAnthropic } from './anthropic-provider';

// `stop_reason: "pause_turn"`: the server paused a long server-tool turn (web search) and the
// client must send the assistant content back to continue it. Replayed through the official SDK.
const { server, json, sse } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
const ask = {
  messages: [{ role: 'user' as const, content: 'Which Node.js line is LTS now?' }],
  providerOptions: {
    anthropic: { extraBody: { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] } },
  },
};

const model = () =>
  createAnthropic({ apiKey: 'sk-ant-loopback-000000', baseURL: server.url })('claude-sonnet-4-5');

type SentMessage = { role: string; content: unknown };
const sent = (index: number) =>
  (server.requests[index]?.json ?? {}) as { messages: SentMessage[]; container?: string };
const sentMessages = (index: number) => sent(index).messages;

const pausedContent = [
  { type: 'text', text: "I'll look up the current release." },
  {
    type: 'server_tool_use',
    id: 'srvtoolu_01PauseSearch',
    name: 'web_search',
    input: { query: 'node.js latest LTS release' },
  },
  {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_01PauseSearch',
    content: [
      {
        type: 'web_search_result',
        title: 'Node.js — Previous Releases',
        url: 'https://nodejs.org/en/about/previous-releases',
        encrypted_content: 'EqgfCioIARgBIiQ3YTAwMjY1Mi1loopback',
        page_age: '2 days ago',
      },
    ],
  },
];

describe('a turn the server paused (pause_turn)', () => {
  it('not streamed: is continued with the paused content sent back verbatim, and the container', async () => {
    server.script([...json('pause-turn-web-search'), ...json('pause-turn-continued')]);
    const result = await model().doGenerate(ask);
    expect(server.requests).toHaveLength(2);
    const first = sentMessages(0);
    expect(sentMessages(1)).toEqual([...first, { role: 'assistant', content: pausedContent }]);
    expect(sent(1).container).toBe('container_011CPauseLoop');
    expect(result.text).toBe("I'll look up the current release.The current LTS line is Node.js 22.");
    expect(result.finishReason).toBe('stop');
    expect(result.rawFinishReason).toBe('end_turn');
    expect(result.toolCalls).toEqual([]);
    // Both requests are billed: their usage is summed.
    expect(result.usage).toMatchObject({ inputTokens: 2214 + 3390, outputTokens: 41 + 27 });
    expect(result.response?.requestId).toBe('req_pause_2');
  });

  it('streamed: the continuation streams on; the second request carries the streamed blocks rebuilt', async () => {
    server.script([...sse('pause-turn-web-search-stream'), ...sse('pause-turn-continued-stream')]);
    const { parts, error } = await collectStream(model().doStream(ask));
    expect(error).toBeUndefined();
    expect(server.requests).toHaveLength(2);
    expect(sentMessages(1)).toEqual([...sentMessages(0), { role: 'assistant', content: pausedContent }]);
    expect(sent(1).container).toBeUndefined();
    const finish = parts.at(-1);
    expect(finish?.type).toBe('finish');
    if (finish?.type !== 'finish') return;
    expect(finish.result.text).toBe("I'll look up the current release.The current LTS line is Node.js 22.");
    expect(parts.flatMap((part) => (part.type === 'text-delta' ? [part.delta] : [])).join('')).toBe(
      finish.result.text,
    );
    expect(finish.result.finishReason).toBe('stop');
    expect(finish.result.usage).toMatchObject({ inputTokens: 2214 + 3390, outputTokens: 41 + 27 });
    expect(finish.result.response?.id).toBe('msg_01PauseA');
  });

  it('a turn paused again and again is a typed error, not a half answer finished as "other"', async () => {
    server.script(Array.from({ length: 6 }, () => json('pause-turn-web-search')).flat());
    const error = await model()
      .doGenerate(ask)
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(ModelError.isInstance(error)).toBe(true);
    expect((error as ModelError).code).toBe('invalid-response');
    expect((error as ModelError).message).toMatch(/paused the turn \(stop_reason "pause_turn"\) 6 times/);
    expect(server.requests).toHaveLength(6);
    // Every continuation sends all the paused content so far.
    const last = sentMessages(5).at(-1) as SentMessage;
    expect(last.role).toBe('assistant');
    expect(last.content).toHaveLength(5 * pausedContent.length);

    server.script(Array.from({ length: 6 }, () => sse('pause-turn-web-search-stream')).flat());
    const streamed = await collectStream(model().doStream(ask));
    expect((streamed.error as ModelError).code).toBe('invalid-response');
    expect(streamed.parts.some((part) => part.type === 'finish')).toBe(false);
  });
});
