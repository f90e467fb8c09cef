/**
 * Prompt caching on a scripted 10-step tool loop (9 tool calls, then the answer), through the
 * real adapter and SDK against the loopback server, with caching on (the default) and off
 * (`promptCache: false`). Prints the input tokens billed at the full rate, cache reads and
 * writes, and the cost at Claude Sonnet 4.6 prices.
 *
 * How the loopback server bills like Anthropic: it answers every request itself (a `compute`
 * reply). It splits the request body into blocks in the order Anthropic reads them — each tool,
 * the system prompt, then every content block of every message — and marks the blocks that carry
 * `cache_control`. `createPromptCacheSimulator({ mode: 'breakpoints' })` then applies Anthropic's
 * rules: only prefixes that end at a breakpoint are written (if at least 1,024 tokens); a request
 * reads the longest cached prefix found at one of its breakpoints or up to 20 block boundaries
 * before one; a prefix matches only if every block up to it is identical. The answer's usage is
 * `input_tokens` (after the cached part), `cache_creation_input_tokens` and
 * `cache_read_input_tokens`, as the API reports them; tokens are estimated at 4 characters each.
 * The model's answers are scripted: `read_file` of the next module until 9 files were read.
 *
 * Run: pnpm bench:caching (or npx tsx --conditions=@closedloop/source bench/prompt-caching.bench.ts).
 */
import { createUsageTracker, type Usage } from '@closedloop/model';
import {
  createPromptCacheSimulator,
  type PromptBlock,
  type RecordedRequest,
  runToolLoop,
  startLoopbackServer,
} from '@closedloop/model/conformance';
import { splitInputTokens } from '@closedloop/model/provider';
import { createAnthropic } from '../src/anthropic-provider';

type Json = Record<string, unknown>;

/** The request as Anthropic reads it for caching: tools, system, then message blocks. */
function promptBlocks(body: Json): PromptBlock[] {
  const blocks: PromptBlock[] = [];
  const push = (block: unknown) => {
    const { cache_control: mark, ...rest } = (
      typeof block === 'object' && block !== null ? block : { text: block }
    ) as Json;
    blocks.push({ text: JSON.stringify(rest), breakpoint: mark !== undefined });
  };
  for (const tool of (body.tools as unknown[] | undefined) ?? []) push(tool);
  if (typeof body.system === 'string') push({ type: 'text', text: body.system });
  else for (const block of (body.system as unknown[] | undefined) ?? []) push(block);
  for (const message of body.messages as Array<{ content: unknown }>) {
    if (typeof message.content === 'string') push({ type: 'text', text: message.content });
    else for (const block of message.content as unknown[]) push(block);
  }
  return blocks;
}

function responder() {
  const cache = createPromptCacheSimulator({ mode: 'breakpoints', minimumTokens: 1024, lookbackBlocks: 20 });
  return (request: RecordedRequest) => {
    const body = request.json as Json;
    const account = cache.account(promptBlocks(body));
    const messages = body.messages as Array<{ content: unknown }>;
    const toolResults = messages.flatMap((message) =>
      Array.isArray(message.content)
        ? message.content.filter((block: Json) => block.type === 'tool_result')
        : [],
    ).length;
    const step = toolResults + 1;
    const content =
      toolResults < 9
        ? [
            {
              type: 'tool_use',
              id: `toolu_bench_${step}`,
              name: 'read_file',
              input: { path: `src/module-${step}.ts` },
            },
          ]
        : [{ type: 'text', text: 'Each of the nine modules exports one interface and 24 computed values.' }];
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'request-id': `req_bench_${step}` },
      body: JSON.stringify({
        id: `msg_bench_${step}`,
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-6',
        content,
        stop_reason: toolResults < 9 ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: {
          input_tokens: account.uncachedTokens,
          cache_creation_input_tokens: account.cacheWriteTokens,
          cache_read_input_tokens: account.cacheReadTokens,
          output_tokens: 40,
        },
      }),
    };
  };
}

const prices = {
  'claude-sonnet-4-6': {
    inputPerMTok: 3,
    outputPerMTok: 15,
    cachedInputPerMTok: 0.3,
    cacheWriteInputPerMTok: 3.75,
  },
};

function row(label: string, usage: Usage, cost: number): string {
  const { fullRate, cacheRead, cacheWrite } = splitInputTokens(usage);
  return `${label.padEnd(16)} input ${String(usage.inputTokens).padStart(7)} | full rate ${String(fullRate).padStart(7)} | cache reads ${String(cacheRead).padStart(7)} | cache writes ${String(cacheWrite).padStart(6)} | cost $${cost.toFixed(4)}`;
}

const server = await startLoopbackServer({ keepAliveTimeoutMs: 10_000 });
try {
  const model = createAnthropic({ baseURL: server.url, apiKey: 'sk-ant-bench-0000000000' })(
    'claude-sonnet-4-6',
  );
  const results: Array<{ label: string; usage: Usage; cost: number }> = [];
  for (const [label, request] of [
    ['caching off', { promptCache: false as const }],
    ['caching on', {}],
  ] as const) {
    server.script([], { fallback: { type: 'compute', respond: responder() }, record: false });
    const tracker = createUsageTracker({ prices });
    const outcome = await runToolLoop(tracker.wrap(model), { request });
    const summary = tracker.total();
    if (outcome.calls !== 10) throw new Error(`expected 10 model calls, got ${outcome.calls}`);
    results.push({ label, usage: summary.usage, cost: summary.costUsd });
  }
  console.log(
    'provider-anthropic prompt caching: scripted 10-step tool loop (9 tool calls + answer), claude-sonnet-4-6 prices',
  );
  for (const { label, usage, cost } of results) console.log(row(label, usage, cost));
  const [off, on] = results as [(typeof results)[0], (typeof results)[0]];
  const fullOff = splitInputTokens(off.usage).fullRate;
  const fullOn = splitInputTokens(on.usage).fullRate;
  console.log(
    `input tokens billed at the full rate: ${fullOff} without caching → ${fullOn} with caching (${(
      (100 * fullOn) / fullOff
    ).toFixed(1)}%); cost ${((100 * on.cost) / off.cost).toFixed(1)}% of uncached`,
  );
} finally {
  await server.close();
}
