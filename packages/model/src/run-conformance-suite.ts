/**
 * The one conformance suite every closedloop provider adapter must pass.
 *
 * Each scenario is a provider-neutral `GenerateRequest` plus provider-neutral expectations on
 * what the adapter returns; the adapter under test only supplies how its provider answers on the
 * wire (recorded `.http` fixtures, replayed by the loopback server). The adapter runs with the
 * real vendor SDK over real HTTP. For every scenario the suite
 *
 * - asserts the neutral expectations,
 * - asserts the server saw exactly one HTTP attempt (no hidden SDK retries),
 * - snapshots the request the SDK sent (normalised) and the result the adapter parsed,
 * - asserts the API key appears in no error message, serialisation or `util.inspect` output,
 * - for aborts, asserts the call rejected and the server saw the connection closed within 100 ms.
 *
 * Published as `@closedloop/model/conformance` (needs `vitest`, an optional peer dependency).
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { ChatModel, GenerateRequest, GenerateResult, StreamPart } from './chat-model';
import { ConformanceError } from './conformance-error';
import type { FixtureReplies } from './fixture-replies';
import type { LoopbackReply, RecordedRequest } from './loopback-server';
import { ModelError } from './model-error';
import { streamToResult } from './stream-to-result';
import { useLoopbackServer } from './wire-replay';
import { withRetry } from './with-retry';

/**
 * The API key every conformance model is created with. Fixtures that echo keys (the 401 body,
 * an echoed header) contain it, so the suite can prove it never leaks into errors. It does not
 * look like an `sk-` key on purpose: redaction must not rely on key-shaped patterns only.
 */
export const CANARY_API_KEY = 'canary-key-Zq81Xw5Lm3Vb7Nt2';

/** Every scenario name; a target must supply replies for all of them. */
export const conformanceScenarioNames = [
  'text',
  'text-stream',
  'conversation',
  'tool-call',
  'parallel-tool-calls',
  'tool-call-no-arguments',
  'tool-arguments-split',
  'structured-output',
  'structured-output-stream',
  'unknown-finish-reason',
  'rate-limited',
  'server-error-500',
  'bad-gateway-502',
  'unavailable-503',
  'overloaded-529',
  'auth-canary',
  'context-length',
  'bad-request',
  'malformed-json',
  'stream-error-event',
  'stream-cut',
  'connection-reset',
  'connection-reset-mid-stream',
  'timeout',
  'abort-mid-stream',
  'abort-generate',
  'stream-metadata',
  'stream-error-bad-request',
  'stream-error-context-length',
  'reasoning-and-text',
  'reasoning-and-text-stream',
  'reasoning-tool-loop',
  'content-parts',
] as const;

/** A scenario name. */
export type ConformanceScenarioName = (typeof conformanceScenarioNames)[number];

/** What an adapter supplies to run the suite. */
export interface ConformanceTarget {
  /** Suite title (`openai`, `anthropic`). */
  name: string;
  /** Provider id the models report (`ChatModel.provider`, `ModelError.provider`). */
  provider: string;
  /**
   * Builds the adapter under test against the loopback server. `serverUrl` is the bare origin;
   * the target appends whatever base path its SDK expects.
   */
  createModel(options: { serverUrl: string; apiKey: string; timeoutMs: number }): ChatModel;
  /** The replies, in the provider's wire format, for each scenario. */
  replies: Record<ConformanceScenarioName, LoopbackReply[]>;
  /** Request headers kept in the snapshots (lower case); the API key is replaced by `<api-key>`. */
  snapshotHeaders: readonly string[];
  /** The reply pair for the retry test: a 429 with a short Retry-After, then a 200 text answer. */
  retryReplies: LoopbackReply[];
  /**
   * Whether the provider returns reasoning (`reasoning-and-text*` and `reasoning-tool-loop` then
   * require it, and require it sent back on the tool loop's next request). Default `true`; `false`
   * for APIs that never return reasoning text (OpenAI Chat Completions), whose fixtures for those
   * scenarios are then plain answers.
   */
  reasoning?: boolean;
}

interface Outcome {
  /** The requests the server received, in order (two for follow-up scenarios). */
  requests: RecordedRequest[];
  /** The first call's result, for follow-up scenarios. */
  first?: GenerateResult;
  result?: GenerateResult;
  parts: StreamPart[];
  error?: unknown;
  /** `performance.now()` at `abort()`, for abort scenarios. */
  abortedAt?: number;
  /** Milliseconds from `abort()` to the rejection, for abort scenarios. */
  abortLatencyMs?: number;
}

