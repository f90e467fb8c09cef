import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateObject } from './generate-object';
import { ScriptedModel, textTurn } from './testing';

// The README example, kept runnable.
describe('README example', () => {
  it('repairs a wrong type through generateObject', async () => {
    const model = new ScriptedModel({
      capabilities: { structuredOutput: false },
      turns: [
        textTurn('Sure! {"city": "Paris", "population": "about 2.1M"}'),
        textTurn('```json\n{"city": "Paris", "population": 2100000}\n```'),
      ],
    });
    const City = z.object({ city: z.string(), population: z.number().int() });
    const { object, attempts, usage } = await generateObject(model, City, 'What is the capital of France?');
    expect(object).toEqual({ city: 'Paris', population: 2100000 });
    expect(attempts).toBe(2);
    expect(usage.totalTokens).toBeGreaterThan(0);
    expect(model.requests[1]?.messages.at(-1)?.content).toContain('→ at population');
  });
});
