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
  fixtureReplies,
  formatOverheadResult,
  measureOverhead,
  startLoopbackServer,
} from '@closedloop/model/conformance';
import { createAnthropic } from '../src/anthropic-provider';

const calls = Math.max(500, Number(process.argv[2] ?? 1000));
const warmup = 200;

const { read: fixture } = fixtureReplies(new URL('../src/__fixtures__/', import.meta.url));

const request: GenerateRequest = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Say hello.' },
  ],
  temperature: 0,
  maxOutputTokens: 64,
};
// The body our adapter sends for `request` (checked below), written by hand for the raw SDK.
const cacheControl = { type: 'ephemeral' as const };
const rawBody = {
  model: 'claude-sonnet-4-6',
  max_tokens: 64,
  messages: [
    {
      role: 'user' as const,
      content: [{ type: 'text' as const, text: 'Say hello.', cache_control: cacheControl }],
    },
  ],
  system: [{ type: 'text' as const, text: 'You are terse.', cache_control: cacheControl }],
  temperature: 0,
};

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
  const json = await measureOverhead({
    label: 'JSON (generate)',
    raw: () => client.messages.create(rawBody),
    adapter: () => model.doGenerate(request),
    calls,
    warmup,
  });
  console.log(formatOverheadResult(json));

  server.script([], {
    fallback: { type: 'response', response: fixture('text-stream'), chunking: 'whole' },
    record: false,
  });
  const stream = await measureOverhead({
    label: 'SSE (stream)',
    raw: async () => {
      const events = await client.messages.create({ ...rawBody, stream: true });
      for await (const _event of events) {
        // consume
      }
    },
    adapter: async () => {
      for await (const _part of model.doStream(request)) {
        // consume
      }
    },
    calls,
    warmup,
  });
  console.log(formatOverheadResult(stream));
  console.log(json.pass && stream.pass ? 'PASS' : 'FAIL');
  process.exitCode = json.pass && stream.pass ? 0 : 1;
} finally {
  await server.close();
}