/**
 * How soon an aborted call must reject, and the server see its connection closed: far below the
 * model's 5 s timeout (the reply never comes, so only the abort can end the call), with room for
 * a loaded machine's late timers.
 */
const abortLatencyLimitMs = 1_000;

interface Scenario {
  name: ConformanceScenarioName;
  mode: 'generate' | 'stream';
  request: GenerateRequest;
  timeoutMs?: number;
  /** Abort on the first text delta (stream) or this many ms after the server has the request (generate). */
  abort?: 'first-delta' | number;
  /** The request must not outlive the call: the server sees its connection closed early. */
  closesConnection?: boolean;
  /** A second call built from the first call's result (a tool loop's next step). */
  followUp?: (first: GenerateResult) => GenerateRequest;
  check(outcome: Outcome, target: ConformanceTarget): void;
}

const weatherTool = {
  name: 'get_weather',
  description: 'Current weather for a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' } },
    required: ['city'],
    additionalProperties: false,
  },
};
const timeTool = {
  name: 'get_time',
  description: 'Current local time in an IANA time zone.',
  inputSchema: {
    type: 'object',
    properties: { timezone: { type: 'string' } },
    required: ['timezone'],
    additionalProperties: false,
  },
};
const listFilesTool = {
  name: 'list_files',
  description: 'List the files in the workspace root.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
};
const writeFileTool = {
  name: 'write_file',
  description: 'Write a text file.',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, content: { type: 'string' } },
    required: ['path', 'content'],
    additionalProperties: false,
  },
};
const recipeSchema = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    servings: { type: 'integer' },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['title', 'servings', 'tags'],
  additionalProperties: false,
};
const recipe = { title: 'Pancakes', servings: 4, tags: ['breakfast', 'sweet'] };
const helloText = 'Hello from the loopback server.';
const helloUsage = { inputTokens: 12, outputTokens: 7, totalTokens: 19 };
const simpleRequest: GenerateRequest = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Say hello.' },
  ],
  temperature: 0,
  maxOutputTokens: 64,
};

const answerText = 'The answer is 4.';
const reasoningSnippet = '2 + 2';
const reasoningRequest: GenerateRequest = {
  messages: [{ role: 'user', content: 'What is 2 + 2? Think first.' }],
  maxOutputTokens: 2048,
};
/** A 1×1 red PNG and a minimal PDF, base64. */
const pngBase64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const pdfBase64 =
  'JVBERi0xLjQKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyA+PgplbmRvYmoKdHJhaWxlcgo8PCAvUm9vdCAxIDAgUiA+PgolJUVPRgo=';

function reasoningTextOf(result: GenerateResult): string {
  return (result.reasoning ?? []).map((part) => part.text).join('');
}

function textOf(parts: StreamPart[]): string {
  return parts.map((part) => (part.type === 'text-delta' ? part.delta : '')).join('');
}

function expectModelError(
  outcome: Outcome,
  expected: {
    code: ModelError['code'] | readonly ModelError['code'][];
    status?: number;
    isRetryable: boolean;
  },
): ModelError {
  expect(outcome.result, 'the call should have failed').toBeUndefined();
  const error = outcome.error;
  expect(ModelError.isInstance(error), `expected a ModelError, got ${String(error)}`).toBe(true);
  const modelError = error as ModelError;
  const codes = Array.isArray(expected.code) ? expected.code : [expected.code];
  expect(codes).toContain(modelError.code);
  expect(modelError.isRetryable).toBe(expected.isRetryable);
  if (expected.status !== undefined) expect(modelError.status).toBe(expected.status);
  expect(modelError.message.length).toBeGreaterThan(10);
  return modelError;
}

function expectOk(outcome: Outcome): GenerateResult {
  if (outcome.error !== undefined) throw outcome.error;
  expect(outcome.result).toBeDefined();
  return outcome.result as GenerateResult;
}

