import { describe, expect, it } from 'vitest';
import { fromAISDK } from './ai-sdk-chat-model';
import { withRepairedFetch } from './with-repaired-fetch';

const ask = { messages: [{ role: 'user' as const, content: 'hi' }] };

/** A specification-v3 model written as a class with `#private` state and a `config.fetch`. */
class PrivateStateModel {
  readonly specificationVersion = 'v3' as const;
  readonly provider = 'private.chat';
  readonly modelId = 'private-1';
  readonly supportedUrls = {};
  readonly config = { fetch: undefined };
  #calls = 0;
  get calls(): number {
    return this.#calls;
  }
  async doGenerate() {
    this.#calls++;
    return {
      content: [{ type: 'text' as const, text: 'hello' }],
      finishReason: { unified: 'stop' as const, raw: 'stop' },
      usage: {
        inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 1, text: 1, reasoning: undefined },
      },
      warnings: [],
    };
  }
  async doStream(): Promise<never> {
    throw new Error('not streamed');
  }
}

describe('withRepairedFetch', () => {
  it("gives a copy of the model a repairing fetch; the caller's model keeps its own", async () => {
    const fetchImpl = async () =>
      new Response('data: {"a":1}\r\rdata: [DONE]', {
        headers: { 'content-type': 'text/event-stream' },
      });
    const model = { config: { fetch: fetchImpl, url: () => 'x' }, name: 'm' };
    const copy = withRepairedFetch(model);
    expect(model.config.fetch).toBe(fetchImpl);
    expect([copy?.name, copy?.config.url()]).toEqual(['m', 'x']);
    expect(await (await copy?.config.fetch())?.text()).toBe('data: {"a":1}\n\ndata: [DONE]\n\n');
    expect(withRepairedFetch({ generate: () => 1 })).toBeUndefined();
  });

  it('a model class with #private fields is called as given (the copy cannot run its methods)', async () => {
    const model = new PrivateStateModel();
    const chat = fromAISDK(model as never);
    expect((await chat.doGenerate(ask)).text).toBe('hello');
    expect((await chat.doGenerate(ask)).text).toBe('hello');
    expect(model.calls).toBe(2);
  });
});
