import { describe, expect, it } from 'vitest';
import type {
  ChatModel,
  FinishReason,
  GenerateRequest,
  GenerateResult,
  StreamPart,
  Usage,
} from './chat-model';
import type { FixtureReplies, StreamReplyOptions } from './fixture-replies';
import type { LoopbackServer } from './loopback-server';
import { ModelError, type ModelErrorCode } from './model-error';
import { collectStream, finishedResult } from './wire-replay';

/** The whole answer a {@link WireQuirkCase} must give. */
export interface WireQuirkAnswer {
  text: string;
  /** The tool calls as `name rawArguments`, in order. */
  toolCalls: readonly string[];
  finishReason: FinishReason;
  /** Usage figures that must match (the rest may be anything). */
  usage?: Partial<Usage>;
  /** The provider's own finish reason, when it must be kept. */
  rawFinishReason?: string;
}

/** The typed error a {@link WireQuirkCase} must give (never a finish part, never a tool-call part). */
export interface WireQuirkError {
  code: ModelErrorCode;
  isRetryable: boolean;
  /** What the message must say. */
  message?: RegExp;
}

/** One recorded server behaviour and what every adapter must make of it. */
export interface WireQuirkCase {
  /** What the server does, as the test title. */
  title: string;
  /** The `.http` fixture, by name, in the target's fixture folder. */
  fixture: string;
  /** `stream` replays the fixture event by event through `doStream`; `generate` whole through `doGenerate`. */
  call: 'stream' | 'generate';
  /** How the stream is replayed (cut, held open, keep-alives, byte chunking). */
  reply?: StreamReplyOptions;
  /** The adapter's stall guard for this case (see the adapters' `streamIdleTimeoutMs`). */
  streamIdleTimeoutMs?: number;
  /** The call must settle within this many ms (streams held open). */
  withinMs?: number;
  expected: { answer: WireQuirkAnswer } | { error: WireQuirkError };
}

/** What an adapter supplies to {@link runWireQuirkSuite}. */
export interface WireQuirkTarget {
  /** Suite title. */
  name: string;
  /** The file's loopback server (`replayFixtures(...).server`). */
  server: LoopbackServer;
  /** The adapter's fixture folder (`replayFixtures(...)` or `fixtureReplies(...)`). */
  fixtures: FixtureReplies;
  /** The adapter under test against the loopback server (`serverUrl` is the bare origin). */
  createModel(options: { serverUrl: string; streamIdleTimeoutMs?: number }): ChatModel;
  cases: readonly WireQuirkCase[];
  /** The request every case sends. Default: one user message and four function tools. */
  request?: GenerateRequest;
}

const defaultRequest: GenerateRequest = {
  messages: [{ role: 'user', content: 'Write the plan.' }],
  tools: ['read_file', 'write_file', 'run_command', 'get_weather'].map((name) => ({
    name,
    description: `The ${name} tool.`,
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
  })),
};

async function outcome(
  model: ChatModel,
  testCase: WireQuirkCase,
  request: GenerateRequest,
): Promise<{ result?: GenerateResult; error?: unknown; parts: StreamPart[] }> {
  if (testCase.call === 'generate') {
    try {
      return { result: await model.doGenerate(request), parts: [] };
    } catch (error) {
      return { error, parts: [] };
    }
  }
  const { parts, error } = await collectStream(model.doStream(request));
  if (error !== undefined) return { error, parts };
  return { result: finishedResult(parts), parts };
}

/**
 * Runs the recorded server behaviours in `cases` (see {@link chatCompletionsWireQuirks}) through
 * an adapter over loopback HTTP, one test each: the whole answer they stand for (text, tool calls
 * as `name rawArguments`, finish reason, usage), or the typed error — and then never a `finish`
 * or `tool-call` part. One table for every adapter of a wire format, instead of a hand-written
 * test per adapter and quirk.
 *
 * @example
 * const { server, ...fixtures } = replayFixtures(new URL('./__fixtures__/quirks/', import.meta.url));
 * runWireQuirkSuite({ name: 'openai', server, fixtures, cases: chatCompletionsWireQuirks,
 *   createModel: ({ serverUrl, streamIdleTimeoutMs }) => createOpenAI({ baseURL: `${serverUrl}/v1`, streamIdleTimeoutMs })('gpt-4.1') });
 */
