/**
 * Prompt caching on a scripted 10-step tool loop (9 tool calls, then the answer), through the
 * real adapters and the `openai` SDK against the loopback server: Chat Completions and the
 * Responses API. Prints the input tokens billed at the full rate without a provider cache and
 * with OpenAI's automatic caching, plus cost at gpt-4.1 prices.
 *
 * How the loopback server bills like OpenAI: it answers every request itself (a `compute`
 * reply). It splits the request body into blocks in the order OpenAI reads them — each tool, then
 * every message (Chat Completions) or input item (Responses) — and hands them to
 * `createPromptCacheSimulator({ mode: 'automatic' })`, which applies OpenAI's rules: every prompt
 * of at least 1,024 tokens is cached; a request reads the longest cached prefix, counted in
 * 128-token steps; caches are separate per route — the `prompt_cache_key` the adapter sends
 * (stable per system prompt and tools, so the steps of a loop share one), like OpenAI's routing.
 * Writes are free. Usage is reported as `prompt_tokens_details.cached_tokens` /
 * `input_tokens_details.cached_tokens`, as the API does; tokens are estimated at 4 characters
 * each. "no provider cache" runs the same loop against a simulator that never caches.
 *
 * Run: pnpm bench:caching (or npx tsx --conditions=@closedloop/source bench/prompt-caching.bench.ts).
 */
import { type ChatModel, createUsageTracker, type Usage } from '@closedloop/model';
import {
  createPromptCacheSimulator,
  type PromptBlock,
  type RecordedRequest,
  runToolLoop,
  startLoopbackServer,
} from '@closedloop/model/conformance';
import { splitInputTokens } from '@closedloop/model/provider';
import { createOpenAI } from '../src/openai-provider';

type Json = Record<string, unknown>;

function blocksOf(body: Json, listKey: 'messages' | 'input'): PromptBlock[] {
  return [...((body.tools as unknown[] | undefined) ?? []), ...(body[listKey] as unknown[])].map((item) => ({
    text: JSON.stringify(item),
  }));
}

function chatResponder(cache: boolean) {
  const simulator = createPromptCacheSimulator({
    mode: 'automatic',
    minimumTokens: cache ? 1024 : Number.POSITIVE_INFINITY,
    granularity: 128,
  });
  return (request: RecordedRequest) => {
    const body = request.json as Json;
    const account = simulator.account(blocksOf(body, 'messages'), String(body.prompt_cache_key ?? ''));
    const step = (body.messages as Json[]).filter((message) => message.role === 'tool').length + 1;
    const done = step > 9;
    const message = done
      ? {
          role: 'assistant',
          content: 'Each of the nine modules exports one interface and 24 computed values.',
        }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: `call_bench_${step}`,
              type: 'function',
              function: { name: 'read_file', arguments: JSON.stringify({ path: `src/module-${step}.ts` }) },
            },
          ],
        };
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'x-request-id': `req_bench_${step}` },
      body: JSON.stringify({
        id: `chatcmpl-bench-${step}`,
        object: 'chat.completion',
        created: 1747000000,
        model: 'gpt-4.1-2025-04-14',
        choices: [{ index: 0, message, logprobs: null, finish_reason: done ? 'stop' : 'tool_calls' }],
        usage: {
          prompt_tokens: account.totalTokens,
          completion_tokens: 40,
          total_tokens: account.totalTokens + 40,
          prompt_tokens_details: { cached_tokens: account.cacheReadTokens },
        },
      }),
    };
  };
}

function responsesResponder(cache: boolean) {
  const simulator = createPromptCacheSimulator({
    mode: 'automatic',
    minimumTokens: cache ? 1024 : Number.POSITIVE_INFINITY,
    granularity: 128,
  });
  return (request: RecordedRequest) => {
    const body = request.json as Json;
    const account = simulator.account(blocksOf(body, 'input'), String(body.prompt_cache_key ?? ''));
    const step = (body.input as Json[]).filter((item) => item.type === 'function_call_output').length + 1;
    const done = step > 9;
    const output = done
      ? [
          {
            id: `msg_bench_${step}`,
            type: 'message',
            status: 'completed',
            role: 'assistant',
            content: [
              {
                type: 'output_text',
                text: 'Each of the nine modules exports one interface and 24 computed values.',
                annotations: [],
              },
            ],
          },
        ]
      : [
          {
            id: `fc_bench_${step}`,
            type: 'function_call',
            status: 'completed',
            call_id: `call_bench_${step}`,
            name: 'read_file',
            arguments: JSON.stringify({ path: `src/module-${step}.ts` }),
          },
        ];
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'x-request-id': `req_bench_${step}` },
      body: JSON.stringify({
        id: `resp_bench_${step}`,
        object: 'response',
        created_at: 1747000000,
        status: 'completed',
        model: 'gpt-4.1-2025-04-14',
        output,
        usage: {
          input_tokens: account.totalTokens,
          input_tokens_details: { cached_tokens: account.cacheReadTokens },
          output_tokens: 40,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: account.totalTokens + 40,
        },
      }),
    };
  };
}

const prices = { 'gpt-4.1*': { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 } };

const server = await startLoopbackServer({ keepAliveTimeoutMs: 10_000 });
try {
  const provider = createOpenAI({
    name: 'openai',
    baseURL: `${server.url}/v1`,
    apiKey: 'sk-bench-000000000000',
  });
  const adapters: Array<
    [
      string,
      ChatModel,
      (
        cache: boolean,
      ) => (request: RecordedRequest) => { status: number; headers: Record<string, string>; body: string },
    ]
  > = [
    ['chat completions', provider('gpt-4.1'), chatResponder],
    ['responses', provider.responses('gpt-4.1'), responsesResponder],
  ];
  console.log(
    'provider-openai prompt caching: scripted 10-step tool loop (9 tool calls + answer), gpt-4.1 prices',
  );
  for (const [name, model, responder] of adapters) {
    const figures: Array<{ usage: Usage; cost: number }> = [];
    for (const cache of [false, true]) {
      server.script([], { fallback: { type: 'compute', respond: responder(cache) }, record: false });
      const tracker = createUsageTracker({ prices });
      const outcome = await runToolLoop(tracker.wrap(model));
      if (outcome.calls !== 10) throw new Error(`${name}: expected 10 model calls, got ${outcome.calls}`);
      const summary = tracker.total();
      figures.push({ usage: summary.usage, cost: summary.costUsd });
      const { fullRate, cacheRead } = splitInputTokens(summary.usage);
      console.log(
        `${`${name}, ${cache ? 'automatic caching' : 'no provider cache'}`.padEnd(38)} input ${summary.usage.inputTokens} | full rate ${fullRate} | cache reads ${cacheRead} | cost $${summary.costUsd.toFixed(4)}`,
      );
    }
    const [off, on] = figures as [(typeof figures)[0], (typeof figures)[0]];
    const fullOff = splitInputTokens(off.usage).fullRate;
    const fullOn = splitInputTokens(on.usage).fullRate;
    console.log(
      `${name}: input tokens billed at the full rate ${fullOff} → ${fullOn} (${((100 * fullOn) / fullOff).toFixed(1)}%); cost ${((100 * on.cost) / off.cost).toFixed(1)}%`,
    );
  }
} finally {
  await server.close();
}
