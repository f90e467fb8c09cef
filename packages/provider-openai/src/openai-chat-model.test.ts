import { generate, generateObject } from '@closedloop/model';
import { parseRecordedResponse, replayFixtures, streamResult } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOpenAI } from './openai-provider';

const { server, read: fixture } = replayFixtures(new URL('./__fixtures__/', import.meta.url));
const hi = { messages: [{ role: 'user' as const, content: 'Is it true?' }] };

const provider = () =>
  createOpenAI({ name: 'openai', apiKey: 'sk-loopback-000000', baseURL: `${server.url}/v1` });

describe('OpenAIChatModel over the loopback server', () => {
  it('turns logprobs into confidence = exp(mean logprob)', async () => {
    server.script([{ type: 'response', response: fixture('logprobs') }]);
    const result = await provider()('gpt-4.1').doGenerate({ ...hi, logprobs: true });
    expect(server.requests[0]?.json).toMatchObject({ logprobs: true });
    expect(result.text).toBe('Yes.');
    expect(result.confidence).toBeCloseTo(Math.exp((-0.01 + -0.2) / 2), 12);
  });

  it('collects streamed logprobs into confidence', async () => {
    server.script([{ type: 'response', response: fixture('logprobs-stream'), chunking: 'events' }]);
    const { result } = await streamResult(provider()('gpt-4.1').doStream({ ...hi, logprobs: true }));
    expect(server.requests[0]?.json).toMatchObject({
      logprobs: true,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(result.confidence).toBeCloseTo(Math.exp(-0.105), 12);
  });

  it('sends reasoning-model requests without temperature and maps reasoning and cached tokens', async () => {
    server.script([{ type: 'response', response: fixture('reasoning-model') }]);
    const result = await provider()('o3', { reasoningEffort: 'high' }).doGenerate({
      messages: [
        { role: 'system', content: 'Answer with a number.' },
        { role: 'user', content: 'The answer?' },
      ],
      temperature: 0.3,
      maxOutputTokens: 2000,
    });
    expect(server.requests[0]?.json).toEqual({
      model: 'o3',
      messages: [
        { role: 'developer', content: 'Answer with a number.' },
        { role: 'user', content: 'The answer?' },
      ],
      max_completion_tokens: 2000,
      reasoning_effort: 'high',
      prompt_cache_key: expect.stringMatching(/^closedloop-/),
    });
    expect(result.warnings).toEqual(['temperature is not supported by o3 and was left out']);
    expect(result.usage).toEqual({
      inputTokens: 30,
      outputTokens: 210,
      totalTokens: 240,
      reasoningTokens: 192,
      cachedInputTokens: 16,
    });
    expect(result.response?.modelId).toBe('o3-2025-04-16');
  });

  it('reports a refusal as finish reason refusal with the refusal text', async () => {
    server.script([{ type: 'response', response: fixture('refusal') }]);
    const result = await provider()('gpt-4.1').doGenerate(hi);
    expect(result.finishReason).toBe('refusal');
    expect(result.rawFinishReason).toBe('stop');
    expect(result.text).toBe("I'm sorry, I can't help with that.");
  });

  it('reads reasoning_content from OpenAI-compatible servers, streamed and not', async () => {
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'qwen3', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const streamed = parseRecordedResponse(
      `HTTP/1.1 200 OK\ncontent-type: text/event-stream\n\n${chunk({ role: 'assistant', reasoning_content: 'Think' })}${chunk({ reasoning_content: 'ing.' })}${chunk({ content: 'Done.' })}${chunk({}, 'stop')}data: [DONE]\n\n`,
    );
    server.script([{ type: 'response', response: streamed, chunking: 'events' }]);
    const model = createOpenAI({ baseURL: `${server.url}/v1` })('qwen3', { capabilities: {} });
    const { parts, result } = await streamResult(model.doStream(hi));
    expect(parts.filter((part) => part.type === 'reasoning-delta')).toEqual([
      { type: 'reasoning-delta', delta: 'Think' },
      { type: 'reasoning-delta', delta: 'ing.' },
    ]);
    expect(result.reasoning).toEqual([{ text: 'Thinking.', providerData: { field: 'reasoning_content' } }]);
    expect(result.text).toBe('Done.');
    expect(result.usage).toEqual({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    expect(server.requests[0]?.headers.authorization).toBe('Bearer no-key');
  });

  it('stops the HTTP request when the consumer stops reading', async () => {
    server.script([
      {
        type: 'response',
        response: fixture('text-stream'),
        chunking: 'events',
        limitEvents: 3,
        after: 'hold',
      },
    ]);
    const model = provider()('gpt-4.1');
    const started = performance.now();
    for await (const part of model.doStream(hi)) {
      if (part.type === 'text-delta') break;
    }
    expect(performance.now() - started).toBeLessThan(1000);
    expect(server.requests).toHaveLength(1);
  });

  it('works under generateObject: native strict json_schema, parsed by zod', async () => {
    server.script([{ type: 'response', response: fixture('structured-output') }]);
    const { object } = await generateObject(
      provider()('gpt-4.1'),
      z.object({ title: z.string(), servings: z.number().int(), tags: z.array(z.string()) }),
      { prompt: 'A pancake recipe.', name: 'recipe', retry: false },
    );
    expect(object).toEqual({ title: 'Pancakes', servings: 4, tags: ['breakfast', 'sweet'] });
    expect(server.requests[0]?.json).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'recipe', strict: true } },
    });
  });

  it('works under generate with retries: 503 then 200 is two attempts, both identical', async () => {
    server.script([
      { type: 'response', response: fixture('unavailable-503') },
      { type: 'response', response: fixture('text') },
    ]);
    const result = await generate(provider()('gpt-4.1'), hi, { retry: { initialDelayMs: 1, jitter: false } });
    expect(result.text).toBe('Hello from the loopback server.');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.body).toBe(server.requests[1]?.body);
  });
});