export function runWireQuirkSuite(target: WireQuirkTarget): void {
  const request = target.request ?? defaultRequest;
  describe(`${target.name}: recorded wire quirks`, () => {
    it.each(target.cases.map((testCase) => [testCase.title, testCase] as const))(
      '%s',
      async (_, testCase) => {
        const { server, fixtures } = target;
        server.script(
          testCase.call === 'generate'
            ? fixtures.json(testCase.fixture)
            : fixtures.sse(testCase.fixture, testCase.reply),
        );
        const model = target.createModel({
          serverUrl: server.url,
          ...(testCase.streamIdleTimeoutMs !== undefined
            ? { streamIdleTimeoutMs: testCase.streamIdleTimeoutMs }
            : {}),
        });
        const started = performance.now();
        const { result, error, parts } = await outcome(model, testCase, request);
        if (testCase.withinMs !== undefined)
          expect(performance.now() - started).toBeLessThan(testCase.withinMs);
        if ('answer' in testCase.expected) {
          const { answer } = testCase.expected;
          expect(error).toBeUndefined();
          expect(result?.text).toBe(answer.text);
          expect(result?.toolCalls.map((call) => `${call.name} ${call.rawArguments}`)).toEqual(
            answer.toolCalls,
          );
          expect(result?.finishReason).toBe(answer.finishReason);
          if (answer.usage) expect(result?.usage).toMatchObject(answer.usage);
          if (answer.rawFinishReason !== undefined)
            expect(result?.rawFinishReason).toBe(answer.rawFinishReason);
          if (testCase.reply?.after === 'hold')
            await expect.poll(() => server.requests.at(-1)?.closedEarlyAt).toBeDefined();
          return;
        }
        const expected = testCase.expected.error;
        expect(ModelError.isInstance(error), `expected a ModelError, got ${String(error)}`).toBe(true);
        const modelError = error as ModelError;
        expect([modelError.code, modelError.isRetryable]).toEqual([expected.code, expected.isRetryable]);
        if (expected.message) expect(modelError.message).toMatch(expected.message);
        expect(parts.some((part) => part.type === 'finish' || part.type === 'tool-call')).toBe(false);
        // A stream the adapter gave up on is closed, not left open on the server.
        if (testCase.reply?.after === 'hold')
          await expect.poll(() => server.requests.at(-1)?.closedEarlyAt).toBeDefined();
      },
    );
  });
}

const keepAlive = { text: ': keep-alive\n\n', everyMs: 25 };

/**
 * Chat Completions traffic that real OpenAI-compatible servers and gateways send and the
 * documentation does not show (the fixtures are in each adapter's `__fixtures__/quirks/`), with
 * what every Chat Completions adapter must make of it.
 */
