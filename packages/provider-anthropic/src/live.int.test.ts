/**
 * Opt-in live test against the real Anthropic API. Runs only when ANTHROPIC_API_KEY is set and
 * is excluded from the default run (`*.int.test.ts`). Run it with:
 *
 *   ANTHROPIC_API_KEY=sk-ant-... pnpm --filter @closedloop/provider-anthropic test:live
 *
 * ANTHROPIC_LIVE_MODEL picks the model (default claude-haiku-4-5).
 */
import { generate, generateObject, ModelError } from '@closedloop/model';
import { streamToResult } from '@closedloop/model/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAnthropic } from './anthropic-provider';

const apiKey = process.env.ANTHROPIC_API_KEY;
const modelId = process.env.ANTHROPIC_LIVE_MODEL ?? 'claude-haiku-4-5';

describe.runIf(Boolean(apiKey))(`live: anthropic ${modelId}`, () => {
  const model = createAnthropic({ apiKey })(modelId);

  it('answers a plain prompt with the system prompt extracted', { timeout: 60_000 }, async () => {
    const result = await generate(model, {
      messages: [
        { role: 'system', content: 'You answer with one lowercase word.' },
        { role: 'user', content: 'Reply with the word pong.' },
      ],
      maxOutputTokens: 20,
    });
    expect(result.text.toLowerCase()).toContain('pong');
    expect(result.finishReason).toBe('stop');
    expect(result.response?.requestId).toBeTruthy();
  });

  it('streams a tool call and accepts the tool result on the next turn', { timeout: 60_000 }, async () => {
    const tools = [
      {
        name: 'get_weather',
        description: 'Current weather for a city.',
        inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    const first = await streamToResult(
      model.doStream({
        messages: [{ role: 'user', content: 'Weather in Paris?' }],
        tools,
        toolChoice: 'required',
      }),
    );
    const call = first.toolCalls[0];
    expect(first.finishReason).toBe('tool-calls');
    expect(call?.name).toBe('get_weather');
    const second = await generate(model, {
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
        {
          role: 'tool',
          toolCallId: call?.id ?? '',
          toolName: 'get_weather',
          content: '{"tempC":18,"sky":"clear"}',
        },
      ],
      tools,
    });
    expect(second.text).toMatch(/18/);
  });

  it('returns structured output through the forced tool', { timeout: 60_000 }, async () => {
    const { object } = await generateObject(
      model,
      z.object({ capital: z.string(), country: z.string() }),
      'The capital of France.',
    );
    expect(object.capital).toMatch(/paris/i);
  });

  it('maps a bad key to auth without leaking it', { timeout: 60_000 }, async () => {
    const badKey = 'sk-ant-live-test-invalid-0000000000';
    const error = await createAnthropic({ apiKey: badKey })(modelId)
      .doGenerate({ messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(ModelError.isInstance(error) && error.code).toBe('auth');
    expect(JSON.stringify(error) + String(error)).not.toContain(badKey);
  });
});
