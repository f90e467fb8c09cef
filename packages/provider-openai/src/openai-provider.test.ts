import { ModelError, type StreamPart } from '@closedloop/model';
import { modelRejection, replayFixtures } from '@closedloop/model/conformance';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { OpenAIChatModel } from './openai-chat-model';
import { createOpenAI, openai } from './openai-provider';
import { OpenAIResponsesModel } from './openai-responses-model';

const { server, read: fixture } = replayFixtures(new URL('./__fixtures__/', import.meta.url));
const hi = { messages: [{ role: 'user' as const, content: 'hi' }] };

afterEach(() => {
  vi.unstubAllEnvs();
});

/** A fetch that sends api.openai.com traffic to the loopback server instead. */
function redirectFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const url = String(input instanceof Request ? input.url : input).replace(
    'https://api.openai.com',
    server.url,
  );
  return fetch(url, init);
}

describe('createOpenAI', () => {
  it('names the provider openai, openai-compatible with a baseURL, or as told', () => {
    expect(createOpenAI({ apiKey: 'k' })('gpt-4.1').provider).toBe('openai');
    expect(
      createOpenAI({ baseURL: 'http://localhost:11434/v1' })('llama3.1', { capabilities: {} }).provider,
    ).toBe('openai-compatible');
    expect(createOpenAI({ baseURL: 'http://localhost:8000/v1', name: 'vllm' }).provider).toBe('vllm');
    const provider = createOpenAI({ apiKey: 'k' });
    expect(provider.chat('gpt-4o').modelId).toBe('gpt-4o');
    expect(provider('gpt-4o').specificationVersion).toBe('v1');
  });

  it('resolves capabilities from the table and applies per-model overrides', () => {
    const provider = createOpenAI({ apiKey: 'k' });
    expect(provider('gpt-4.1').capabilities).toMatchObject({ structuredOutput: true, logprobs: true });
    expect(provider('o3').capabilities).toMatchObject({ reasoning: true, logprobs: false });
    expect(provider('gpt-4.1', { capabilities: { logprobs: false } }).capabilities.logprobs).toBe(false);
  });

  it('rejects bad options and model ids with a typed error', () => {
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return ModelError.isInstance(error) ? `${error.code}: ${error.message}` : String(error);
      }
      return 'no error';
    };
    expect(codeOf(() => createOpenAI({ baseURL: 'localhost:11434' }))).toMatch(
      /^bad-request: .*not a valid http\(s\) URL/,
    );
    expect(codeOf(() => createOpenAI({ timeoutMs: 0 }))).toMatch(/^bad-request: .*timeoutMs/);
    expect(codeOf(() => createOpenAI({ apiKey: 'k' })(''))).toMatch(/^bad-request: .*non-empty string/);
    for (const streamIdleTimeoutMs of [-1, Number.NaN, '30000' as unknown as number]) {
      expect(codeOf(() => createOpenAI({ streamIdleTimeoutMs }))).toMatch(
        /^bad-request: createOpenAI: streamIdleTimeoutMs must be a number of milliseconds >= 0/,
      );
    }
    expect(codeOf(() => createOpenAI({ timeoutMs: Number.NaN }))).toMatch(/^bad-request: .*got NaN/);
    expect(codeOf(() => createOpenAI({ streamIdleTimeoutMs: 0 })('gpt-4.1'))).toBe('no error');
    // The model classes, constructed directly, check it too.
    const config = {
      provider: 'openai',
      client: () => ({}) as never,
      secrets: () => [],
      streamIdleTimeoutMs: -5,
    };
    const capabilities = createOpenAI({ apiKey: 'k' })('gpt-4.1').capabilities;
    expect(
      codeOf(() => new OpenAIChatModel({ modelId: 'gpt-4.1', settings: {}, capabilities, config })),
    ).toMatch(/^bad-request: OpenAIChatModel: streamIdleTimeoutMs .* got -5/);
    expect(
      codeOf(() => new OpenAIResponsesModel({ modelId: 'gpt-4.1', settings: {}, capabilities, config })),
    ).toMatch(/^bad-request: OpenAIResponsesModel: streamIdleTimeoutMs .* got -5/);
  });

  it('the default instance fails with auth, naming OPENAI_API_KEY, when the key is missing', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    const error = await modelRejection(openai('gpt-4.1').doGenerate(hi));
    expect(error.code).toBe('auth');
    expect(error.isRetryable).toBe(false);
    expect(error.message).toContain('OPENAI_API_KEY');
    const streamError = await modelRejection(
      (async () => {
        for await (const _part of openai('gpt-4.1').doStream(hi)) {
          // no parts expected
        }
      })(),
    );
    expect(streamError.code).toBe('auth');
  });

  it('reads OPENAI_API_KEY at the first request, not when the provider is created', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    const provider = createOpenAI({ fetch: redirectFetch });
    const model = provider('gpt-4.1');
    vi.stubEnv('OPENAI_API_KEY', 'sk-set-after-creation-0001');
    server.script([{ type: 'response', response: fixture('text') }]);
    const result = await model.doGenerate(hi);
    expect(result.text).toBe('Hello from the loopback server.');
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-set-after-creation-0001');
    expect(server.requests[0]?.path).toBe('/v1/chat/completions');
  });

  it('never sends OPENAI_API_KEY or OPENAI_ORG_ID to an OpenAI-compatible server', async () => {
    vi.stubEnv('OPENAI_API_KEY', 'sk-real-openai-key-must-stay-home');
    vi.stubEnv('OPENAI_ORG_ID', 'org-secret');
    const model = createOpenAI({ baseURL: `${server.url}/v1` })('gpt-4.1', { capabilities: {} });
    server.script([{ type: 'response', response: fixture('text') }]);
    const result = await model.doGenerate(hi);
    expect(result.text).toBe('Hello from the loopback server.');
    const headers = server.requests[0]?.headers ?? {};
    expect(JSON.stringify(headers)).not.toContain('sk-real-openai-key-must-stay-home');
    expect(headers['openai-organization']).toBeUndefined();
    expect(model.provider).toBe('openai-compatible');
  });

  it('sends custom headers, organization and project, and uses a custom fetch', async () => {
    const seen: string[] = [];
    const model = createOpenAI({
      apiKey: 'sk-test-headers-000000',
      organization: 'org-loop',
      project: 'proj-loop',
      headers: { 'x-trace-id': 'trace-1' },
      fetch: (input, init) => {
        seen.push(String(input));
        return redirectFetch(input, init);
      },
    })('gpt-4.1');
    server.script([{ type: 'response', response: fixture('text') }]);
    await model.doGenerate(hi);
    const headers = server.requests[0]?.headers ?? {};
    expect(headers).toMatchObject({
      'x-trace-id': 'trace-1',
      'openai-organization': 'org-loop',
      'openai-project': 'proj-loop',
    });
    expect(seen).toEqual(['https://api.openai.com/v1/chat/completions']);
  });

  it('an already-aborted signal fails with aborted and sends nothing', async () => {
    const model = createOpenAI({ name: 'openai', apiKey: 'k', baseURL: `${server.url}/v1` })('gpt-4.1');
    server.script([]);
    const controller = new AbortController();
    controller.abort();
    expect((await modelRejection(model.doGenerate(hi, { signal: controller.signal }))).code).toBe('aborted');
    const parts: StreamPart[] = [];
    const streamError = await modelRejection(
      (async () => {
        for await (const part of model.doStream(hi, { signal: controller.signal })) parts.push(part);
      })(),
    );
    expect(streamError.code).toBe('aborted');
    expect(parts).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });
});
