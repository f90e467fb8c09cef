/**
 * Bridge overhead: an AI SDK language model called directly (`@ai-sdk/openai-compatible`, its
 * own HTTP client) vs the same model through `fromAISDK(model)`, against the same loopback server
 * reply, calls interleaved. The direct calls get exactly the call options the bridge builds, so
 * the difference is the bridge's own work (request mapping, result mapping, stream part mapping).
 * Prints both medians, the difference and PASS/FAIL against the target (< 0.5 ms).
 *
 * Run: pnpm bench (or npx tsx --conditions=@closedloop/source bench/overhead.bench.ts [N]).
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type { GenerateRequest } from '@closedloop/model';
import {
  fixtureReplies,
  formatOverheadResult,
  measureOverhead,
  startLoopbackServer,
} from '@closedloop/model/conformance';
import { fromAISDK } from '../src/ai-sdk-chat-model';
import { toAISDKCallOptions } from '../src/to-ai-sdk-call-options';

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

const server = await startLoopbackServer({ keepAliveTimeoutMs: 10_000 });
try {
  const aiModel = createOpenAICompatible({
    name: 'loopback',
    baseURL: `${server.url}/v1`,
    apiKey: 'sk-bench-000000000000',
    includeUsage: true,
  })('gpt-4.1');
  const model = fromAISDK(aiModel, { name: 'openai-compatible', capabilities: { contextWindow: 128_000 } });
  // Built once: the direct side does no mapping work at all.
  const callOptions: LanguageModelV3CallOptions = toAISDKCallOptions({
    provider: 'openai-compatible',
    request,
    abortSignal: undefined,
    warnings: [],
  });

  console.log(
    `provider-ai-sdk bridge overhead, ${calls} interleaved calls per side after ${warmup} warm-up calls`,
  );
  server.script([], { fallback: { type: 'response', response: fixture('text') }, record: false });
  const json = await measureOverhead({
    label: 'JSON (generate)',
    raw: async () => aiModel.doGenerate(callOptions),
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
      const { stream: parts } = await aiModel.doStream({ ...callOptions, includeRawChunks: true });
      const reader = parts.getReader();
      while (!(await reader.read()).done) {
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
