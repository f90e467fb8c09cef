import { afterEach, describe, expect, it } from 'vitest';
import type { GenerateRequest } from './chat-model';
import { ModelError } from './model-error';
import { clearProbeCache, probeCapabilities } from './probe-capabilities';
import { ScriptedModel, textTurn, toolCallTurn } from './testing';

afterEach(() => clearProbeCache());

const isTool = (r: GenerateRequest) => r.toolChoice === 'required';
const isJson = (r: GenerateRequest) => r.responseFormat?.type === 'json';
const isLogprobs = (r: GenerateRequest) => r.logprobs === true;

describe('probeCapabilities', () => {
  it('reports what worked and refines the capabilities', async () => {
    const model = new ScriptedModel({
      modelId: 'probe-a',
      capabilities: { logprobs: false, structuredOutput: true },
      matchers: [
        { match: isTool, respond: toolCallTurn('canary_echo', { value: 'ok' }) },
        { match: isJson, respond: textTurn('{"answer":5}') },
        { match: isLogprobs, respond: { text: 'yes', confidence: 0.97 } },
      ],
    });
    const result = await probeCapabilities(model);
    expect(result).toMatchObject({
      provider: 'scripted',
      modelId: 'probe-a',
      toolCalling: { supported: true },
      structuredOutput: { supported: true },
      logprobs: { supported: true },
      capabilities: { toolCalling: true, structuredOutput: true, logprobs: true },
    });
    expect(model.requests).toHaveLength(3);
    expect(model.requests[0]?.tools?.[0]?.name).toBe('canary_echo');
    expect(model.requests[0]?.maxOutputTokens).toBe(64);
  });

  it('treats bad-request and wrong answers as unsupported', async () => {
    const model = new ScriptedModel({
      modelId: 'probe-b',
      matchers: [
        { match: isTool, respond: textTurn('I would rather not call tools.') },
        {
          match: isJson,
          respond: {
            error: new ModelError({ code: 'bad-request', message: 'response_format not supported' }),
          },
        },
        { match: isLogprobs, respond: textTurn('yes') },
      ],
    });
    const result = await probeCapabilities(model);
    expect(result.toolCalling).toMatchObject({
      supported: false,
      detail: expect.stringMatching(/no canary_echo call/),
    });
    expect(result.structuredOutput).toMatchObject({
      supported: false,
      detail: expect.stringMatching(/response_format/),
    });
    expect(result.logprobs.supported).toBe(false);
    expect(result.capabilities).toMatchObject({
      toolCalling: false,
      parallelToolCalls: false,
      structuredOutput: false,
    });
  });

  it('caches per provider + model id, shares concurrent probes, and can be cleared', async () => {
    const make = () =>
      new ScriptedModel({
        modelId: 'probe-c',
        matchers: [
          { match: isTool, respond: toolCallTurn('canary_echo', { value: 'ok' }) },
          { match: () => true, respond: textTurn('{"answer":5}') },
        ],
      });
    const model = make();
    const [a, b] = await Promise.all([probeCapabilities(model), probeCapabilities(model)]);
    expect(a).toBe(b);
    const other = make();
    expect(await probeCapabilities(other)).toBe(a);
    expect(model.requests).toHaveLength(3);
    expect(other.requests).toHaveLength(0);

    await probeCapabilities(other, { force: true });
    expect(other.requests).toHaveLength(3);
    clearProbeCache({ provider: 'scripted', modelId: 'probe-c' });
    await probeCapabilities(model);
    expect(model.requests).toHaveLength(6);
  });

  it('only a schema that reached the model counts: the prompt names neither JSON nor the key', async () => {
    const model = new ScriptedModel({
      modelId: 'probe-f',
      matchers: [
        { match: isTool, respond: toolCallTurn('canary_echo', { value: 'ok' }) },
        // A server that ignores response_format answers the question in prose.
        {
          match: (request) => isJson(request) && request.messages.length === 1,
          respond: (request) => textTurn(`${request.messages[0]?.content === 'What is 2 + 3?' ? '5' : '?'}`),
        },
        { match: isLogprobs, respond: textTurn('yes') },
      ],
    });
    const result = await probeCapabilities(model);
    const prompt = model.requests[1]?.messages.map((message) => message.content).join('\n') ?? '';
    expect(prompt).not.toMatch(/json|answer/i);
    expect(model.requests[1]?.responseFormat?.schema).toMatchObject({ required: ['answer'] });
    expect(result.structuredOutput).toMatchObject({
      supported: false,
      detail: expect.stringMatching(/not \{"answer": <integer>\}/),
    });
  });

  it('rejects (and does not cache) inconclusive failures such as auth', async () => {
    let calls = 0;
    const model = new ScriptedModel({
      modelId: 'probe-d',
      turns: [{ error: new ModelError({ code: 'auth', message: 'invalid key' }) }],
      matchers: [{ match: () => ++calls > 1, respond: textTurn('{"answer":5}') }],
    });
    await expect(probeCapabilities(model)).rejects.toMatchObject({ code: 'auth' });
    const second = await probeCapabilities(model);
    expect(second.structuredOutput.supported).toBe(true);
  });

  it('rejects with aborted when the signal aborts', async () => {
    const model = new ScriptedModel({
      modelId: 'probe-e',
      latencyMs: 5_000,
      matchers: [{ match: () => true, respond: textTurn('x') }],
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 5);
    await expect(probeCapabilities(model, { signal: controller.signal })).rejects.toMatchObject({
      code: 'aborted',
    });
  });
});
