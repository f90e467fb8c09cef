/**
 * Adapter overhead: the raw `openai` SDK vs `createOpenAI(...)(modelId)` (Chat Completions) and
 * `createOpenAI(...).responses(modelId)` (Responses API) against the same
 * loopback server returning the same recorded response, calls interleaved (alternating which
 * goes first) so drift and GC hit both sides alike. Prints both medians, the difference and
 * PASS/FAIL against the target (< 0.5 ms median overhead), for JSON and for SSE streaming.
 *
 * Run: pnpm bench (or npx tsx --conditions=@closedloop/source bench/overhead.bench.ts [N]).
 */
import type { GenerateRequest } from '@closedloop/model';
import {
  fixtureReplies,
  formatOverheadResult,
  measureOverhead,
  startLoopbackServer,
} from '@closedloop/model/conformance';
import { promptCacheKey } from '@closedloop/model/provider';
import OpenAI from 'openai';
import { createOpenAI } from '../src/openai-provider';

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
const rawBody = {
  model: 'gpt-4.1',
  messages: [
    { role: 'system' as const, content: 'You are terse.' },
    { role: 'user' as const, content: 'Say hello.' },
  ],
  max_completion_tokens: 64,
  temperature: 0,
  prompt_cache_key: promptCacheKey({ modelId: 'gpt-4.1', request }),
};
const rawResponsesBody = {
  model: 'gpt-4.1',
  input: [
    { role: 'system' as const, content: 'You are terse.' },
    { role: 'user' as const, content: 'Say hello.' },
  ],
  store: false,
  max_output_tokens: 64,
  temperature: 0,
  prompt_cache_key: promptCacheKey({ modelId: 'gpt-4.1', request }),
};
const { read: responsesFixture } = fixtureReplies(new URL('../src/__fixtures__/responses/', import.meta.url));

const server = await startLoopbackServer({ keepAliveTimeoutMs: 10_000 });
try {
  const baseURL = `${server.url}/v1`;
  const apiKey = 'sk-bench-000000000000';
  const client = new OpenAI({ apiKey, baseURL, maxRetries: 0 });
  const model = createOpenAI({ name: 'openai', apiKey, baseURL })('gpt-4.1');

  // Same bytes on the wire for both sides, or the comparison means nothing.
  server.script([
    { type: 'response', response: fixture('text') },
    { type: 'response', response: fixture('text') },
  ]);
  await client.chat.completions.create(rawBody);
  await model.doGenerate(request);
  if (server.requests[0]?.body !== server.requests[1]?.body) {
    throw new Error(`request bodies differ:\n${server.requests[0]?.body}\n${server.requests[1]?.body}`);
  }

  console.log(
    `provider-openai adapter overhead, ${calls} interleaved calls per side after ${warmup} warm-up calls`,
  );
  server.script([], { fallback: { type: 'response', response: fixture('text') }, record: false });
  const json = await measureOverhead({
    label: 'JSON (generate)',
    raw: () => client.chat.completions.create(rawBody),
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
      const chunks = await client.chat.completions.create({
        ...rawBody,
        stream: true,
        stream_options: { include_usage: true },
      });
      for await (const _chunk of chunks) {
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

  // Responses API: same checks, its own recorded replies.
  const responses = createOpenAI({ name: 'openai', apiKey, baseURL }).responses('gpt-4.1');
  server.script([
    { type: 'response', response: responsesFixture('text') },
    { type: 'response', response: responsesFixture('text') },
  ]);
  await client.responses.create(rawResponsesBody);
  await responses.doGenerate(request);
  if (server.requests[0]?.body !== server.requests[1]?.body) {
    throw new Error(
      `responses request bodies differ:\n${server.requests[0]?.body}\n${server.requests[1]?.body}`,
    );
  }
  server.script([], { fallback: { type: 'response', response: responsesFixture('text') }, record: false });
  const responsesJson = await measureOverhead({
    label: 'Responses JSON',
    raw: () => client.responses.create(rawResponsesBody),
    adapter: () => responses.doGenerate(request),
    calls,
    warmup,
  });
  console.log(formatOverheadResult(responsesJson));
  server.script([], {
    fallback: { type: 'response', response: responsesFixture('text-stream'), chunking: 'whole' },
    record: false,
  });
  const responsesStream = await measureOverhead({
    label: 'Responses SSE',
    raw: async () => {
      for await (const _event of await client.responses.create({ ...rawResponsesBody, stream: true })) {
        // consume
      }
    },
    adapter: async () => {
      for await (const _part of responses.doStream(request)) {
        // consume
      }
    },
    calls,
    warmup,
  });
  console.log(formatOverheadResult(responsesStream));
  const pass = [json, stream, responsesJson, responsesStream].every((result) => result.pass);
  console.log(pass ? 'PASS' : 'FAIL');
  process.exitCode = pass ? 0 : 1;
} finally {
  await server.close();
}