export const chatCompletionsWireQuirks: readonly WireQuirkCase[] = [
  {
    title: "Azure's content filter inside a tool call: a typed truncation error, nothing to run",
    fixture: 'azure-content-filter-mid-tool-call-stream',
    call: 'stream',
    expected: { error: { code: 'invalid-response', isRetryable: false, message: /"content_filter"/ } },
  },
  {
    title: "a Bedrock gateway's end_turn finish is a stop",
    fixture: 'bedrock-gateway-end-turn-stream',
    call: 'stream',
    expected: {
      answer: { text: 'Hello there.', toolCalls: [], finishReason: 'stop', usage: { totalTokens: 18 } },
    },
  },
  {
    title: "a Bedrock gateway's max_tokens inside a tool call: a typed truncation error",
    fixture: 'bedrock-gateway-max-tokens-mid-tool-call-stream',
    call: 'stream',
    expected: { error: { code: 'invalid-response', isRetryable: false, message: /"max_tokens"/ } },
  },
  {
    title: 'a "length" finish inside a tool call (streamed): a typed truncation error',
    fixture: 'length-mid-tool-call-stream',
    call: 'stream',
    expected: {
      error: {
        code: 'invalid-response',
        isRetryable: false,
        message: /"length"\) inside tool call "write_file"/,
      },
    },
  },
  {
    title: 'a "length" finish inside a tool call (not streamed): a typed truncation error',
    fixture: 'length-mid-tool-call',
    call: 'generate',
    expected: {
      error: {
        code: 'invalid-response',
        isRetryable: false,
        message: /"length"\) inside tool call "write_file"/,
      },
    },
  },
  {
    title: 'a finish reason no mapping knows ("end") inside a tool call (streamed): a typed truncation error',
    fixture: 'unknown-finish-mid-tool-call-stream',
    call: 'stream',
    expected: {
      error: {
        code: 'invalid-response',
        isRetryable: false,
        message: /"end"\) inside tool call "write_file"/,
      },
    },
  },
  {
    title:
      'a finish reason no mapping knows ("end") inside a tool call (not streamed): a typed truncation error',
    fixture: 'unknown-finish-mid-tool-call',
    call: 'generate',
    expected: {
      error: {
        code: 'invalid-response',
        isRetryable: false,
        message: /"end"\) inside tool call "write_file"/,
      },
    },
  },
  {
    title: 'CRLF line endings and UTF-8 characters cut across network reads',
    fixture: 'crlf-multibyte-stream',
    call: 'stream',
    reply: { chunking: 'bytes' },
    expected: {
      answer: {
        text: 'Café ☕ — 日本語の計画 😀',
        toolCalls: ['write_file {"path": "notes/計画.md", "content": "# Plan ☕\\n1. Café — déjà vu 😀\\n"}'],
        finishReason: 'tool-calls',
        usage: { totalTokens: 71 },
      },
    },
  },
  {
    title:
      'DeepSeek\'s "insufficient_system_resource" finish: a retryable overloaded error, not the half answer',
    fixture: 'deepseek-insufficient-system-resource-stream',
    call: 'stream',
    expected: { error: { code: 'overloaded', isRetryable: true } },
  },
  {
    title: 'finish_reason "error" without an error object: a retryable network error',
    fixture: 'finish-reason-error-stream',
    call: 'stream',
    expected: { error: { code: 'network', isRetryable: true } },
  },
  {
    title: 'vLLM\'s "abort" finish: a retryable network error',
    fixture: 'vllm-abort-stream',
    call: 'stream',
    expected: { error: { code: 'network', isRetryable: true } },
  },
  {
    title: "a gateway's keep-alive events with data (`event: ping` + `data: {}`)",
    fixture: 'gateway-ping-data-stream',
    call: 'stream',
    expected: {
      answer: {
        text: 'Step one: read the file.',
        toolCalls: [],
        finishReason: 'stop',
        usage: { totalTokens: 18 },
      },
    },
  },
  {
    title: 'SSE `data:` lines without the optional space (LongCat), `function_call: null` on every delta',
    fixture: 'longcat-data-without-space-stream',
    call: 'stream',
    expected: {
      answer: {
        text: 'The plan has three steps.',
        toolCalls: [],
        finishReason: 'stop',
        usage: { totalTokens: 21 },
      },
    },
  },
  {
    title: "a chunk in a completion's shape (message, not delta)",
    fixture: 'gateway-whole-message-chunk-stream',
    call: 'stream',
    expected: {
      answer: {
        text: 'Reading the README first.',
        toolCalls: ['read_file {"path":"README.md"}'],
        finishReason: 'tool-calls',
        usage: { totalTokens: 112 },
      },
    },
  },
  {
    title: "Groq's usage in x_groq",
    fixture: 'groq-x-groq-usage-stream',
    call: 'stream',
    expected: {
      answer: { text: 'Three steps.', toolCalls: [], finishReason: 'stop', usage: { totalTokens: 48 } },
    },
  },
  {
    title: "Groq's tool_use_failed 400 (the model's call was unreadable): a retryable invalid-response",
    fixture: 'groq-tool-use-failed',
    call: 'generate',
    expected: { error: { code: 'invalid-response', isRetryable: true, message: /tool_use_failed/ } },
  },
  {
    title: "llama.cpp's tool-call arguments as a JSON object, not a string",
    fixture: 'llama-cpp-object-arguments-stream',
    call: 'stream',
    expected: {
      answer: {
        text: '',
        toolCalls: ['get_weather {"city":"Paris"}'],
        finishReason: 'tool-calls',
        usage: { totalTokens: 138 },
      },
    },
  },
  {
    title: "llama.cpp's tool-call arguments as a JSON object (not streamed)",
    fixture: 'llama-cpp-object-arguments',
    call: 'generate',
    expected: {
      answer: {
        text: '',
        toolCalls: ['get_weather {"city":"Paris"}'],
        finishReason: 'tool-calls',
        usage: { totalTokens: 138 },
      },
    },
  },
  {
    title: 'the deprecated function_call (older Azure API versions, not streamed) is a tool call',
    fixture: 'legacy-function-call',
    call: 'generate',
    expected: {
      answer: {
        text: '',
        toolCalls: ['get_weather {\n  "city": "Paris"\n}'],
        finishReason: 'tool-calls',
        rawFinishReason: 'function_call',
        usage: { totalTokens: 99 },
      },
    },
  },
  {
    title:
      'the deprecated function_call streamed (older Azure API versions: role delta, name, argument fragments) is a tool call',
    fixture: 'azure-legacy-function-call-stream',
    call: 'stream',
    expected: {
      answer: {
        text: '',
        toolCalls: ['get_weather {\n  "city": "Paris"\n}'],
        finishReason: 'tool-calls',
        rawFinishReason: 'function_call',
      },
    },
  },
  {
    title: 'a "length" finish inside a streamed deprecated function_call: a typed truncation error',
    fixture: 'azure-legacy-function-call-length-stream',
    call: 'stream',
    expected: {
      error: {
        code: 'invalid-response',
        isRetryable: false,
        message: /"length"\) inside tool call "get_weather"/,
      },
    },
  },
  {
    title: 'LocalAI streaming one call again at a second index with the same id: one call',
    fixture: 'localai-same-call-at-two-indexes-stream',
    call: 'stream',
    expected: {
      answer: {
        text: '',
        toolCalls: ['exec {"cmd":"uname -a"}'],
        finishReason: 'tool-calls',
        usage: { totalTokens: 181 },
      },
    },
  },
  {
    title: 'LiteLLM restating the whole arguments (JSON-encoded) after they were complete: one copy',
    fixture: 'litellm-restated-arguments-stream',
    call: 'stream',
    expected: {
      answer: {
        text: '',
        toolCalls: ['search_docs {"query": "retry policy"}'],
        finishReason: 'tool-calls',
        usage: { totalTokens: 114 },
      },
    },
  },
  {
    title: "vLLM's GLM end-of-stream flush: the whole arguments again after a partial stream replace it",
    fixture: 'vllm-glm-final-flush-whole-arguments-stream',
    call: 'stream',
    expected: {
      answer: {
        text: '',
        toolCalls: [
          'record_expense {"date": "2025-03-26", "amount": 300, "fee_type": "过路费", "income_type": "支出"}',
        ],
        finishReason: 'tool-calls',
        usage: { totalTokens: 251 },
      },
    },
  },
  {
    title: "vLLM's xLAM flush: `{` streamed, then the whole arguments from their start",
    fixture: 'vllm-xlam-flush-restarts-arguments-stream',
    call: 'stream',
    expected: {
      answer: {
        text: '',
        toolCalls: ['get_current_weather {"city": "Orlando", "state": "FL", "unit": "celsius"}'],
        finishReason: 'tool-calls',
      },
    },
  },
  {
    title: 'MiniMax\'s role "" on every chunk',
    fixture: 'minimax-empty-role-stream',
    call: 'stream',
    expected: {
      answer: {
        text: 'Running the tests.',
        toolCalls: ['run_command {"cmd": "pnpm test"}'],
        finishReason: 'tool-calls',
        usage: { totalTokens: 274 },
      },
    },
  },
  {
    title: 'two choices interleaved (n > 1): the answer is the first choice alone',
    fixture: 'n2-interleaved-choices-stream',
    call: 'stream',
    expected: {
      answer: {
        text: 'Plan A: fix the test.',
        toolCalls: [],
        finishReason: 'stop',
        usage: { totalTokens: 21 },
      },
    },
  },
  {
    title: 'a second answer a proxy appended after [DONE]: not read (no late text, no late tool call)',
    fixture: 'proxy-appended-after-done-stream',
    call: 'stream',
    expected: {
      answer: {
        text: 'The file has 3 lines.',
        toolCalls: [],
        finishReason: 'stop',
        usage: { totalTokens: 27 },
      },
    },
  },
  {
    title: "Open WebUI's finish_reason stop on a reasoning chunk, then the content: the whole answer",
    fixture: 'open-webui-finish-on-reasoning-stream',
    call: 'stream',
    expected: {
      answer: { text: 'There are 4 files.', toolCalls: [], finishReason: 'stop', usage: { totalTokens: 24 } },
    },
  },
  {
    title: "OpenRouter's `: OPENROUTER PROCESSING` comments, data-less `event: ping`, a BOM first",
    fixture: 'openrouter-processing-and-ping-stream',
    call: 'stream',
    expected: {
      answer: { text: 'Plan ready.', toolCalls: [], finishReason: 'stop', usage: { totalTokens: 13 } },
    },
  },
  {
    title: 'usage in a trailing chunk with choices: null',
    fixture: 'usage-chunk-choices-null-stream',
    call: 'stream',
    expected: { answer: { text: 'Done.', toolCalls: [], finishReason: 'stop', usage: { totalTokens: 34 } } },
  },
  {
    title: 'a streamed refusal',
    fixture: 'refusal-stream',
    call: 'stream',
    expected: {
      answer: {
        text: "I'm sorry, I can't help with that.",
        toolCalls: [],
        finishReason: 'refusal',
        usage: { totalTokens: 24 },
      },
    },
  },
  {
    title: '[DONE] without a finish_reason, with usage (vLLM-MLX): the answer',
    fixture: 'vllm-mlx-done-without-finish-reason-stream',
    call: 'stream',
    expected: {
      answer: {
        text: 'The plan has three steps.',
        toolCalls: [],
        finishReason: 'stop',
        usage: { totalTokens: 28 },
      },
    },
  },
  {
    title: 'a complete tool call and [DONE] without a finish_reason (a proxy): the call',
    fixture: 'proxy-tool-call-done-without-finish-reason-stream',
    call: 'stream',
    expected: {
      answer: {
        text: '',
        toolCalls: ['read_file {"path":"README.md"}'],
        finishReason: 'tool-calls',
        usage: { totalTokens: 100 },
      },
    },
  },
  {
    title: 'partial tool-call arguments and [DONE] without a finish_reason: a retryable invalid-response',
    fixture: 'proxy-cut-tool-call-done-without-finish-reason-stream',
    call: 'stream',
    expected: { error: { code: 'invalid-response', isRetryable: true } },
  },
  {
    title:
      'Ollama\'s done_reason "load" as the finish_reason, nothing else (the model was only loaded): a retryable invalid-response, not an empty answer',
    fixture: 'ollama-done-reason-load-stream',
    call: 'stream',
    expected: { error: { code: 'invalid-response', isRetryable: true, message: /"load"/ } },
  },
  {
    title: 'Ollama\'s done_reason "load", not streamed: a retryable invalid-response',
    fixture: 'ollama-done-reason-load',
    call: 'generate',
    expected: { error: { code: 'invalid-response', isRetryable: true, message: /"load"/ } },
  },
  {
    title: 'tool-call arguments encoded twice (a JSON string holding the JSON): the arguments it holds',
    fixture: 'double-encoded-arguments',
    call: 'generate',
    expected: {
      answer: {
        text: '',
        toolCalls: ['read_file {"path": "README.md"}'],
        finishReason: 'tool-calls',
        usage: { totalTokens: 92 },
      },
    },
  },
  {
    title: 'tool-call arguments "null" (a call without arguments): the call',
    fixture: 'null-string-arguments',
    call: 'generate',
    expected: {
      answer: {
        text: '',
        toolCalls: ['read_file null'],
        finishReason: 'tool-calls',
        usage: { totalTokens: 89 },
      },
    },
  },
  {
    title: 'finish_reason "tool_calls" with text and no tool call, streamed: an invalid-response',
    fixture: 'vllm-tool-calls-finish-without-calls-stream',
    call: 'stream',
    expected: {
      error: { code: 'invalid-response', isRetryable: false, message: /"tool_calls" but no tool call/ },
    },
  },
  {
    title: "vLLM's continuous usage stats (usage in every chunk): the last figures, not their sum",
    fixture: 'vllm-continuous-usage-stream',
    call: 'stream',
    expected: {
      answer: {
        text: 'Done.',
        toolCalls: [],
        finishReason: 'stop',
        usage: { inputTokens: 120, outputTokens: 3, totalTokens: 123 },
      },
    },
  },
  {
    title: "Azure's content filter after part of the text: the part, finished content-filter",
    fixture: 'azure-content-filter-text-stream',
    call: 'stream',
    expected: {
      answer: {
        text: 'To pick the lock, first',
        toolCalls: [],
        finishReason: 'content-filter',
        rawFinishReason: 'content_filter',
        usage: { totalTokens: 37 },
      },
    },
  },
  {
    title: 'finish_reason "tool_calls" with no tool call (vLLM without a tool parser): an invalid-response',
    fixture: 'vllm-tool-calls-finish-without-calls',
    call: 'generate',
    expected: {
      error: { code: 'invalid-response', isRetryable: false, message: /"tool_calls" but no tool call/ },
    },
  },
  {
    title:
      'a Hermes <tool_call> of an offered tool streamed as content, finish_reason "stop" (vLLM without a tool parser): an invalid-response, not an answer',
    fixture: 'vllm-hermes-markup-stop-stream',
    call: 'stream',
    expected: {
      error: { code: 'invalid-response', isRetryable: false, message: /"read_file" as <tool_call> markup/ },
    },
  },
  {
    title:
      'a Mistral [TOOL_CALLS] of an offered tool as content, finish_reason "stop": an invalid-response, not an answer',
    fixture: 'mistral-tool-calls-markup-stop',
    call: 'generate',
    expected: {
      error: {
        code: 'invalid-response',
        isRetryable: false,
        message: /"get_weather" as \[TOOL_CALLS\] markup/,
      },
    },
  },
  {
    title:
      'a 429 insufficient_quota (the quota is used up): rate-limited, not retryable, with its request id',
    fixture: 'insufficient-quota-429',
    call: 'generate',
    expected: {
      error: { code: 'rate-limited', isRetryable: false, message: /req_5c1f0e9a2b7d4c3e8f6a1b2c3d4e5f60/ },
    },
  },
  {
    title: 'a 429 without retry-after: rate-limited, retryable',
    fixture: 'rate-limited-reset-headers',
    call: 'generate',
    expected: { error: { code: 'rate-limited', isRetryable: true } },
  },
  {
    title:
      '`event: error` with `{ "code": 400, "details": … }` (vLLM/TGIS behind an orchestrator): a non-retryable bad-request',
    fixture: 'event-error-code-details-stream',
    call: 'stream',
    expected: { error: { code: 'bad-request', isRetryable: false, message: /logprobs of 21/ } },
  },
  {
    title: "llama.cpp's context overflow streamed after a 200 (exceed_context_size_error): context-length",
    fixture: 'llama-cpp-context-size-200-stream',
    call: 'stream',
    expected: { error: { code: 'context-length', isRetryable: false, message: /available context size/ } },
  },
  {
    title:
      "llama.cpp's error in a non-standard `error:` SSE field, then [DONE] (builds through 2025): context-length, not an empty answer",
    fixture: 'llama-cpp-error-field-only-stream',
    call: 'stream',
    expected: { error: { code: 'context-length', isRetryable: false, message: /available context size/ } },
  },
  {
    title:
      "llama.cpp's server error in an `error:` field after part of the answer: a retryable error, not the part",
    fixture: 'llama-cpp-error-field-mid-stream',
    call: 'stream',
    expected: { error: { code: 'network', isRetryable: true, message: /slot unavailable/ } },
  },
  {
    title:
      'an error as a bare string in a data line mid-stream (`{"error":"…"}`): a retryable error, not the part',
    fixture: 'proxy-error-string-mid-stream',
    call: 'stream',
    expected: { error: { code: 'network', isRetryable: true, message: /upstream timed out after 60s/ } },
  },
  {
    title:
      "a backend's JSON error forwarded without `data:` framing mid-stream (Lemonade): context-length, not a retryable cut stream",
    fixture: 'lemonade-unframed-error-stream',
    call: 'stream',
    expected: { error: { code: 'context-length', isRetryable: false, message: /available context size/ } },
  },
  {
    title: "llama.cpp's context overflow as a 400 (exceed_context_size_error): context-length",
    fixture: 'llama-cpp-context-size-400',
    call: 'generate',
    expected: { error: { code: 'context-length', isRetryable: false, message: /available context size/ } },
  },
  {
    title: "a 200 whose body is an error string (a proxy's unloaded model): a retryable error",
    fixture: 'error-string-200',
    call: 'generate',
    expected: { error: { code: 'network', isRetryable: true, message: /Model unloaded/ } },
  },
  {
    title:
      "a web UI's HTML page with a 200 (baseURL without /api, an SPA answering every path), streamed: a non-retryable invalid-response",
    fixture: 'open-webui-spa-page-200',
    call: 'stream',
    expected: { error: { code: 'invalid-response', isRetryable: false, message: /HTML page/ } },
  },
  {
    title: "a web UI's HTML page with a 200, not streamed: a non-retryable invalid-response",
    fixture: 'open-webui-spa-page-200',
    call: 'generate',
    expected: { error: { code: 'invalid-response', isRetryable: false } },
  },
  {
    title: "LM Studio's 200 for a path it does not serve: a non-retryable bad-request",
    fixture: 'lmstudio-unexpected-endpoint-200',
    call: 'generate',
    expected: { error: { code: 'bad-request', isRetryable: false, message: /Unexpected endpoint/ } },
  },
  {
    title:
      'held open after the finish_reason and usage, keep-alives: the complete answer within the 1 s tail',
    fixture: 'proxy-keep-alive-never-closes-stream',
    call: 'stream',
    reply: { after: 'hold', keepAlive },
    withinMs: 5_000,
    expected: {
      answer: {
        text: 'The plan has three steps.',
        toolCalls: [],
        finishReason: 'stop',
        usage: { outputTokens: 7 },
      },
    },
  },
  {
    title: 'headers, then nothing: a retryable stall error after streamIdleTimeoutMs',
    fixture: 'proxy-keep-alive-never-closes-stream',
    call: 'stream',
    reply: { limitEvents: 0, after: 'hold' },
    streamIdleTimeoutMs: 300,
    withinMs: 5_000,
    expected: { error: { code: 'network', isRetryable: true, message: /stalled \(no event for 300 ms/ } },
  },
  {
    title: 'part of the answer, then keep-alive comments forever: a retryable stall error, not the part',
    fixture: 'proxy-keep-alive-never-closes-stream',
    call: 'stream',
    reply: { limitEvents: 2, after: 'hold', keepAlive },
    streamIdleTimeoutMs: 300,
    withinMs: 5_000,
    expected: { error: { code: 'network', isRetryable: true, message: /stalled \(no event for 300 ms/ } },
  },
  {
    title: 'a "length" finish inside a tool call, then the connection held: the truncation error, promptly',
    fixture: 'length-mid-tool-call-stream',
    call: 'stream',
    reply: { limitEvents: 6, after: 'hold', keepAlive },
    withinMs: 5_000,
    expected: {
      error: { code: 'invalid-response', isRetryable: false, message: /"length"\) inside tool call/ },
    },
  },
];
