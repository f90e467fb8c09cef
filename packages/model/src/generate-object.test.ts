import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateObject } from './generate-object';
import { ModelError } from './model-error';
import { ScriptedModel, textTurn } from './testing';

const City = z.object({ city: z.string(), population: z.number().int() });

describe('generateObject', () => {
  it('uses native structured output when the model supports it', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: true },
      turns: [textTurn('{"city":"Paris","population":2100000}')],
    });
    const { object, attempts, mode, usage, result } = await generateObject(model, City, {
      prompt: 'Capital of France?',
      name: 'city_answer',
      description: 'A city',
    });
    expect(object).toEqual({ city: 'Paris', population: 2100000 });
    expect(attempts).toBe(1);
    expect(mode).toBe('native');
    expect(usage).toEqual(result.usage);
    const sent = model.requests[0];
    expect(sent?.responseFormat).toEqual({
      type: 'json',
      name: 'city_answer',
      description: 'A city',
      schema: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          population: { type: 'integer', minimum: expect.any(Number), maximum: expect.any(Number) },
        },
        required: ['city', 'population'],
        additionalProperties: false,
      },
    });
    expect(sent?.messages).toEqual([{ role: 'user', content: 'Capital of France?' }]);
  });

  it('uses JSON-in-text with instructions when structured output is unsupported', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: false },
      turns: [textTurn('{"city":"Rome","population":2800000}')],
    });
    const { object, mode } = await generateObject(model, City, {
      prompt: 'Capital of Italy?',
      system: 'Be brief.',
    });
    expect(object.city).toBe('Rome');
    expect(mode).toBe('text');
    const sent = model.requests[0];
    expect(sent?.responseFormat).toBeUndefined();
    expect(sent?.messages[0]?.role).toBe('system');
    expect(sent?.messages[0]?.content).toMatch(/^Be brief\.\n\nAnswer with a single JSON value/);
    expect(sent?.messages[0]?.content).toContain('"population"');
  });

  it('merges the instruction into an existing leading system message', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: false },
      turns: [textTurn('{"city":"x","population":1}')],
    });
    await generateObject(model, City, {
      messages: [
        { role: 'system', content: 'You are a geographer.' },
        { role: 'user', content: 'Pick a city.' },
      ],
    });
    const messages = model.requests[0]?.messages ?? [];
    expect(messages).toHaveLength(2);
    expect(messages[0]?.content).toMatch(/^You are a geographer\.\n\nAnswer with a single JSON value/);
  });

  it('extracts JSON from a ```json fence', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: false },
      turns: [textTurn('Here you go:\n```json\n{"city":"Oslo","population":700000}\n```\nAnything else?')],
    });
    expect((await generateObject(model, City, 'Capital of Norway?')).object.city).toBe('Oslo');
  });

  it('extracts the first balanced JSON object from prose', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: false },
      turns: [
        textTurn(
          'Sure! The answer is {"city":"Lima {north}","population":10000000} — hope that helps {not json}.',
        ),
      ],
    });
    expect((await generateObject(model, City, 'Capital of Peru?')).object.city).toBe('Lima {north}');
  });

  it('extracts a JSON array for an array schema', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: false },
      turns: [textTurn('Steps: [1, 2, 3].')],
    });
    expect((await generateObject(model, z.array(z.number()), 'Count')).object).toEqual([1, 2, 3]);
  });

  it('repairs once, showing the previous output and the zod issues', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: true },
      turns: [
        textTurn('{"city":"Bern","population":"about 140k"}'),
        textTurn('{"city":"Bern","population":140000}'),
      ],
    });
    const { object, attempts, usage } = await generateObject(model, City, 'Capital of Switzerland?');
    expect(object).toEqual({ city: 'Bern', population: 140000 });
    expect(attempts).toBe(2);
    const repair = model.requests[1]?.messages ?? [];
    expect(repair).toHaveLength(3);
    expect(repair[1]).toEqual({ role: 'assistant', content: '{"city":"Bern","population":"about 140k"}' });
    expect(repair[2]?.role).toBe('user');
    expect(repair[2]?.content).toContain('expected number, received string');
    expect(repair[2]?.content).toContain('→ at population');
    expect(model.requests[1]?.responseFormat).toEqual(model.requests[0]?.responseFormat);
    const first = model.calls[0]?.result?.usage.totalTokens ?? 0;
    const second = model.calls[1]?.result?.usage.totalTokens ?? 0;
    expect(usage.totalTokens).toBe(first + second);
  });

  it('repairs invalid JSON with the parse error', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: false },
      turns: [textTurn('I think it is Paris.'), textTurn('{"city":"Paris","population":1}')],
    });
    const { attempts } = await generateObject(model, City, 'Capital?');
    expect(attempts).toBe(2);
    expect(model.requests[1]?.messages.at(-1)?.content).toMatch(/not valid JSON/);
  });

  it('throws invalid-response with both raw outputs after a failed repair', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: false },
      turns: [textTurn('{"city":42}'), textTurn('no idea')],
    });
    const error = await generateObject(model, City, 'Capital?').catch((e: unknown) => e);
    expect(ModelError.isInstance(error)).toBe(true);
    if (!ModelError.isInstance(error)) return;
    expect(error.code).toBe('invalid-response');
    expect(error.isRetryable).toBe(false);
    expect(error.rawOutput).toBe('no idea');
    expect(error.rawOutputs).toEqual(['{"city":42}', 'no idea']);
    expect(error.message).toMatch(/after 2 attempt/);
    expect(error.cause).toBeInstanceOf(SyntaxError);
    expect(model.requests).toHaveLength(2);
  });

  it('keeps the ZodError as cause when the last answer fails the schema', async () => {
    const model = new ScriptedModel({ turns: [textTurn('{"city":1}'), textTurn('{"city":2}')] });
    const error = await generateObject(model, City, 'x').catch((e: unknown) => e);
    expect((error as ModelError).cause).toBeInstanceOf(z.ZodError);
  });

  it('makes a single attempt with repair: false', async () => {
    const model = new ScriptedModel({ turns: [textTurn('nope'), textTurn('{"city":"a","population":1}')] });
    await expect(generateObject(model, City, { prompt: 'x', repair: false })).rejects.toMatchObject({
      code: 'invalid-response',
      rawOutputs: ['nope'],
    });
    expect(model.remainingTurns).toBe(1);
  });

  it('does not repair a refusal', async () => {
    const model = new ScriptedModel({
      turns: [{ text: 'I cannot help with that.', finishReason: 'refusal' }],
    });
    await expect(generateObject(model, City, 'x')).rejects.toMatchObject({
      code: 'invalid-response',
      rawOutput: 'I cannot help with that.',
    });
    expect(model.requests).toHaveLength(1);
  });

  it('forces a mode when asked', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: true },
      turns: [textTurn('{"city":"a","population":1}')],
    });
    const { mode } = await generateObject(model, City, { prompt: 'x', mode: 'text' });
    expect(mode).toBe('text');
    expect(model.requests[0]?.responseFormat).toBeUndefined();
  });

  it('applies schema transforms and defaults to the parsed object', async () => {
    const schema = z.object({
      name: z.string().transform((s) => s.toUpperCase()),
      tags: z.array(z.string()).default([]),
    });
    const model = new ScriptedModel({ turns: [textTurn('{"name":"ada"}')] });
    const { object } = await generateObject(model, schema, 'x');
    expect(object).toEqual({ name: 'ADA', tags: [] });
    expect(model.requests[0]?.responseFormat?.schema).toMatchObject({ required: ['name'] });
  });

  it('rejects bad input with typed errors', async () => {
    const model = new ScriptedModel({ turns: [] });
    await expect(generateObject(model, City, {})).rejects.toMatchObject({ code: 'bad-request' });
    await expect(generateObject(model, City, { prompt: 'x', name: 'has space' })).rejects.toMatchObject({
      code: 'bad-request',
    });
    await expect(generateObject(model, z.object({ n: z.bigint() }), 'x')).rejects.toMatchObject({
      code: 'bad-request',
    });
  });

  it('passes transport failures through the retry policy', async () => {
    const model = new ScriptedModel({
      turns: [
        { error: new ModelError({ code: 'rate-limited', message: '429' }) },
        textTurn('{"city":"a","population":1}'),
      ],
    });
    const { attempts } = await generateObject(model, City, { prompt: 'x', retry: { sleep: async () => {} } });
    expect(attempts).toBe(1);
    expect(model.requests).toHaveLength(2);
  });
});
