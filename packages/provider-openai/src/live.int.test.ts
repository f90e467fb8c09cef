/**
 * Opt-in live test against the real OpenAI API. Runs only when OPENAI_API_KEY is set and is
 * excluded from the default run (`*.int.test.ts`). Run it with:
 *
 *   OPENAI_API_KEY=sk-... pnpm --filter @closedloop/provider-openai test:live
 *
 * OPENAI_LIVE_MODEL picks the model (default gpt-4.1-mini); OPENAI_BASE_URL points it at an
 * OpenAI-compatible server instead (Ollama, vLLM, LM Studio).
 */
import { generate, generateObject, ModelError } from '@closedloop/model';
import { streamToResult } from '@closedloop/model/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createOpenAI } from './openai-provider';

const apiKey = process.env.OPENAI_API_KEY;
const baseURL = process.env.OPENAI_BASE_URL;
const modelId = process.env.OPENAI_LIVE_MODEL ?? 'gpt-4.1-mini';

describe.runIf(Boolean(apiKey))(`live: openai ${modelId}`, () => {
  const provider = createOpenAI({ apiKey, ...(baseURL ? { baseURL, name: 'openai' } : {}) });
  const model = provider(modelId);

  it('answers a plain prompt', { timeout: 60_000 }, async () => {
    const result = await generate(model, {
      messages: [{ role: 'user', content: 'Reply with exactly the word: pong' }],
      maxOutputTokens: 20,
    });
    expect(result.text.toLowerCase()).toContain('pong');
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.response?.requestId).toBeTruthy();
  });

  it('streams a forced tool call with parsed arguments', { timeout: 60_000 }, async () => {
    const result = await streamToResult(
      model.doStream({
        messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
        tools: [
          {
            name: 'get_weather',
            description: 'Current weather for a city.',
            inputSchema: {
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
              additionalProperties: false,
            },
          },
        ],
        toolChoice: { type: 'tool', name: 'get_weather' },
      }),
    );
    expect(result.finishReason).toBe('tool-calls');
    expect(result.toolCalls[0]?.name).toBe('get_weather');
    expect(JSON.stringify(result.toolCalls[0]?.arguments ?? {})).toMatch(/paris/i);
  });

  it('returns structured output through generateObject', { timeout: 60_000 }, async () => {
    const { object } = await generateObject(
      model,
      z.object({ capital: z.string(), country: z.string() }),
      'The capital of France, as JSON.',
    );
    expect(object.capital).toMatch(/paris/i);
  });

  it('maps a bad key to auth without leaking it', { timeout: 60_000 }, async () => {
    const badKey = 'sk-live-test-invalid-key-0000000000';
    const bad = createOpenAI({ apiKey: badKey, ...(baseURL ? { baseURL, name: 'openai' } : {}) })(modelId);
    const error = await bad
      .doGenerate({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(ModelError.isInstance(error) && error.code).toBe('auth');
    expect(JSON.stringify(error) + String(error)).not.toContain(badKey);
  });
});