function expectStreamInvariants(outcome: Outcome): void {
  const finishes = outcome.parts.filter((part) => part.type === 'finish');
  expect(finishes).toHaveLength(1);
  expect(outcome.parts.at(-1)?.type).toBe('finish');
  const result = (finishes[0] as { result: GenerateResult }).result;
  expect(textOf(outcome.parts)).toBe(result.text);
  const calls = outcome.parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCall] : []));
  expect(calls).toEqual(result.toolCalls);
  for (const call of result.toolCalls) {
    const deltas = outcome.parts.filter(
      (part) => part.type === 'tool-call-delta' && part.index === result.toolCalls.indexOf(call),
    );
    expect(deltas.map((part) => (part.type === 'tool-call-delta' ? part.argumentsDelta : '')).join('')).toBe(
      call.rawArguments,
    );
  }
}

function expectToolCalls(
  result: GenerateResult,
  expected: Array<{ name: string; arguments: Record<string, unknown> }>,
): void {
  expect(result.toolCalls.map(({ name, arguments: args }) => ({ name, arguments: args }))).toEqual(expected);
  for (const call of result.toolCalls) {
    expect(call.id).toMatch(/\S/);
    expect(JSON.parse(call.rawArguments === '' ? '{}' : call.rawArguments)).toEqual(call.arguments);
  }
  expect(new Set(result.toolCalls.map((call) => call.id)).size).toBe(result.toolCalls.length);
  expect(result.finishReason).toBe('tool-calls');
}

