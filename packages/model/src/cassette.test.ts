import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { GenerateRequest, StreamPart } from './chat-model';
import { generate } from './generate';
import { ModelError } from './model-error';
import {
  CassetteError,
  hashRequest,
  recordModel,
  replayModel,
  ScriptedModel,
  textTurn,
  toolCallTurn,
} from './testing';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'closedloop-cassette-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const ask = (content: string): GenerateRequest => ({ messages: [{ role: 'user', content }] });

async function collect(stream: AsyncIterable<StreamPart>): Promise<StreamPart[]> {
  const parts: StreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('hashRequest', () => {
  it('ignores key order and undefined fields', () => {
    const a: GenerateRequest = { messages: [{ role: 'user', content: 'x' }], temperature: 0 };
    const b = {
      temperature: 0,
      maxOutputTokens: undefined,
      messages: [{ content: 'x', role: 'user' as const }],
    };
    expect(hashRequest(a)).toBe(hashRequest(b));
    expect(hashRequest(a)).not.toBe(hashRequest({ ...a, temperature: 1 }));
  });
});

describe('recordModel → replayModel', () => {
  it('round-trips generate, stream and error calls through a JSONL file', async () => {
    const path = join(dir, 'nested', 'run.jsonl');
    const scripted = new ScriptedModel({
      modelId: 'rec-model',
      capabilities: { logprobs: true },
      turns: [
        toolCallTurn('read_file', { path: 'a.ts' }),
        { text: 'streamed answer', usage: { inputTokens: 3, outputTokens: 4 } },
        {
          error: new ModelError({
            code: 'rate-limited',
            message: 'slow down',
            retryAfterMs: 1500,
            status: 429,
          }),
        },
      ],
    });
    const recorder = recordModel(scripted, { path });
    const first = await recorder.doGenerate(ask('one'));
    const lines1 = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines1).toHaveLength(1);
    const streamed = await collect(recorder.doStream(ask('two')));
    const failure = await recorder.doGenerate(ask('three')).catch((e: unknown) => e);
    expect(failure).toMatchObject({ code: 'rate-limited' });

    const lines = (await readFile(path, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      version: 1,
      kind: 'generate',
      modelId: 'rec-model',
    });
    expect(JSON.parse(lines[1] ?? '{}')).toMatchObject({ kind: 'stream' });

    const replay = replayModel({ path });
    expect(replay).toMatchObject({ provider: 'scripted', modelId: 'rec-model', remaining: 3 });
    expect(replay.capabilities.logprobs).toBe(true);
    expect(await replay.doGenerate(ask('one'))).toEqual(first);
    expect(await collect(replay.doStream(ask('two')))).toEqual(streamed);
    const replayed = await replay.doGenerate(ask('three')).catch((e: unknown) => e);
    expect(ModelError.isInstance(replayed)).toBe(true);
    expect(replayed).toMatchObject({
      code: 'rate-limited',
      retryAfterMs: 1500,
      status: 429,
      isRetryable: true,
    });
    expect(replay.remaining).toBe(0);
    await expect(replay.doGenerate(ask('four'))).rejects.toMatchObject({ code: 'cassette-exhausted' });
  });

  it('serves a generate entry to doStream and a stream entry to doGenerate', async () => {
    const path = join(dir, 'cross.jsonl');
    const recorder = recordModel(
      new ScriptedModel({ turns: [textTurn('via generate'), textTurn('via stream')] }),
      { path },
    );
    await recorder.doGenerate(ask('g'));
    await collect(recorder.doStream(ask('s')));
    const replay = replayModel({ path });
    const parts = await collect(replay.doStream(ask('g')));
    expect(parts.at(-1)).toMatchObject({ type: 'finish', result: { text: 'via generate' } });
    expect((await replay.doGenerate(ask('s'))).text).toBe('via stream');
  });

  it('throws a clear mismatch error naming the differing field (order mode)', async () => {
    const path = join(dir, 'order.jsonl');
    const recorder = recordModel(new ScriptedModel({ turns: [textTurn('a')] }), { path });
    await recorder.doGenerate({
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'original prompt' },
      ],
    });
    const replay = replayModel({ path });
    const error = await replay
      .doGenerate({
        messages: [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'changed prompt' },
        ],
      })
      .catch((e: unknown) => e);
    expect(CassetteError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'cassette-mismatch' });
    expect((error as Error).message).toMatch(
      /call #1 differs from the recording at request\.messages\[1\]\.content: recorded "original prompt", got "changed prompt"/,
    );
  });

  it('answers by request hash in hash mode, regardless of order', async () => {
    const path = join(dir, 'hash.jsonl');
    const recorder = recordModel(new ScriptedModel({ turns: [textTurn('A'), textTurn('B')] }), { path });
    await recorder.doGenerate(ask('a'));
    await recorder.doGenerate(ask('b'));
    const replay = replayModel({ path, match: 'hash' });
    expect((await replay.doGenerate(ask('b'))).text).toBe('B');
    expect((await replay.doGenerate(ask('a'))).text).toBe('A');
    await expect(replay.doGenerate(ask('a'))).rejects.toMatchObject({ code: 'cassette-mismatch' });
  });

  it('works behind generate() (mismatch becomes a non-retryable ModelError)', async () => {
    const path = join(dir, 'generate.jsonl');
    await recordModel(new ScriptedModel({ turns: [textTurn('hi')] }), { path }).doGenerate(ask('x'));
    const replay = replayModel({ path });
    expect((await generate(replay, ask('x'))).text).toBe('hi');
    const error = await generate(replayModel({ path }), ask('y')).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid-response', isRetryable: false });
    expect(CassetteError.isInstance((error as Error).cause)).toBe(true);
  });

  it('rejects missing, empty and corrupt cassettes with typed errors', async () => {
    expect(() => replayModel({ path: join(dir, 'missing.jsonl') })).toThrow(
      expect.objectContaining({ code: 'cassette-unreadable' }),
    );
    const empty = join(dir, 'empty.jsonl');
    await writeFile(empty, '\n');
    expect(() => replayModel({ path: empty })).toThrow(expect.objectContaining({ code: 'cassette-invalid' }));
    const corrupt = join(dir, 'corrupt.jsonl');
    await writeFile(corrupt, '{"version":1,"kind":"generate"\n');
    expect(() => replayModel({ path: corrupt })).toThrow(/line 1: not JSON/);
    const wrong = join(dir, 'wrong.jsonl');
    await writeFile(wrong, '{"version":2}\n');
    expect(() => replayModel({ path: wrong })).toThrow(/not a version-1 cassette entry/);
  });

  it('honours an aborted signal on replay', async () => {
    const path = join(dir, 'abort.jsonl');
    await recordModel(new ScriptedModel({ turns: [textTurn('hi')] }), { path }).doGenerate(ask('x'));
    await expect(
      replayModel({ path }).doGenerate(ask('x'), { signal: AbortSignal.abort() }),
    ).rejects.toMatchObject({
      code: 'aborted',
    });
  });
});
