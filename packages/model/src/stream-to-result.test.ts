import { describe, expect, it } from 'vitest';
import type { GenerateResult, StreamPart } from './chat-model';
import { resultToStream, streamToResult } from './stream-to-result';

const result: GenerateResult = {
  text: 'hello',
  toolCalls: [{ id: 'c1', name: 'f', arguments: {}, rawArguments: '' }],
  finishReason: 'tool-calls',
  usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
  reasoning: [{ text: 'because' }],
};

async function* parts(...items: StreamPart[]): AsyncGenerator<StreamPart> {
  yield* items;
}

describe('streamToResult / resultToStream', () => {
  it('round-trips a result and reports every part', async () => {
    const seen: string[] = [];
    const back = await streamToResult(resultToStream(result, { chunkSize: 2 }), {
      onPart: (p) => seen.push(p.type),
    });
    expect(back).toEqual(result);
    expect(seen).toEqual([
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-delta',
      'reasoning-delta',
      'text-delta',
      'text-delta',
      'text-delta',
      'tool-call-delta',
      'tool-call',
      'finish',
    ]);
  });

  it('rejects a stream without a finish part', async () => {
    await expect(
      streamToResult(parts({ type: 'text-delta', delta: 'x' }), { provider: 'p' }),
    ).rejects.toMatchObject({
      code: 'invalid-response',
      message: expect.stringMatching(/without a 'finish' part/),
    });
  });

  it('rejects parts after the finish part', async () => {
    await expect(
      streamToResult(parts({ type: 'finish', result }, { type: 'text-delta', delta: 'late' })),
    ).rejects.toMatchObject({ code: 'invalid-response' });
  });

  it('propagates stream errors', async () => {
    async function* broken(): AsyncGenerator<StreamPart> {
      yield { type: 'text-delta', delta: 'a' };
      throw new Error('socket');
    }
    await expect(streamToResult(broken())).rejects.toThrow('socket');
  });
});