const scenarios: Scenario[] = [
  {
    name: 'text',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      const result = expectOk(outcome);
      expect(result.text).toBe(helloText);
      expect(result.finishReason).toBe('stop');
      expect(result.toolCalls).toEqual([]);
      expect(result.usage).toMatchObject(helloUsage);
      expect(result.response?.requestId).toBe('req_text');
    },
  },
  {
    name: 'text-stream',
    mode: 'stream',
    request: simpleRequest,
    check(outcome) {
      const result = expectOk(outcome);
      expectStreamInvariants(outcome);
      expect(result.text).toBe(helloText);
      expect(outcome.parts.filter((part) => part.type === 'text-delta').length).toBeGreaterThanOrEqual(3);
      expect(result.finishReason).toBe('stop');
      expect(result.usage).toMatchObject(helloUsage);
      expect(result.response?.requestId).toBe('req_text_stream');
    },
  },
  {
    name: 'conversation',
    mode: 'generate',
    request: {
      messages: [
        { role: 'system', content: 'You are a travel assistant.' },
        { role: 'user', content: 'Weather and time in Paris?' },
        {
          role: 'assistant',
          content: 'Checking both.',
          toolCalls: [
            {
              id: 'call_w1',
              name: 'get_weather',
              arguments: { city: 'Paris' },
              rawArguments: '{"city":"Paris"}',
            },
            {
              id: 'call_t1',
              name: 'get_time',
              arguments: { timezone: 'Europe/Paris' },
              rawArguments: '{"timezone":"Europe/Paris"}',
            },
          ],
        },
        {
          role: 'tool',
          toolCallId: 'call_w1',
          toolName: 'get_weather',
          content: '{"tempC":18,"sky":"clear"}',
        },
        {
          role: 'tool',
          toolCallId: 'call_t1',
          toolName: 'get_time',
          content: 'time service unavailable',
          isError: true,
        },
        { role: 'user', content: 'Just the weather then.' },
      ],
      tools: [weatherTool, timeTool],
      toolChoice: 'auto',
    },
    check(outcome) {
      const result = expectOk(outcome);
      expect(result.text).toBe('It is 18 °C and clear in Paris.');
      expect(result.finishReason).toBe('stop');
    },
  },
  {
    name: 'tool-call',
    mode: 'generate',
    request: {
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool],
      toolChoice: { type: 'tool', name: 'get_weather' },
    },
    check(outcome) {
      const result = expectOk(outcome);
      expectToolCalls(result, [{ name: 'get_weather', arguments: { city: 'Paris' } }]);
    },
  },
  {
    name: 'parallel-tool-calls',
    mode: 'stream',
    request: {
      messages: [{ role: 'user', content: 'Weather and time in Paris?' }],
      tools: [weatherTool, timeTool],
      toolChoice: 'required',
      parallelToolCalls: true,
    },
    check(outcome) {
      const result = expectOk(outcome);
      expectStreamInvariants(outcome);
      expectToolCalls(result, [
        { name: 'get_weather', arguments: { city: 'Paris' } },
        { name: 'get_time', arguments: { timezone: 'Europe/Paris' } },
      ]);
      expect(outcome.parts.filter((part) => part.type === 'tool-call')).toHaveLength(2);
    },
  },
  {
    name: 'tool-call-no-arguments',
    mode: 'stream',
    request: { messages: [{ role: 'user', content: 'What files are there?' }], tools: [listFilesTool] },
    check(outcome) {
      const result = expectOk(outcome);
      expectStreamInvariants(outcome);
      expectToolCalls(result, [{ name: 'list_files', arguments: {} }]);
    },
  },
  {
    name: 'tool-arguments-split',
    mode: 'stream',
    request: { messages: [{ role: 'user', content: 'Write the notes file.' }], tools: [writeFileTool] },
    check(outcome) {
      const result = expectOk(outcome);
      expectStreamInvariants(outcome);
      expectToolCalls(result, [
        {
          name: 'write_file',
          arguments: { path: 'notes/übersicht.md', content: 'line 1\nline 2 with "quotes" and {braces}' },
        },
      ]);
      expect(outcome.parts.filter((part) => part.type === 'tool-call-delta').length).toBeGreaterThanOrEqual(
        10,
      );
    },
  },
  {
    name: 'structured-output',
    mode: 'generate',
    request: {
      messages: [{ role: 'user', content: 'A pancake recipe as JSON.' }],
      responseFormat: { type: 'json', name: 'recipe', description: 'A recipe.', schema: recipeSchema },
    },
    check(outcome) {
      const result = expectOk(outcome);
      expect(JSON.parse(result.text)).toEqual(recipe);
      expect(result.toolCalls).toEqual([]);
      expect(result.finishReason).toBe('stop');
    },
  },
  {
    name: 'structured-output-stream',
    mode: 'stream',
    request: {
      messages: [{ role: 'user', content: 'A pancake recipe as JSON.' }],
      responseFormat: { type: 'json', name: 'recipe', description: 'A recipe.', schema: recipeSchema },
    },
    check(outcome) {
      const result = expectOk(outcome);
      expectStreamInvariants(outcome);
      expect(JSON.parse(result.text)).toEqual(recipe);
      expect(result.toolCalls).toEqual([]);
      expect(result.finishReason).toBe('stop');
    },
  },
  {
    name: 'unknown-finish-reason',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      const result = expectOk(outcome);
      expect(result.text).toBe('Partial answer.');
      expect(result.finishReason).toBe('unknown');
      expect(result.rawFinishReason).toBe('brand_new_reason');
    },
  },
  {
    name: 'rate-limited',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      const error = expectModelError(outcome, { code: 'rate-limited', status: 429, isRetryable: true });
      expect(error.retryAfterMs).toBeGreaterThan(0);
      expect(error.requestId).toBe('req_rate_limited');
    },
  },
  {
    name: 'server-error-500',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'network', status: 500, isRetryable: true });
    },
  },
  {
    name: 'bad-gateway-502',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'network', status: 502, isRetryable: true });
    },
  },
  {
    name: 'unavailable-503',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'overloaded', status: 503, isRetryable: true });
    },
  },
  {
    name: 'overloaded-529',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'overloaded', status: 529, isRetryable: true });
    },
  },
  {
    name: 'auth-canary',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      const error = expectModelError(outcome, { code: 'auth', status: 401, isRetryable: false });
      expect(error.requestId).toBe('req_auth');
    },
  },
  {
    name: 'context-length',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'context-length', status: 400, isRetryable: false });
    },
  },
  {
    name: 'bad-request',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'bad-request', status: 400, isRetryable: false });
    },
  },
  {
    name: 'malformed-json',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'invalid-response', isRetryable: false });
    },
  },
  {
    name: 'stream-error-event',
    mode: 'stream',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: ['overloaded', 'network'], isRetryable: true });
      expect(outcome.parts.some((part) => part.type === 'finish')).toBe(false);
    },
  },
  {
    name: 'stream-cut',
    mode: 'stream',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'network', isRetryable: true });
      expect(textOf(outcome.parts).length).toBeGreaterThan(0);
      expect(outcome.parts.some((part) => part.type === 'finish')).toBe(false);
    },
  },
  {
    name: 'connection-reset',
    mode: 'generate',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'network', isRetryable: true });
    },
  },
  {
    name: 'connection-reset-mid-stream',
    mode: 'stream',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'network', isRetryable: true });
      expect(outcome.parts.some((part) => part.type === 'finish')).toBe(false);
    },
  },
  {
    name: 'timeout',
    mode: 'generate',
    request: simpleRequest,
    timeoutMs: 150,
    closesConnection: true,
    check(outcome) {
      expectModelError(outcome, { code: 'timeout', isRetryable: true });
    },
  },
  {
    name: 'abort-mid-stream',
    mode: 'stream',
    request: simpleRequest,
    abort: 'first-delta',
    closesConnection: true,
    check(outcome) {
      expectModelError(outcome, { code: 'aborted', isRetryable: false });
      expect(textOf(outcome.parts).length).toBeGreaterThan(0);
      expect(outcome.abortLatencyMs).toBeLessThan(abortLatencyLimitMs);
    },
  },
  {
    name: 'abort-generate',
    mode: 'generate',
    request: simpleRequest,
    abort: 30,
    closesConnection: true,
    check(outcome) {
      expectModelError(outcome, { code: 'aborted', isRetryable: false });
      expect(outcome.abortLatencyMs).toBeLessThan(abortLatencyLimitMs);
    },
  },
  {
    name: 'stream-metadata',
    mode: 'stream',
    request: simpleRequest,
    check(outcome) {
      const result = expectOk(outcome);
      expectStreamInvariants(outcome);
      expect(result.text).toBe(helloText);
      // A first chunk with empty id/model (Azure's model router) must not blank the metadata.
      expect(result.response?.id).toMatch(/\S/);
      expect(result.response?.modelId).toMatch(/\S/);
    },
  },
  {
    name: 'stream-error-bad-request',
    mode: 'stream',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'bad-request', isRetryable: false });
      expect(outcome.parts.some((part) => part.type === 'finish')).toBe(false);
    },
  },
  {
    name: 'stream-error-context-length',
    mode: 'stream',
    request: simpleRequest,
    check(outcome) {
      expectModelError(outcome, { code: 'context-length', isRetryable: false });
      expect(outcome.parts.some((part) => part.type === 'finish')).toBe(false);
    },
  },
  {
    name: 'reasoning-and-text',
    mode: 'generate',
    request: reasoningRequest,
    check(outcome, target) {
      const result = expectOk(outcome);
      expect(result.text).toBe(answerText);
      expect(typeof result.text).toBe('string');
      if (target.reasoning !== false) expect(reasoningTextOf(result)).toContain(reasoningSnippet);
    },
  },
  {
    name: 'reasoning-and-text-stream',
    mode: 'stream',
    request: reasoningRequest,
    check(outcome, target) {
      const result = expectOk(outcome);
      expectStreamInvariants(outcome);
      expect(result.text).toBe(answerText);
      if (target.reasoning !== false) {
        expect(reasoningTextOf(result)).toContain(reasoningSnippet);
        const streamed = outcome.parts
          .map((part) => (part.type === 'reasoning-delta' ? part.delta : ''))
          .join('');
        expect(streamed).toContain(reasoningSnippet);
      }
    },
  },
  {
    name: 'reasoning-tool-loop',
    mode: 'generate',
    request: {
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool],
    },
    followUp: (first) => ({
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: first.text,
          toolCalls: first.toolCalls,
          ...(first.reasoning ? { reasoning: first.reasoning } : {}),
        },
        ...first.toolCalls.map((call) => ({
          role: 'tool' as const,
          toolCallId: call.id,
          toolName: call.name,
          content: '{"tempC":18,"sky":"clear"}',
        })),
      ],
      tools: [weatherTool],
    }),
    check(outcome, target) {
      const first = outcome.first as GenerateResult;
      expectToolCalls(first, [{ name: 'get_weather', arguments: { city: 'Paris' } }]);
      const result = expectOk(outcome);
      expect(result.text).toBe('It is 18 °C and clear in Paris.');
      expect(outcome.requests).toHaveLength(2);
      if (target.reasoning !== false) {
        // The reasoning of the tool-calling turn goes back with it (DeepSeek rejects the next
        // request without it; Anthropic needs the signed thinking block; Responses the item).
        const reasoning = reasoningTextOf(first);
        expect(reasoning, 'the tool-calling turn came with reasoning').toMatch(/\S/);
        const sent = outcome.requests[1]?.body ?? '';
        const signatures = (first.reasoning ?? []).map((part) => part.signature).filter(Boolean) as string[];
        expect(
          sent.includes(JSON.stringify(reasoning).slice(1, -1)) ||
            signatures.some((signature) => sent.includes(signature)),
          "the second request carries the first turn's reasoning",
        ).toBe(true);
      }
    },
  },
  {
    name: 'content-parts',
    mode: 'generate',
    request: {
      messages: [
        {
          role: 'user',
          content: 'Describe the image and summarise the PDF.',
          parts: [
            { type: 'image', mediaType: 'image/png', data: pngBase64 },
            { type: 'file', mediaType: 'application/pdf', data: pdfBase64, filename: 'report.pdf' },
          ],
        },
      ],
    },
    check(outcome) {
      const result = expectOk(outcome);
      expect(result.text).toBe('A red pixel; the PDF says hello.');
      const sent = outcome.requests[0]?.body ?? '';
      expect(sent).toContain(pngBase64);
      expect(sent).toContain(pdfBase64);
    },
  },
];

