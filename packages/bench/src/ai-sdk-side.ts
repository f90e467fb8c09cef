import type { LanguageModelV3GenerateResult, LanguageModelV3Usage } from '@ai-sdk/provider';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';

const usage: LanguageModelV3Usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/**
 * The AI SDK's tool loop: `generateText` with `MockLanguageModelV3` (from `ai/test`, zero latency)
 * answering a no-op tool call `iterations` times, then text, and `stopWhen: stepCountIs(iterations
 * + 1)`. Returns µs per iteration (wall time ÷ iterations).
 */
export async function aiSdkToolLoop(iterations: number): Promise<number> {
  const results: LanguageModelV3GenerateResult[] = Array.from({ length: iterations }, (_, i) => ({
    content: [{ type: 'tool-call', toolCallId: `call_${i}`, toolName: 'noop', input: `{"i":${i}}` }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  }));
  results.push({
    content: [{ type: 'text', text: 'done' }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage,
    warnings: [],
  });
  let next = 0;
  const model = new MockLanguageModelV3({
    doGenerate: async () => {
      const result = results[next++];
      if (result === undefined) throw new Error('mock model: out of results');
      return result;
    },
  });
  let calls = 0;
  const noop = tool({
    description: 'Does nothing.',
    inputSchema: z.object({ i: z.number().int() }),
    execute: async () => {
      calls++;
      return 'ok';
    },
  });
  const started = performance.now();
  const result = await generateText({
    model,
    tools: { noop },
    prompt: 'Call noop many times.',
    stopWhen: stepCountIs(iterations + 1),
  });
  const elapsed = performance.now() - started;
  if (calls !== iterations || result.text !== 'done')
    throw new Error(`AI SDK tool loop: ${calls} tool calls, text ${JSON.stringify(result.text)}`);
  return (elapsed * 1000) / iterations;
}
