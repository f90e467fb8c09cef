/**
 * Adapter overhead: the raw `@anthropic-ai/sdk` vs `createAnthropic(...)(modelId)` against the same
 * loopback server returning the same recorded response, calls interleaved (alternating which
 * goes first) so drift and GC hit both sides alike. Prints both medians, the difference and
 * PASS/FAIL against the target (< 0.5 ms median overhead), for JSON and for SSE streaming.
 *
 * Run: pnpm bench (or npx tsx --conditions=@closedloop/source bench/overhead.bench.ts [N]).
 */

import Anthropic from '@anthropic-ai/sdk';
import type { GenerateRequest } from '@closedloop/model';
import {
  readRecordedResponse,
  startLoopbackServer,
} from '../../provider-openai/src/__conformance__/loopback-server';
import { createAnthropic } from '../src/anthropic-provider';

const calls = Math.max(500, Number(process.argv[2] ?? 1000));
const warmup = 200;
const targetMs = 0.5;

const fixture = (name: string) =>
  readRecordedResponse(new URL(`../src/__fixtures__/${name}.http`, import.meta.url));

const request: GenerateRequest = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Say hello.' },
  ],
  temperature: 0,
  maxOutputTokens: 64,
};
// The body our adapter sends for `request` (checked below), written by hand for the raw SDK.
const rawBody = {
  model: 'claude-sonnet-4-6',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'Say hello.' }],
  system: 'You are terse.',
  temperature: 0,
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 0
    ? ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2
    : (sorted[middle] ?? 0);
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

async function measure(
  label: string,
  raw: () => Promise<unknown>,
  adapter: () => Promise<unknown>,
): Promise<boolean> {
  for (let i = 0; i < warmup; i++) {
    await raw();
    await adapter();
  }
  const rawTimes: number[] = [];
  const adapterTimes: number[] = [];
  const differences: number[] = [];
  for (let i = 0; i < calls; i++) {
    let rawMs: number;
    let adapterMs: number;
    if (i % 2 === 0) {
      rawMs = await time(raw);
      adapterMs = await time(adapter);
    } else {
      adapterMs = await time(adapter);
      rawMs = await time(raw);
    }
    rawTimes.push(rawMs);
    adapterTimes.push(adapterMs);
    differences.push(adapterMs - rawMs);
  }
  const rawMedian = median(rawTimes);
  const adapterMedian = median(adapterTimes);
  const overhead = adapterMedian - rawMedian;
  const pairedOverhead = median(differences);
  const pass = overhead < targetMs;
  console.log(
    `${label.padEnd(16)} raw SDK median ${rawMedian.toFixed(3)} ms | adapter median ${adapterMedian.toFixed(3)} ms | ` +
      `overhead ${overhead.toFixed(3)} ms (median of paired differences ${pairedOverhead.toFixed(3)} ms) | ` +
      `target < ${targetMs} ms: ${pass ? 'PASS' : 'FAIL'}`,
  );
  return pass;
}

const server = await startLoopbackServer({ keepAliveTimeoutMs: 10_000 });
try {
  const baseURL = server.url;
  const apiKey = 'sk-ant-bench-000000000000';
  const client = new Anthropic({ apiKey, authToken: null, baseURL, maxRetries: 0, timeout: 600_000 });
  const model = createAnthropic({ apiKey, baseURL })('claude-sonnet-4-6');

  // Same bytes on the wire for both sides, or the comparison means nothing.
  server.script([
    { type: 'response', response: fixture('text') },
    { type: 'response', response: fixture('text') },
  ]);
  await client.messages.create(rawBody);
  await model.doGenerate(request);
  if (server.requests[0]?.body !== server.requests[1]?.body) {
    throw new Error(`request bodies differ:\n${server.requests[0]?.body}\n${server.requests[1]?.body}`);
  }

  console.log(
    `provider-anthropic adapter overhead, ${calls} interleaved calls per side after ${warmup} warm-up calls`,
  );
  server.script([], { fallback: { type: 'response', response: fixture('text') }, record: false });
  const jsonPass = await measure(
    'JSON (generate)',
    () => client.messages.create(rawBody),
    () => model.doGenerate(request),
  );

  server.script([], {
    fallback: { type: 'response', response: fixture('text-stream'), chunking: 'whole' },
    record: false,
  });
  const streamPass = await measure(
    'SSE (stream)',
    async () => {
      const stream = await client.messages.create({ ...rawBody, stream: true });
      for await (const _chunk of stream) {
        // consume
      }
    },
    async () => {
      for await (const _part of model.doStream(request)) {
        // consume
      }
    },
  );
  console.log(jsonPass && streamPass ? 'PASS' : 'FAIL');
  process.exitCode = jsonPass && streamPass ? 0 : 1;
} finally {
  await server.close();
}