async function run(model: ChatModel, scenario: Scenario, requests: RecordedRequest[]): Promise<Outcome> {
  const controller = new AbortController();
  const outcome: Outcome = { parts: [], requests };
  let abortedAt: number | undefined;
  const abort = () => {
    abortedAt = performance.now();
    controller.abort();
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waitForRequest: ReturnType<typeof setInterval> | undefined;
  const abortAfter = scenario.abort;
  if (typeof abortAfter === 'number') {
    // Counted from the moment the server has the request (the server shares this event loop: on
    // a loaded machine a timer armed at the call could fire before it read the request, which
    // would then arrive after the scenario and take the next scenario's reply).
    waitForRequest = setInterval(() => {
      if (requests.length === 0) return;
      clearInterval(waitForRequest);
      timer = setTimeout(abort, abortAfter);
    }, 1);
  }
  try {
    if (scenario.mode === 'generate') {
      outcome.result = await model.doGenerate(scenario.request, { signal: controller.signal });
      if (scenario.followUp) {
        outcome.first = outcome.result;
        outcome.result = undefined;
        outcome.result = await model.doGenerate(scenario.followUp(outcome.first), {
          signal: controller.signal,
        });
      }
    } else {
      for await (const part of model.doStream(scenario.request, { signal: controller.signal })) {
        outcome.parts.push(part);
        if (part.type === 'finish') outcome.result = part.result;
        if (scenario.abort === 'first-delta' && part.type === 'text-delta' && abortedAt === undefined)
          abort();
      }
    }
  } catch (error) {
    outcome.error = error;
    outcome.result = undefined;
  } finally {
    clearInterval(waitForRequest);
    clearTimeout(timer);
  }
  if (abortedAt !== undefined) {
    outcome.abortedAt = abortedAt;
    outcome.abortLatencyMs = performance.now() - abortedAt;
  }
  return outcome;
}

function normaliseRequest(request: RecordedRequest, keep: readonly string[]): unknown {
  const headers: Record<string, string> = {};
  for (const name of keep) {
    const value = request.headers[name];
    if (value !== undefined) headers[name] = value.replaceAll(CANARY_API_KEY, '<api-key>');
  }
  return { method: request.method, path: request.path, headers, body: request.json ?? request.body };
}

function summariseError(error: unknown): unknown {
  if (!ModelError.isInstance(error)) return { unexpected: String(error) };
  const { name, code, status, isRetryable, retryAfterMs, requestId, provider, message } = error;
  return { name, code, status, isRetryable, retryAfterMs, requestId, provider, message };
}

/**
 * Asserts (vitest `expect`) that `secret` appears nowhere in how an error can be shown or
 * shipped: `String`, `JSON.stringify`, `util.inspect` (deep, hidden fields), the stack, and the
 * `cause`. `undefined` passes.
 *
 * @example
 * expectNoSecretLeak(mapMyError(sdkError, { secrets: [key] }), key);
 */
export function expectNoSecretLeak(error: unknown, secret: string = CANARY_API_KEY): void {
  if (error === undefined) return;
  const deep = { depth: Number.POSITIVE_INFINITY, showHidden: true };
  const renderings = [
    String(error),
    JSON.stringify(error) ?? '',
    inspect(error, deep),
    error instanceof Error ? String(error.stack) : '',
    error instanceof Error ? inspect(error.cause, deep) : '',
  ];
  for (const text of renderings) expect(text, 'the secret leaked').not.toContain(secret);
}

/** Options of {@link conformanceReplies}. */
export interface ConformanceRepliesOptions {
  /** SSE events of `text-stream.http` sent before the server just ends the response (`stream-cut`). */
  streamCutAfterEvents: number;
  /** SSE events of `text-stream.http` sent before the socket is destroyed (`connection-reset-mid-stream`). */
  resetAfterEvents: number;
  /**
   * SSE events of `text-stream.http` sent before the server holds the stream open
   * (`abort-mid-stream`); they must include a text delta, on which the suite aborts.
   */
  holdAfterEvents: number;
  /** Replies that do not follow the convention. */
  overrides?: Partial<Record<ConformanceScenarioName, LoopbackReply[]>>;
}

/**
 * The replies for every scenario by convention, from a folder of fixtures named after the
 * scenarios: `<scenario>.http` written whole for generate scenarios and event by event for stream
 * scenarios; `stream-cut`, `connection-reset-mid-stream` and `abort-mid-stream` replay the first
 * events of `text-stream.http` and then end, reset or hold; `connection-reset` resets the
 * socket; `timeout` and `abort-generate` never answer.
 *
 * @example
 * const fixtures = fixtureReplies(new URL('./__fixtures__/', import.meta.url));
 * const replies = conformanceReplies(fixtures, { streamCutAfterEvents: 4, resetAfterEvents: 3, holdAfterEvents: 3 });
 */
export function conformanceReplies(
  fixtures: FixtureReplies,
  options: ConformanceRepliesOptions,
): Record<ConformanceScenarioName, LoopbackReply[]> {
  const { streamCutAfterEvents, resetAfterEvents, holdAfterEvents, overrides = {} } = options;
  for (const [name, value] of Object.entries({ streamCutAfterEvents, resetAfterEvents, holdAfterEvents })) {
    if (!Number.isInteger(value) || value < 1) {
      throw new ConformanceError({
        code: 'invalid-options',
        message: `conformanceReplies: ${name} must be an integer >= 1, got ${String(value)}`,
      });
    }
  }
  const special: Partial<Record<ConformanceScenarioName, () => LoopbackReply[]>> = {
    'stream-cut': () => fixtures.sse('text-stream', { limitEvents: streamCutAfterEvents }),
    'connection-reset': () => [{ type: 'reset' }],
    'connection-reset-mid-stream': () =>
      fixtures.sse('text-stream', { limitEvents: resetAfterEvents, after: 'destroy' }),
    timeout: () => [{ type: 'hang' }],
    'abort-mid-stream': () => fixtures.sse('text-stream', { limitEvents: holdAfterEvents, after: 'hold' }),
    'abort-generate': () => [{ type: 'hang' }],
    'reasoning-tool-loop': () => [
      ...fixtures.json('reasoning-tool-loop'),
      ...fixtures.json('reasoning-tool-loop-answer'),
    ],
  };
  const replies = {} as Record<ConformanceScenarioName, LoopbackReply[]>;
  for (const scenario of scenarios) {
    const { name, mode } = scenario;
    replies[name] =
      overrides[name] ?? special[name]?.() ?? (mode === 'stream' ? fixtures.sse(name) : fixtures.json(name));
  }
  return replies;
}

/** Waits (up to `waitMs`) for the server to see the request's connection close before the end. */
/** Waits (up to `waitMs`) until the server has `count` requests: on a loaded machine it may read one late. */
async function requestsArrived(requests: readonly RecordedRequest[], count: number, waitMs = 1_000) {
  const until = performance.now() + waitMs;
  while (requests.length < count && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

async function closedEarlyAt(request: RecordedRequest, waitMs = 1_000): Promise<number | undefined> {
  const until = performance.now() + waitMs;
  while (request.closedEarlyAt === undefined && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return request.closedEarlyAt;
}

function checkTarget(target: ConformanceTarget): void {
  const problems: string[] = [];
  if (typeof target?.name !== 'string' || target.name === '')
    problems.push('name must be a non-empty string');
  if (typeof target?.provider !== 'string' || target.provider === '') {
    problems.push('provider must be a non-empty string');
  }
  if (typeof target?.createModel !== 'function') problems.push('createModel must be a function');
  if (typeof target?.replies !== 'object' || target.replies === null)
    problems.push('replies must be an object');
  if (!Array.isArray(target?.snapshotHeaders)) problems.push('snapshotHeaders must be an array');
  if (!Array.isArray(target?.retryReplies) || target.retryReplies.length < 2) {
    problems.push('retryReplies must hold a 429 reply and a text reply');
  }
  if (problems.length > 0) {
    throw new ConformanceError({
      code: 'invalid-options',
      message: `runConformanceSuite: ${problems.join('; ')}`,
    });
  }
}

/**
 * Registers the conformance suite (a vitest `describe` block) for one adapter. Call it at the
 * top level of a test file; snapshots go to that file's `__snapshots__`.
 */
export function runConformanceSuite(target: ConformanceTarget): void {
  checkTarget(target);
  describe(`conformance: ${target.name}`, () => {
    const server = useLoopbackServer();

    const create = (timeoutMs = 5_000) =>
      target.createModel({ serverUrl: server.url, apiKey: CANARY_API_KEY, timeoutMs });

    it('covers every scenario with replies', () => {
      expect(Object.keys(target.replies).sort()).toEqual([...conformanceScenarioNames].sort());
    });

    for (const scenario of scenarios) {
      it(`${scenario.name} (${scenario.mode})`, async () => {
        server.script(target.replies[scenario.name]);
        const model = create(scenario.timeoutMs);
        expect(model.specificationVersion).toBe('v1');
        expect(model.provider).toBe(target.provider);
        const outcome = await run(model, scenario, server.requests);
        scenario.check(outcome, target);
        const attempts = scenario.followUp ? 2 : 1;
        await requestsArrived(server.requests, attempts);
        expect(server.requests, 'exactly one HTTP attempt per call').toHaveLength(attempts);
        expectNoSecretLeak(outcome.error);
        if (ModelError.isInstance(outcome.error)) expect(outcome.error.provider).toBe(target.provider);
        const firstRequest = server.requests[0] as RecordedRequest;
        if (scenario.closesConnection) {
          const closedAt = await closedEarlyAt(firstRequest);
          expect(closedAt, 'the server saw the request stop (connection closed early)').toBeDefined();
          if (outcome.abortedAt !== undefined) {
            expect((closedAt ?? Number.POSITIVE_INFINITY) - outcome.abortedAt).toBeLessThan(
              abortLatencyLimitMs,
            );
          }
        }
        expect({
          request: normaliseRequest(firstRequest, target.snapshotHeaders),
          ...(scenario.followUp && server.requests[1]
            ? { followUpRequest: normaliseRequest(server.requests[1], target.snapshotHeaders) }
            : {}),
          ...(outcome.error === undefined
            ? { result: outcome.result, ...(scenario.mode === 'stream' ? { parts: outcome.parts } : {}) }
            : { error: summariseError(outcome.error) }),
        }).toMatchSnapshot();
      });
    }

    it('withRetry over the adapter: 429 then 200 is exactly 2 HTTP attempts', async () => {
      server.script(target.retryReplies);
      const model = create();
      const delays: number[] = [];
      const result = await withRetry(({ signal }) => model.doGenerate(simpleRequest, { signal }), {
        maxAttempts: 3,
        jitter: false,
        initialDelayMs: 1,
        onRetry: (event) => delays.push(event.delayMs),
        sleep: async () => {},
      });
      expect(result.text).toBe(helloText);
      expect(server.requests).toHaveLength(2);
      expect(delays).toHaveLength(1);
      expect(delays[0]).toBeGreaterThanOrEqual(1);
      expect(server.requests[0]?.body).toBe(server.requests[1]?.body);
    });

    for (const name of ['stream-error-bad-request', 'stream-error-context-length'] as const) {
      it(`${name}: a non-retryable stream error is sent once under withRetry`, async () => {
        server.script([...target.replies[name], ...target.replies['text-stream']]);
        const model = create();
        await expect(
          withRetry(({ signal }) => streamToResult(model.doStream(simpleRequest, { signal })), {
            sleep: async () => {},
          }),
        ).rejects.toMatchObject({ isRetryable: false });
        expect(server.requests).toHaveLength(1);
      });
    }

    it('a non-retryable error is attempted once even under withRetry', async () => {
      server.script([...target.replies['bad-request'], ...target.replies.text]);
      const model = create();
      await expect(
        withRetry(({ signal }) => model.doGenerate(simpleRequest, { signal }), { sleep: async () => {} }),
      ).rejects.toMatchObject({ code: 'bad-request' });
      expect(server.requests).toHaveLength(1);
    });
  });
}
