import type { LanguageModelV2, LanguageModelV3 } from '@ai-sdk/provider';
import {
  type CallOptions,
  type ChatModel,
  type FinishReason,
  type GenerateRequest,
  type GenerateResult,
  type ModelCapabilities,
  ModelError,
  type ReasoningPart,
  resolveCapabilities,
  type StreamPart,
  type ToolCall,
  type ToolSpec,
  type Usage,
} from '@closedloop/model';
import {
  checkModelId,
  checkProviderOptions,
  defaultStreamIdleTimeoutMs,
  emptyAnswerError,
  htmlPageError,
  isCompleteToolArguments,
  isHtmlContentType,
  parseToolCall,
  responseToolCallIds,
  restatedArguments,
  streamStallError,
  toolCallMarkup,
  truncatedToolCallError,
  withStallTimeout,
} from '@closedloop/model/provider';
import type { LanguageModelV4 } from './language-model-v4';
import { mapAISDKError } from './map-ai-sdk-error';
import { toAISDKCallOptions } from './to-ai-sdk-call-options';
import { isPrivateMemberError, withRepairedFetch } from './with-repaired-fetch';

/**
 * An AI SDK language model: the `@ai-sdk/provider` specification v2 (AI SDK 5), v3 (AI SDK 6) or
 * v4 (AI SDK 7, `@ai-sdk/provider@4`; declared structurally, as that package needs Node >= 22).
 */
export type AISDKLanguageModel = LanguageModelV2 | LanguageModelV3 | LanguageModelV4;

/** What the two calls of every specification version have in common, as this bridge calls them. */
type AnyLanguageModelCall = (options: unknown) => PromiseLike<unknown>;

/** Options of {@link fromAISDK}. Every field is optional. */
export interface FromAISDKOptions {
  /**
   * Provider id the `ChatModel` and its errors report. Default: the AI SDK provider id before its
   * first dot (`openai.responses` → `openai`, `google.generative-ai` → `google`).
   */
  name?: string;
  /** Overrides on top of the capabilities resolved for the provider id and model id. */
  capabilities?: Partial<ModelCapabilities>;
  /**
   * Milliseconds until the response starts (headers for streams) before the call is aborted
   * with `ModelError('timeout')`. Default: none (the AI SDK model's own behaviour).
   */
  timeoutMs?: number;
  /**
   * Longest silence of a stream between two parts, in ms (keep-alives the provider's parser
   * drops do not count): a longer one cancels the stream with a retryable `network` error.
   * Default 120 000; `0` turns it off. Once a raw chunk carried the finish reason (an
   * OpenAI-style `finish_reason`, Gemini's `finishReason`), 1 s of silence ends the stream as the
   * answer, for servers that hold the connection open after it.
   */
  streamIdleTimeoutMs?: number;
  /**
   * Literal secrets (the provider's API key) to remove from error messages. AI SDK errors carry
   * the provider's message, which some providers echo keys into.
   */
  secrets?: readonly string[];
}

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** AI SDK usage (v3 nested or v2 flat) as closedloop `Usage`. */
export function mapAISDKUsage(usage: unknown): Usage {
  const raw = isRecord(usage) ? usage : {};
  const input = raw.inputTokens;
  const output = raw.outputTokens;
  const mapped: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  if (isRecord(input) || isRecord(output)) {
    const inputs = isRecord(input) ? input : {};
    const outputs = isRecord(output) ? output : {};
    mapped.inputTokens = count(inputs.total) ?? 0;
    mapped.outputTokens = count(outputs.total) ?? 0;
    const cacheRead = count(inputs.cacheRead);
    const cacheWrite = count(inputs.cacheWrite);
    const reasoning = count(outputs.reasoning);
    if (cacheRead !== undefined) mapped.cachedInputTokens = cacheRead;
    if (cacheWrite !== undefined && cacheWrite > 0) mapped.cacheWriteInputTokens = cacheWrite;
    if (reasoning !== undefined) mapped.reasoningTokens = reasoning;
  } else {
    mapped.inputTokens = count(input) ?? 0;
    mapped.outputTokens = count(output) ?? 0;
    const reasoning = count(raw.reasoningTokens);
    const cached = count(raw.cachedInputTokens);
    if (reasoning !== undefined) mapped.reasoningTokens = reasoning;
    if (cached !== undefined) mapped.cachedInputTokens = cached;
  }
  mapped.totalTokens = count(raw.totalTokens) ?? mapped.inputTokens + mapped.outputTokens;
  return mapped;
}

/**
 * Raw finish reasons compatible servers and gateways send that the AI SDK files under `other`, by
 * what they mean (keys lower case): TGI's `eos_token`, Anthropic/Bedrock reasons passed through
 * (`end_turn`, `stop_sequence`, `max_tokens`, `tool_use`), Mistral's `model_length`, Gemini-style
 * safety reasons.
 */
const rawFinishAliases: Readonly<Record<string, string>> = {
  eos: 'stop',
  eos_token: 'stop',
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_length: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool-calls',
  safety: 'content-filter',
  recitation: 'content-filter',
  prohibited_content: 'content-filter',
  blocklist: 'content-filter',
  spii: 'content-filter',
};

/**
 * The unified finish reason (v3/v4 `{ unified, raw }` or a v2 string), with a raw reason the AI
 * SDK could only call `other` read by what it means (see `rawFinishAliases`).
 */
function unifiedReason(reason: unknown): unknown {
  const unified = isRecord(reason) ? reason.unified : reason;
  if ((unified === 'other' || unified === 'unknown') && isRecord(reason) && typeof reason.raw === 'string')
    return rawFinishAliases[reason.raw.toLowerCase()] ?? unified;
  return unified;
}

/**
 * An AI SDK finish reason (v3 `{ unified, raw }` or v2 string) as closedloop's: the unified value,
 * except that AI SDK's catch-all `other` is `unknown` (an unrecognised provider reason) and a
 * response with tool calls is `tool-calls`.
 */
export function mapAISDKFinishReason(
  reason: unknown,
  hasToolCalls: boolean,
): { finishReason: FinishReason; rawFinishReason: string | undefined } {
  const unified = unifiedReason(reason);
  const raw = isRecord(reason) && typeof reason.raw === 'string' ? reason.raw : undefined;
  let finishReason: FinishReason;
  switch (unified) {
    case 'stop':
    case 'length':
    case 'content-filter':
    case 'tool-calls':
    case 'error':
      finishReason = unified;
      break;
    default:
      finishReason = 'unknown';
  }
  // `@ai-sdk/openai-compatible` files a streamed `refusal` ending in `stop` under content-filter.
  if (finishReason === 'content-filter' && raw === 'stop') finishReason = 'refusal';
  if (hasToolCalls && (finishReason === 'stop' || finishReason === 'unknown')) finishReason = 'tool-calls';
  return { finishReason, rawFinishReason: raw ?? (typeof unified === 'string' ? unified : undefined) };
}

/**
 * Specification v4's `interrupted` finish: the provider's response ended without a completion
 * signal, so the output may be incomplete — a cut connection, never a finished answer.
 */
function isInterrupted(reason: unknown): boolean {
  return isRecord(reason) && reason.unified === 'interrupted';
}

function warningText(warning: unknown): string {
  if (!isRecord(warning)) return String(warning);
  const subject =
    warning.feature ?? warning.setting ?? (isRecord(warning.tool) ? warning.tool.name : undefined);
  const details = typeof warning.details === 'string' ? `: ${warning.details}` : '';
  if (typeof warning.message === 'string') return warning.message;
  return `${String(warning.type)}${subject !== undefined ? ` ${String(subject)}` : ''}${details}`;
}

function requestIdOf(headers: unknown): string | undefined {
  if (!isRecord(headers)) return undefined;
  for (const name of ['x-request-id', 'request-id']) {
    const value = headers[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

function errorMessage(error: unknown): string {
  return error instanceof Error
    ? error.message
    : isRecord(error) && typeof error.message === 'string'
      ? error.message
      : '';
}

/** An error part saying the stream ended early (socket terminated). */
function isCutStream(error: unknown): boolean {
  return /stream ended|terminated|other side closed/i.test(errorMessage(error));
}

/**
 * The error part `@ai-sdk/openai-compatible` (and providers built on it) adds when the event
 * stream was read to its end without a `finish_reason`: the body ended cleanly (a socket cut is a
 * transport error instead), after `[DONE]` or not — the AI SDK's parser drops `[DONE]`, so the
 * bridge cannot tell. vLLM-MLX, Gemini proxies and some gateways end every answer this way; the
 * bridge takes such an answer when the server reported usage (sent once generation ended).
 */
function isEndedWithoutFinishReason(error: unknown): boolean {
  return /ended without a finish reason/i.test(errorMessage(error));
}

/**
 * The text and tool calls of a stream chunk in a completion's shape — `choices[0].message`
 * instead of `delta` — which `@ai-sdk/openai-compatible` reads as an empty chunk; `undefined` for
 * a chunk with a `delta`.
 */
function wholeMessage(
  chunk: Json,
): { text: string; calls: Array<{ id: string; name: string; rawArguments: string }> } | undefined {
  const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  if (!isRecord(choice) || choice.delta != null || !isRecord(choice.message)) return undefined;
  const message = choice.message;
  const calls: Array<{ id: string; name: string; rawArguments: string }> = [];
  // The deprecated single `function_call` (older Azure API versions): a call without an id.
  const legacy = isRecord(message.function_call) ? [{ function: message.function_call }] : [];
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : legacy) {
    const fn = isRecord(call) ? call.function : undefined;
    if (!isRecord(call) || !isRecord(fn) || typeof fn.name !== 'string') continue;
    const args = fn.arguments;
    calls.push({
      id: typeof call.id === 'string' ? call.id : '',
      name: fn.name,
      rawArguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    });
  }
  return { text: typeof message.content === 'string' ? message.content : '', calls };
}

/**
 * A Chat Completions response body the AI SDK's schema rejected (`Invalid JSON response`:
 * llama.cpp's and Ollama's object `arguments`, the deprecated `function_call`, MiniMax's
 * `role: ""`) as the AI SDK result it stands for; `undefined` for any other error or body.
 */
function rejectedCompletion(error: unknown): Json | undefined {
  if (
    !isRecord(error) ||
    typeof error.responseBody !== 'string' ||
    !/invalid json response/i.test(errorMessage(error))
  )
    return undefined;
  let body: unknown;
  try {
    body = JSON.parse(error.responseBody);
  } catch {
    return undefined;
  }
  if (!isRecord(body) || (body.error !== undefined && body.error !== null)) return undefined;
  const whole = wholeMessage(body);
  const choice: unknown = Array.isArray(body.choices) ? body.choices[0] : undefined;
  if (!whole || !isRecord(choice) || !isRecord(choice.message)) return undefined;
  const content: Json[] = [];
  const thought = choice.message.reasoning_content ?? choice.message.reasoning;
  if (typeof thought === 'string' && thought !== '') content.push({ type: 'reasoning', text: thought });
  if (whole.text !== '') content.push({ type: 'text', text: whole.text });
  for (const [index, call] of whole.calls.entries())
    content.push({
      type: 'tool-call',
      toolCallId: call.id !== '' ? call.id : `call_${index}`,
      toolName: call.name,
      input: call.rawArguments,
    });
  const finish =
    typeof choice.finish_reason === 'string' && choice.finish_reason !== ''
      ? choice.finish_reason
      : undefined;
  return {
    content,
    finishReason: finish ? unifiedTerminal(finish) : { unified: 'other', raw: undefined },
    usage: chatUsage(body.usage),
    response: {
      id: body.id,
      modelId: body.model,
      headers: isRecord(error.responseHeaders) ? error.responseHeaders : undefined,
    },
  };
}

/**
 * An OpenAI-style chunk the AI SDK rejected (its schema is stricter than the servers: MiniMax's
 * `role: ""`, llama.cpp's object `arguments`, an `error: null` on every chunk) and skipped: the
 * raw chunk, when it has `choices` (or is a usage chunk with `choices: null`) and no error
 * object; `undefined` otherwise.
 */
function rejectedChunk(raw: Json | undefined): Json | undefined {
  if (!raw || (raw.error !== undefined && raw.error !== null)) return undefined;
  // A trailing usage chunk with `choices: null` (Mistral, some gateways) instead of `[]`.
  if (Array.isArray(raw.choices) || (raw.choices == null && chatUsage(raw.usage))) return raw;
  return undefined;
}

/**
 * A gateway's keep-alive event with data (`event: ping` + `data: {}` or `data: {"type":"ping"}`),
 * which the AI SDK reads as a chunk and rejects: an object with no key but a `ping` `type`.
 */
function isKeepAlive(raw: Json | undefined): boolean {
  if (!raw) return false;
  for (const key in raw) if (key !== 'type' || raw.type !== 'ping') return false;
  return true;
}

/**
 * An error sent as a bare chunk, which the AI SDK's schema rejects: `{ "code": 400, "details": "…" }`
 * after `event: error` (vLLM/TGIS behind an orchestrator), `{ "object": "error", "message": "…" }`,
 * `{ "error": "…" }` (a proxy's error as a bare string) — `{ message, code, type }` for the error
 * mapping, else `undefined`.
 */
function bareErrorChunk(raw: Json | undefined): Json | undefined {
  // `{"error": "…"}`: a proxy's error as a bare string (the AI SDK's error schema wants an object).
  if (raw && raw.choices === undefined && typeof raw.error === 'string' && raw.error.trim() !== '')
    return { message: raw.error };
  if (!raw || raw.choices !== undefined || (raw.code === undefined && raw.type === undefined))
    return undefined;
  const message = typeof raw.message === 'string' ? raw.message : raw.details;
  if (typeof message !== 'string' || message === '') return undefined;
  return { message, code: raw.code, type: raw.type };
}

/** Chat Completions usage (`prompt_tokens`, `completion_tokens`) as AI SDK v2 usage. */
function chatUsage(usage: unknown): Json | undefined {
  if (!isRecord(usage)) return undefined;
  const inputTokens = count(usage.prompt_tokens);
  const outputTokens = count(usage.completion_tokens);
  if (inputTokens === undefined || outputTokens === undefined) return undefined;
  return { inputTokens, outputTokens, totalTokens: count(usage.total_tokens) ?? inputTokens + outputTokens };
}

/** A Chat Completions `finish_reason` as the AI SDK's unified reason. */
function unifiedChatFinish(raw: string): string {
  switch (raw) {
    case 'stop':
      return 'stop';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    default:
      return 'other';
  }
}

/** Groq's usage, sent in `x_groq.usage` of the last chunk, as AI SDK v2 usage; else `undefined`. */
function groqUsage(chunk: Json): Json | undefined {
  return chatUsage(isRecord(chunk.x_groq) ? chunk.x_groq.usage : undefined);
}

/**
 * The finish reason a raw chunk carries when it is the answer's terminal event — an OpenAI-style
 * chunk's `choices[0].finish_reason` or a Gemini chunk's `candidates[0].finishReason` — else
 * `undefined`. The AI SDK reports the finish only when the body ends; a server that holds the
 * connection open after this chunk has still sent the whole answer.
 */
function terminalReason(chunk: Json): string | undefined {
  const list = Array.isArray(chunk.choices)
    ? chunk.choices
    : Array.isArray(chunk.candidates)
      ? chunk.candidates
      : undefined;
  const first: unknown = list?.[0];
  if (!isRecord(first)) return undefined;
  const reason = first.finish_reason ?? first.finishReason;
  return typeof reason === 'string' && reason !== '' ? reason : undefined;
}

/** The usage a raw chunk reports (Chat Completions `usage`, Groq's `x_groq.usage`, Gemini's `usageMetadata`). */
function rawChunkUsage(chunk: Json): Json | undefined {
  const gemini = chunk.usageMetadata;
  if (isRecord(gemini)) {
    const inputTokens = count(gemini.promptTokenCount);
    const outputTokens = (count(gemini.candidatesTokenCount) ?? 0) + (count(gemini.thoughtsTokenCount) ?? 0);
    if (inputTokens === undefined) return undefined;
    return {
      inputTokens,
      outputTokens,
      totalTokens: count(gemini.totalTokenCount) ?? inputTokens + outputTokens,
    };
  }
  return chatUsage(chunk.usage) ?? groqUsage(chunk);
}

/** A raw terminal finish reason (`terminalReason`) as the AI SDK's unified one, raw kept. */
function unifiedTerminal(raw: string): { unified: string; raw: string } {
  const chat = unifiedChatFinish(raw.toLowerCase());
  return { unified: chat !== 'other' ? chat : (rawFinishAliases[raw.toLowerCase()] ?? 'other'), raw };
}

/**
 * The `index` of the choice an OpenAI-style chunk carries first — the one `@ai-sdk/openai-compatible`
 * reads (`choices[0]`, whatever its index) — else `undefined`.
 */
function choiceIndexOf(chunk: Json): number | undefined {
  const first: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  return isRecord(first) ? (typeof first.index === 'number' ? first.index : 0) : undefined;
}

/**
 * Whether an OpenAI-style chunk's first choice carries tool calls (as a delta or a whole message)
 * or a streamed deprecated `function_call`.
 */
function choiceHasToolCalls(chunk: Json): boolean {
  const first: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  if (!isRecord(first)) return false;
  const calls = isRecord(first.delta)
    ? first.delta.tool_calls
    : isRecord(first.message)
      ? first.message.tool_calls
      : undefined;
  return (Array.isArray(calls) && calls.length > 0) || legacyFunctionCallDelta(chunk) !== undefined;
}

/** Whether two argument texts are the same JSON value (whitespace and key spacing aside). */
function sameJson(a: string, b: string): boolean {
  try {
    return JSON.stringify(JSON.parse(a)) === JSON.stringify(JSON.parse(b));
  } catch {
    return false;
  }
}

/**
 * The tool calls of an OpenAI-style raw chunk (`choices[0].delta.tool_calls`) that carry an id:
 * `[index, id]` pairs. Empty for any other raw chunk.
 */
function wireToolCallIds(chunk: unknown): Array<[number, string]> {
  if (!isRecord(chunk) || !Array.isArray(chunk.choices)) return [];
  const choice: unknown = chunk.choices[0];
  const delta = isRecord(choice) ? choice.delta : undefined;
  const calls = isRecord(delta) ? delta.tool_calls : undefined;
  if (!Array.isArray(calls)) return [];
  const found: Array<[number, string]> = [];
  for (const [position, call] of calls.entries()) {
    if (!isRecord(call) || typeof call.id !== 'string' || call.id.trim() === '') continue;
    found.push([typeof call.index === 'number' ? call.index : position, call.id]);
  }
  return found;
}

/**
 * The deprecated single `function_call` of an OpenAI-style raw chunk's delta
 * (`choices[0].delta.function_call`: older Azure API versions, some compatible servers), which
 * `@ai-sdk/openai-compatible` drops: its name and argument text (an object is its JSON, as
 * llama.cpp sends `arguments`). `undefined` when there is none — `function_call: null` on every
 * delta (LongCat) included — or it carries neither.
 */
function legacyFunctionCallDelta(
  chunk: Json,
): { name: string; arguments: string; whole: boolean } | undefined {
  const choice: unknown = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  const delta = isRecord(choice) ? choice.delta : undefined;
  const call = isRecord(delta) ? delta.function_call : undefined;
  if (!isRecord(call)) return undefined;
  const name = typeof call.name === 'string' ? call.name : '';
  const args = call.arguments;
  const whole = isRecord(args) && !Array.isArray(args);
  const text = typeof args === 'string' ? args : whole ? JSON.stringify(args) : '';
  return name !== '' || text !== '' ? { name, arguments: text, whole } : undefined;
}

function metadataData(metadata: unknown): Record<string, unknown> | undefined {
  return isRecord(metadata) && Object.keys(metadata).length > 0 ? { providerMetadata: metadata } : undefined;
}

/** Unified finish reasons that cut the answer off wherever it was (a tool call's input included). */
function isCutOff(reason: unknown): boolean {
  const unified = unifiedReason(reason);
  return unified === 'length' || unified === 'content-filter';
}

/**
 * A finish reason no mapping knows (`other`/`unknown` after `rawFinishAliases`): whether the answer
 * ended or was cut off is unknown, so a call whose arguments are not complete JSON was cut.
 */
function isUnknownFinish(reason: unknown): boolean {
  const unified = unifiedReason(reason);
  return unified === 'other' || unified === 'unknown';
}

function rawReason(reason: unknown): string {
  const raw = isRecord(reason) ? (reason.raw ?? reason.unified) : reason;
  return typeof raw === 'string' ? raw : 'unknown';
}

function toolCallOf(part: Json): ToolCall {
  const input = part.input;
  const rawArguments = typeof input === 'string' ? input : JSON.stringify(input ?? {});
  const call = parseToolCall({
    id: typeof part.toolCallId === 'string' ? part.toolCallId : '',
    name: typeof part.toolName === 'string' ? part.toolName : '',
    rawArguments,
  });
  const providerData = metadataData(part.providerMetadata);
  return providerData ? { ...call, providerData } : call;
}

/**
 * Any AI SDK language model as a closedloop `ChatModel`: Google, Bedrock, Azure, Mistral, Groq,
 * Ollama community providers — every provider that implements the `@ai-sdk/provider`
 * specification (v2, v3 or v4). The model is called as is; retries stay with closedloop's one policy
 * (`withRetry`, `generate`), errors become `ModelError`s, reasoning and tool calls keep their
 * provider metadata so signatures round-trip.
 */
export class AISDKChatModel implements ChatModel {
  readonly specificationVersion = 'v1' as const;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly #model: AISDKLanguageModel;
  /** The model reading its event streams repaired (`withRepairedFetch`), while that works. */
  #repaired: AISDKLanguageModel | undefined;
  readonly #options: FromAISDKOptions;

  constructor(model: AISDKLanguageModel, options: FromAISDKOptions = {}) {
    const version = (model as { specificationVersion?: unknown } | null)?.specificationVersion;
    const provider =
      options.name ??
      String((model as { provider?: unknown } | null)?.provider ?? 'ai-sdk').split('.')[0] ??
      'ai-sdk';
    if (version !== 'v2' && version !== 'v3' && version !== 'v4') {
      throw new ModelError({
        code: 'bad-request',
        message: `fromAISDK: expected an AI SDK language model (specificationVersion v2, v3 or v4), got ${JSON.stringify(version)}. Pass e.g. google('gemini-2.5-pro') from @ai-sdk/google.`,
        provider,
      });
    }
    checkProviderOptions({
      factory: 'fromAISDK',
      provider,
      timeoutMs: options.timeoutMs,
      streamIdleTimeoutMs: options.streamIdleTimeoutMs,
    });
    checkModelId({ factory: 'fromAISDK', provider, modelId: model.modelId });
    this.#model = model;
    this.#repaired = withRepairedFetch(model);
    this.#options = options;
    this.provider = provider;
    this.modelId = model.modelId;
    this.capabilities = resolveCapabilities({
      provider,
      modelId: model.modelId,
      ...(options.capabilities ? { overrides: options.capabilities } : {}),
    });
  }

  /** A controller that follows the caller's signal and aborts on the bridge's timeout. */
  #controller(signal: AbortSignal | undefined) {
    const controller = new AbortController();
    const state = { timedOut: false };
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) controller.abort(signal.reason);
    else signal?.addEventListener('abort', onAbort, { once: true });
    const timer =
      this.#options.timeoutMs !== undefined
        ? setTimeout(() => {
            state.timedOut = true;
            controller.abort(new DOMException('timeout', 'TimeoutError'));
          }, this.#options.timeoutMs)
        : undefined;
    return {
      signal: controller.signal,
      state,
      stopTimer: () => clearTimeout(timer),
      dispose: () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      },
    };
  }

  #error(
    error: unknown,
    signal: AbortSignal | undefined,
    timedOut = false,
    requestId?: string | undefined,
  ): ModelError {
    return mapAISDKError(error, {
      provider: this.provider,
      signal,
      timedOut,
      secrets: this.#options.secrets ?? [],
      requestId,
    });
  }

  #cut(text: string, requestId: string | undefined, what = 'stream'): ModelError {
    return new ModelError({
      code: 'network',
      message: `${this.provider}: the ${what} ended before the provider's finish reason (connection closed early after ${text.length} characters)${
        requestId ? ` (request ${requestId})` : ''
      }`,
      provider: this.provider,
      ...(requestId ? { requestId } : {}),
    });
  }

  /** A call whose complete arguments were followed by other complete arguments. */
  #twoArgumentTexts(
    input: { name: string; raw: string },
    restatement: string,
    requestId: string | undefined,
  ): ModelError {
    return new ModelError({
      code: 'invalid-response',
      message: `${this.provider}: tool call ${JSON.stringify(input.name)} got two different complete argument texts (${JSON.stringify(
        input.raw,
      )}, then ${JSON.stringify(restatement)}); which one the model meant is unknown${requestId ? ` (request ${requestId})` : ''}`,
      provider: this.provider,
      rawOutput: input.raw + restatement,
      ...(requestId ? { requestId } : {}),
    });
  }

  /** Tool calls in another choice than the answer's: the AI SDK merges them into the answer's calls. */
  #otherChoiceCalls(index: number | undefined, requestId: string | undefined): ModelError {
    return new ModelError({
      code: 'invalid-response',
      message: `${this.provider}: the server streamed more than one choice, and choice ${index} carries tool calls that cannot be told apart from the answer's; ask for one choice (no \`n\` > 1 in the server's or proxy's defaults)${
        requestId ? ` (request ${requestId})` : ''
      }`,
      provider: this.provider,
      isRetryable: false,
      ...(requestId ? { requestId } : {}),
    });
  }

  /**
   * The parts of a chunk the AI SDK rejected: its text and reasoning deltas; its tool-call
   * fragments are gathered in `calls` by wire index (returned whole after the stream).
   */
  *#readRejected(
    chunk: Json,
    calls: Map<number, { id: string; name: string; rawArguments: string }>,
    reasoningFor: (partId: string) => ReasoningPart,
  ): Generator<StreamPart> {
    const choice: unknown = (chunk.choices as unknown[])[0];
    if (!isRecord(choice)) return;
    // (A chunk in a completion's shape is read from its raw form already: `wholeMessage`.)
    const delta = choice.delta;
    if (!isRecord(delta)) return;
    const thought = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : delta.reasoning;
    if (typeof thought === 'string' && thought !== '') {
      reasoningFor('reasoning-0').text += thought;
      yield { type: 'reasoning-delta', delta: thought };
    }
    if (typeof delta.content === 'string' && delta.content !== '')
      yield { type: 'text-delta', delta: delta.content };
    for (const [position, call] of (Array.isArray(delta.tool_calls) ? delta.tool_calls : []).entries()) {
      if (!isRecord(call)) continue;
      const index = typeof call.index === 'number' ? call.index : position;
      let pending = calls.get(index);
      if (!pending) {
        pending = { id: '', name: '', rawArguments: '' };
        calls.set(index, pending);
      }
      const fn = isRecord(call.function) ? call.function : {};
      if (typeof call.id === 'string' && call.id !== '' && pending.id === '') pending.id = call.id;
      if (typeof fn.name === 'string' && fn.name !== '' && pending.name === '') pending.name = fn.name;
      if (typeof fn.arguments === 'string') pending.rawArguments += fn.arguments;
      else if (isRecord(fn.arguments) && !Array.isArray(fn.arguments))
        pending.rawArguments = JSON.stringify(fn.arguments);
      else if (fn.arguments != null)
        throw new ModelError({
          code: 'invalid-response',
          message: `${this.provider}: tool call ${JSON.stringify(pending.name)} has arguments that are neither JSON text nor an object: ${JSON.stringify(fn.arguments)}`,
          provider: this.provider,
          rawOutput: JSON.stringify(chunk),
        });
    }
  }

  /**
   * A tool call sent again at another index with the same wire id (LocalAI): the same call when
   * its arguments are the same text or the same JSON, dropped; other arguments are a typed error,
   * since which of the two the model meant is unknown.
   */
  #checkRepeat(copy: ToolCall, original: string, requestId: string | undefined): void {
    if (copy.rawArguments === original || sameJson(copy.rawArguments, original)) return;
    const where = requestId ? ` (request ${requestId})` : '';
    throw new ModelError({
      code: 'invalid-response',
      message: `${this.provider}: tool call ${JSON.stringify(copy.name)} was sent again at another index with the same id and two different complete argument texts (${JSON.stringify(
        original,
      )}, then ${JSON.stringify(copy.rawArguments)}); which one the model meant is unknown${where}`,
      provider: this.provider,
      rawOutput: original + copy.rawArguments,
      ...(requestId ? { requestId } : {}),
    });
  }

  /**
   * Throws for a stream read to its end without a finish reason (see
   * `isEndedWithoutFinishReason`) that cannot be a whole answer: a tool call with partial
   * arguments (a retryable `invalid-response`, nothing returned), or nothing at all (a retryable
   * `network` error). Text, or complete tool calls, are the answer.
   */
  #checkWithoutFinishReason(
    inputs: Iterable<{ raw: string; id: string; name: string; called?: boolean }>,
    held: readonly ToolCall[],
    text: string,
    requestId: string | undefined,
  ): void {
    const where = requestId ? ` (request ${requestId})` : '';
    let any = false;
    let cut: { id: string | undefined; name: string; rawArguments: string } | undefined = held[0];
    for (const input of inputs) {
      any = true;
      if (!input.called && input.raw.trim() !== '' && !isCompleteToolArguments(input.raw))
        cut ??= { id: input.id, name: input.name, rawArguments: input.raw };
    }
    if (cut) {
      throw new ModelError({
        code: 'invalid-response',
        message: `${this.provider}: the answer ended without a finish reason inside tool call ${JSON.stringify(cut.name)}${
          cut.id ? ` (${cut.id})` : ''
        } after ${cut.rawArguments.length} characters of arguments that are not complete JSON; the call is incomplete and was not returned, so nothing ran${where}`,
        isRetryable: true,
        provider: this.provider,
        rawOutput: cut.rawArguments,
        ...(requestId ? { requestId } : {}),
      });
    }
    if (!any && text === '') {
      throw new ModelError({
        code: 'network',
        message: `${this.provider}: the server ended the answer without a finish reason and without any text or tool call${where}`,
        provider: this.provider,
        ...(requestId ? { requestId } : {}),
      });
    }
  }

  /**
   * A `tool-calls` finish without a tool call (vLLM without a working tool parser) is no answer
   * and nothing to run: an `invalid-response` carrying the text. DeepSeek's
   * `insufficient_system_resource` finish is an interrupted answer: a retryable `overloaded`.
   */
  #checkToolFinish(
    reason: unknown,
    toolCalls: number,
    text: string,
    requestId: string | undefined,
    tools: readonly ToolSpec[] | undefined,
  ): void {
    const unified = unifiedReason(reason);
    const raw = rawReason(reason);
    const where = requestId ? ` (request ${requestId})` : '';
    // (A "tool-calls" finish with no call is reported below, by its own message.)
    const markup =
      toolCalls === 0 && unified !== 'tool-calls' && tools !== undefined
        ? toolCallMarkup(
            text,
            tools.map((tool) => tool.name),
          )
        : undefined;
    if (markup !== undefined) {
      // A server without the model's tool-call parser: the call is in the text, unrun.
      throw new ModelError({
        code: 'invalid-response',
        message: `${this.provider}: the answer holds a call of "${markup.name}" as ${markup.format} markup in its text, and no tool call (the server did not parse the model's tool call; check its tool-call parser)${where}`,
        provider: this.provider,
        rawOutput: text,
        ...(requestId ? { requestId } : {}),
      });
    }
    if (/^(malformed_function_call|unexpected_tool_call)$/i.test(raw)) {
      // Gemini could not turn the model's output into a function call: sampling again may work.
      throw new ModelError({
        code: 'invalid-response',
        message: `${this.provider}: the model wrote a tool call the provider could not read (finish reason "${raw}")${where}; the answer has no usable call`,
        isRetryable: true,
        provider: this.provider,
        rawOutput: text,
        ...(requestId ? { requestId } : {}),
      });
    }
    if (unified === 'error' || raw === 'error' || raw === 'abort') {
      // The provider gave up mid-answer without an error object (`finish_reason: "error"`, vLLM's `abort`).
      throw new ModelError({
        code: 'network',
        message: `${this.provider}: the provider ended the answer with finish reason "${raw}" and no error details${where}; the answer is incomplete`,
        provider: this.provider,
        ...(requestId ? { requestId } : {}),
      });
    }
    if (rawReason(reason) === 'insufficient_system_resource') {
      // DeepSeek: "the request is interrupted due to insufficient resource of the inference system".
      throw new ModelError({
        code: 'overloaded',
        message: `${this.provider}: the server interrupted the answer (finish reason "insufficient_system_resource"${
          requestId ? `, request ${requestId}` : ''
        }); retry with backoff`,
        provider: this.provider,
        ...(requestId ? { requestId } : {}),
      });
    }
    if (raw === 'STOP' && unified === 'stop' && toolCalls === 0 && text === '') {
      // Gemini's (and Vertex's) known empty answer: `finishReason: STOP` and a candidate without
      // parts (or only thoughts), usually zero output tokens. Nothing to return; sampling again
      // gives an answer. (Other providers' empty answers are left to the caller: Claude's empty
      // end_turn after a tool result repeats on a retry.)
      throw new ModelError({
        code: 'invalid-response',
        message: `${this.provider}: the model finished (finish reason "${raw}") without any text or tool call${where}; an empty answer`,
        isRetryable: true,
        provider: this.provider,
        rawOutput: '',
        ...(requestId ? { requestId } : {}),
      });
    }
    // Nothing at all, for a reason that says neither "done" nor why it was cut (Gemini's `OTHER`
    // or `TOO_MANY_TOOL_CALLS` without parts, Ollama's `load`): not an answer.
    const empty = emptyAnswerError({
      provider: this.provider,
      finishReason: mapAISDKFinishReason(reason, toolCalls > 0).finishReason,
      rawFinishReason: raw,
      text,
      toolCalls,
      requestId,
    });
    if (empty) throw empty;
    if (unified !== 'tool-calls' || toolCalls > 0) return;
    throw new ModelError({
      code: 'invalid-response',
      message: `${this.provider}: the finish reason is "${rawReason(reason)}" but no tool call arrived (the server did not parse the model's tool call; check its tool-call parser)${
        requestId ? ` (request ${requestId})` : ''
      }`,
      provider: this.provider,
      rawOutput: text,
      ...(requestId ? { requestId } : {}),
    });
  }

  #callOptions(request: GenerateRequest, signal: AbortSignal, warnings: string[]) {
    return toAISDKCallOptions({
      provider: this.provider,
      request,
      abortSignal: signal,
      warnings,
      specificationVersion: this.#model.specificationVersion,
    });
  }

  /**
   * Calls `doGenerate` or `doStream` with options built for the model's specification version, on
   * the model with repaired event streams when it has one; a model class whose methods refuse that
   * object (`#private` fields) is called as given from then on.
   */
  async #call(kind: 'doGenerate' | 'doStream', options: unknown): Promise<unknown> {
    const repaired = this.#repaired;
    if (repaired) {
      try {
        return await (repaired[kind] as AnyLanguageModelCall).call(repaired, options);
      } catch (error) {
        if (!isPrivateMemberError(error)) throw error;
        this.#repaired = undefined;
      }
    }
    return (this.#model[kind] as AnyLanguageModelCall).call(this.#model, options);
  }

  async doGenerate(request: GenerateRequest, options: CallOptions = {}): Promise<GenerateResult> {
    const warnings: string[] = [];
    const call = this.#callOptions(request, options.signal ?? new AbortController().signal, warnings);
    const control = this.#controller(options.signal);
    call.abortSignal = control.signal;
    let raw: unknown;
    try {
      raw = await this.#call('doGenerate', call);
    } catch (error) {
      // A whole answer in a shape the AI SDK's schema rejects is that answer, not a failure.
      raw = rejectedCompletion(error);
      if (raw === undefined) throw this.#error(error, options.signal, control.state.timedOut);
    } finally {
      control.dispose();
    }
    const result = isRecord(raw) ? raw : {};
    const content = Array.isArray(result.content) ? result.content : [];
    let text = '';
    const reasoning: ReasoningPart[] = [];
    const toolCalls: ToolCall[] = [];
    // A server may send two calls with one id, or none: each call gets its own (pairing is by id).
    const idOf = responseToolCallIds('call_');
    for (const part of content) {
      if (!isRecord(part)) continue;
      if (part.type === 'text' && typeof part.text === 'string') text += part.text;
      else if (part.type === 'reasoning' && typeof part.text === 'string') {
        const providerData = metadataData(part.providerMetadata);
        reasoning.push({ text: part.text, ...(providerData ? { providerData } : {}) });
      } else if (part.type === 'tool-call' && part.providerExecuted !== true) {
        const toolCall = toolCallOf(part);
        toolCalls.push({ ...toolCall, id: idOf(toolCall.id) });
      }
    }
    for (const warning of Array.isArray(result.warnings) ? result.warnings : [])
      warnings.push(warningText(warning));
    const response = isRecord(result.response) ? result.response : {};
    // Tool calls the AI SDK dropped — the deprecated single `function_call` (older Azure API
    // versions) — read from the raw body (a call without an id is `call_N`).
    if (toolCalls.length === 0 && isRecord(response.body)) {
      for (const [index, call] of (wholeMessage(response.body)?.calls ?? []).entries())
        toolCalls.push(parseToolCall({ ...call, id: call.id !== '' ? call.id : `call_${index}` }));
    }
    if (isInterrupted(result.finishReason)) throw this.#cut(text, requestIdOf(response.headers), 'response');
    this.#checkToolFinish(
      result.finishReason,
      toolCalls.length,
      text,
      requestIdOf(response.headers),
      request.tools,
    );
    const unknownCut = isUnknownFinish(result.finishReason)
      ? toolCalls.find(
          (call) => call.rawArguments.trim() !== '' && !isCompleteToolArguments(call.rawArguments),
        )
      : undefined;
    if (unknownCut) {
      throw truncatedToolCallError({
        provider: this.provider,
        call: unknownCut,
        rawFinishReason: rawReason(result.finishReason),
        requestId: requestIdOf(response.headers),
      });
    }
    if (isCutOff(result.finishReason)) {
      // A cut-off call: unparsable input, or (providers that parse it server-side, Anthropic)
      // the last thing the answer was writing.
      const lastPart = content.findLast(
        (part) =>
          isRecord(part) && (part.type === 'text' || part.type === 'tool-call' || part.type === 'reasoning'),
      );
      const cut =
        toolCalls.find((call) => !isCompleteToolArguments(call.rawArguments)) ??
        (isRecord(lastPart) && lastPart.type === 'tool-call' && lastPart.providerExecuted !== true
          ? toolCalls.at(-1)
          : undefined);
      if (cut) {
        throw truncatedToolCallError({
          provider: this.provider,
          call: cut,
          rawFinishReason: rawReason(result.finishReason),
          requestId: requestIdOf(response.headers),
        });
      }
    }
    return this.#result({
      text,
      reasoning,
      toolCalls,
      finishReason: result.finishReason,
      usage: result.usage,
      id: response.id,
      modelId: response.modelId,
      requestId: requestIdOf(response.headers),
      warnings,
    });
  }

  #result(parts: {
    text: string;
    reasoning: ReasoningPart[];
    toolCalls: ToolCall[];
    finishReason: unknown;
    usage: unknown;
    id: unknown;
    modelId: unknown;
    requestId: string | undefined;
    warnings: string[];
  }): GenerateResult {
    const { finishReason, rawFinishReason } = mapAISDKFinishReason(
      parts.finishReason,
      parts.toolCalls.length > 0,
    );
    const result: GenerateResult = {
      text: parts.text,
      toolCalls: parts.toolCalls,
      finishReason,
      usage: mapAISDKUsage(parts.usage),
    };
    if (rawFinishReason) result.rawFinishReason = rawFinishReason;
    if (parts.reasoning.length > 0) result.reasoning = parts.reasoning;
    const response: NonNullable<GenerateResult['response']> = {};
    if (typeof parts.id === 'string' && parts.id !== '') response.id = parts.id;
    if (typeof parts.modelId === 'string' && parts.modelId !== '') response.modelId = parts.modelId;
    if (parts.requestId) response.requestId = parts.requestId;
    result.response = response;
    if (parts.warnings.length > 0) result.warnings = parts.warnings;
    return result;
  }

  async *doStream(request: GenerateRequest, options: CallOptions = {}): AsyncGenerator<StreamPart> {
    const { signal } = options;
    const warnings: string[] = [];
    const call = this.#callOptions(request, signal ?? new AbortController().signal, warnings);
    const control = this.#controller(signal);
    call.abortSignal = control.signal;
    // Raw chunks fill in response metadata a provider left empty (Azure's first chunk has `id: ""`).
    call.includeRawChunks = true;
    let streamResult: unknown;
    try {
      streamResult = await this.#call('doStream', call);
    } catch (error) {
      control.dispose();
      throw this.#error(error, signal, control.state.timedOut);
    }
    control.stopTimer();
    const outer = isRecord(streamResult) ? streamResult : {};
    const stream = outer.stream as ReadableStream<unknown> | undefined;
    if (!stream || typeof stream.getReader !== 'function') {
      control.dispose();
      throw new ModelError({
        code: 'invalid-response',
        message: `${this.provider}: doStream returned no stream`,
        provider: this.provider,
      });
    }
    const headers = isRecord(outer.response) ? outer.response.headers : undefined;
    const requestId = requestIdOf(headers);
    const contentType = isRecord(headers)
      ? Object.entries(headers).find(([key]) => key.toLowerCase() === 'content-type')?.[1]
      : undefined;
    const reader = stream.getReader();
    const source: AsyncIterable<unknown> = {
      [Symbol.asyncIterator]: () => ({
        next: () => reader.read() as Promise<IteratorResult<unknown>>,
        return: async () => {
          await reader.cancel().catch(() => {});
          return { done: true, value: undefined };
        },
      }),
    };
    const parts = withStallTimeout(source, {
      idleMs: this.#options.streamIdleTimeoutMs ?? defaultStreamIdleTimeoutMs,
      onStall: (ms) => streamStallError(this.provider, ms, { received: text.length, requestId }),
    });
    let text = '';
    // Not a cut connection: the server answered with one JSON body (an error such as LM Studio's
    // 200 for a wrong path, or a whole response) that the AI SDK reads no events from.
    const jsonBody = (): ModelError | undefined =>
      typeof contentType === 'string' && isHtmlContentType(contentType) && text === ''
        ? htmlPageError({ provider: this.provider, contentType, requestId, streaming: true })
        : typeof contentType === 'string' && contentType.includes('json') && text === ''
          ? new ModelError({
              code: 'invalid-response',
              message: `${this.provider}: the server answered a streaming request with a JSON body (${contentType}), not an event stream${
                requestId ? ` (request ${requestId})` : ''
              }; check the baseURL, or call generate without streaming to see the body`,
              isRetryable: false,
              provider: this.provider,
              ...(requestId ? { requestId } : {}),
            })
          : undefined;
    const reasoning: ReasoningPart[] = [];
    const reasoningById = new Map<string, ReasoningPart>();
    const inputs = new Map<
      string,
      { ordinal: number; raw: string; id: string; name: string; called?: boolean; restated?: boolean }
    >();
    const held: ToolCall[] = [];
    const toolCalls: ToolCall[] = [];
    // LocalAI streams one call again at a further index with the same id; the AI SDK gives the
    // copy a new id. Raw chunks carry the wire ids: the first index of each, a copy announced by
    // a raw chunk and not yet started, and the copies (bridge id → the original's id, their text).
    const wireIndexes = new Map<string, number>();
    let repeatOf: string | undefined;
    const repeats = new Map<string, { of: string; raw: string }>();
    const startRepeat = (partId: string): boolean => {
      if (repeatOf === undefined || inputs.has(partId) || !inputs.has(repeatOf)) return false;
      repeats.set(partId, { of: repeatOf, raw: '' });
      repeatOf = undefined;
      return true;
    };
    let endedWithoutFinishReason = false;
    // Usage the AI SDK does not read (Groq's `x_groq.usage`, rejected chunks), from raw chunks.
    let rawUsage: Json | undefined;
    // The last raw chunk (an error part right after it is about it), and what the chunks the AI
    // SDK rejected carried: tool calls by wire index, and a finish reason.
    let lastRaw: Json | undefined;
    const rejectedCalls = new Map<number, { id: string; name: string; rawArguments: string }>();
    // The deprecated single `function_call` streamed in raw deltas (older Azure API versions),
    // which the AI SDK drops: one call without an id, returned when the AI SDK has no call of its own.
    let legacyCall: { id: string; name: string; rawArguments: string } | undefined;
    let rejectedFinish: string | undefined;
    let finish: Json | undefined;
    // The terminal raw chunk's finish reason and the usage reported from it on: the answer when
    // the server holds the connection open after it (the AI SDK's own finish never comes).
    let tailFinish: string | undefined;
    let tailUsage: Json | undefined;
    // Several choices streamed: the answer's choice index, whether the current chunk is another
    // choice's, and whether any was.
    let answerChoice: number | undefined;
    let otherChoice = false;
    let otherChoices = false;
    let id: unknown;
    let modelId: unknown;
    const reasoningFor = (partId: string): ReasoningPart => {
      let part = reasoningById.get(partId);
      if (!part) {
        part = { text: '' };
        reasoningById.set(partId, part);
        reasoning.push(part);
      }
      return part;
    };
    const noteMetadata = (part: ReasoningPart, metadata: unknown) => {
      const data = metadataData(metadata);
      if (data)
        part.providerData = {
          providerMetadata: {
            ...(part.providerData?.providerMetadata as Json),
            ...(data.providerMetadata as Json),
          },
        };
    };
    // A whole tool call the AI SDK did not stream (it rejected or ignored its chunk): its parts.
    function* wholeCall(call: { id: string; name: string; rawArguments: string }): Generator<StreamPart> {
      const toolCall = parseToolCall({ ...call, id: call.id !== '' ? call.id : `call_${inputs.size}` });
      const input = {
        ordinal: inputs.size,
        raw: toolCall.rawArguments,
        id: toolCall.id,
        name: toolCall.name,
        called: true,
      };
      inputs.set(toolCall.id, input);
      yield {
        type: 'tool-call-delta',
        index: input.ordinal,
        id: toolCall.id,
        name: toolCall.name,
        argumentsDelta: toolCall.rawArguments,
      };
      toolCalls.push(toolCall);
      if (isCompleteToolArguments(toolCall.rawArguments) || toolCall.rawArguments.trim() === '')
        yield { type: 'tool-call', toolCall };
      else held.push(toolCall);
    }
    let completed = false;
    try {
      while (true) {
        const { done, value } = await parts.next();
        if (done) break;
        // The finish part ends the answer: a model (or a bridge below it) that sends more after
        // it — a late delta, a tool call, an error, a second finish — does not change it.
        if (finish || !isRecord(value)) continue;
        const part = value;
        switch (part.type) {
          case 'stream-start':
            for (const warning of Array.isArray(part.warnings) ? part.warnings : [])
              warnings.push(warningText(warning));
            break;
          case 'response-metadata':
            if (typeof part.id === 'string' && part.id !== '') id ??= part.id;
            if (typeof part.modelId === 'string' && part.modelId !== '') modelId ??= part.modelId;
            break;
          case 'raw':
            lastRaw = isRecord(part.rawValue) ? part.rawValue : undefined;
            if (isRecord(part.rawValue)) {
              const chunk = part.rawValue;
              if (typeof chunk.id === 'string' && chunk.id !== '') id ??= chunk.id;
              if (typeof chunk.model === 'string' && chunk.model !== '') modelId ??= chunk.model;
              rawUsage = groqUsage(chunk) ?? rawUsage;
              // A server that streams several choices (`n` > 1, interleaved): the AI SDK reads each
              // chunk's first choice, whichever it is. The answer is the first choice seen; the
              // text of others is dropped, and tool calls of others cannot be told apart.
              const choiceIndex = choiceIndexOf(chunk);
              answerChoice ??= choiceIndex;
              otherChoice = choiceIndex !== undefined && choiceIndex !== answerChoice;
              if (otherChoice) {
                otherChoices = true;
                if (choiceHasToolCalls(chunk)) throw this.#otherChoiceCalls(choiceIndex, requestId);
                break;
              }
              const terminal = terminalReason(chunk);
              if (terminal !== undefined) {
                // The terminal chunk (a usage chunk may follow): a server that then holds the
                // connection open does not hold the complete answer.
                tailFinish = terminal;
                parts.complete();
              }
              if (tailFinish !== undefined) tailUsage = rawChunkUsage(chunk) ?? tailUsage;
              // A chunk in a completion's shape (`message`, not `delta`), which the AI SDK reads
              // as empty: its text and tool calls.
              const whole = wholeMessage(chunk);
              if (whole) {
                if (whole.text !== '') {
                  text += whole.text;
                  yield { type: 'text-delta', delta: whole.text };
                }
                for (const call of whole.calls) yield* wholeCall(call);
              }
              const legacy = legacyFunctionCallDelta(chunk);
              if (legacy) {
                legacyCall ??= { id: '', name: '', rawArguments: '' };
                // The name comes on the first delta (some servers repeat it): the first one counts.
                if (legacyCall.name === '') legacyCall.name = legacy.name;
                if (legacy.whole) legacyCall.rawArguments = legacy.arguments;
                else legacyCall.rawArguments += legacy.arguments;
              }
              for (const [index, wireId] of wireToolCallIds(chunk)) {
                const first = wireIndexes.get(wireId);
                if (first === undefined) wireIndexes.set(wireId, index);
                else if (first !== index) repeatOf = wireId;
              }
            }
            break;
          case 'text-delta':
            if (otherChoice) break;
            if (typeof part.delta === 'string' && part.delta !== '') {
              text += part.delta;
              yield { type: 'text-delta', delta: part.delta };
            }
            break;
          case 'reasoning-start':
          case 'reasoning-end':
            noteMetadata(reasoningFor(String(part.id)), part.providerMetadata);
            break;
          case 'reasoning-delta': {
            if (otherChoice) break;
            const reasoningPart = reasoningFor(String(part.id));
            noteMetadata(reasoningPart, part.providerMetadata);
            if (typeof part.delta === 'string' && part.delta !== '') {
              reasoningPart.text += part.delta;
              yield { type: 'reasoning-delta', delta: part.delta };
            }
            break;
          }
          case 'tool-input-start': {
            if (part.providerExecuted === true || startRepeat(String(part.id))) break;
            const input = { ordinal: inputs.size, raw: '', id: String(part.id), name: String(part.toolName) };
            inputs.set(String(part.id), input);
            yield {
              type: 'tool-call-delta',
              index: input.ordinal,
              id: String(part.id),
              name: String(part.toolName),
              argumentsDelta: '',
            };
            break;
          }
          case 'tool-input-delta': {
            const repeat = repeats.get(String(part.id));
            if (repeat && typeof part.delta === 'string') repeat.raw += part.delta;
            const input = inputs.get(String(part.id));
            if (input && typeof part.delta === 'string' && part.delta !== '') {
              // LiteLLM, GLM parsers and some proxies send a call's whole arguments again at the
              // end, which the AI SDK appends: the same arguments are dropped, others are an error
              // (see `restatedArguments`).
              const restated = restatedArguments(input.raw, part.delta);
              if (restated === 'same') {
                input.restated = true;
                break;
              }
              if (restated === 'different') throw this.#twoArgumentTexts(input, part.delta, requestId);
              if (restated === 'whole') {
                // vLLM's end-of-stream flush (GLM, xLAM parsers): the whole arguments from their
                // start after a partial stream replace it; the AI SDK appends them.
                input.restated = true;
                const rest = part.delta.startsWith(input.raw)
                  ? part.delta.slice(input.raw.length)
                  : part.delta;
                input.raw = part.delta;
                if (rest !== '')
                  yield { type: 'tool-call-delta', index: input.ordinal, argumentsDelta: rest };
                break;
              }
              input.raw += part.delta;
              yield { type: 'tool-call-delta', index: input.ordinal, argumentsDelta: part.delta };
            }
            break;
          }
          case 'tool-call': {
            if (part.providerExecuted === true) break;
            let toolCall = toolCallOf(part);
            const streamed = inputs.get(toolCall.id);
            // The AI SDK's input with a restatement appended: the arguments streamed before it.
            if (streamed?.restated)
              toolCall = { ...toolCall, ...parseToolCall({ ...toolCall, rawArguments: streamed.raw }) };
            if (repeats.has(toolCall.id) || startRepeat(toolCall.id)) {
              this.#checkRepeat(
                toolCall,
                inputs.get(repeats.get(toolCall.id)?.of ?? '')?.raw ?? '',
                requestId,
              );
              break;
            }
            let input = inputs.get(toolCall.id);
            if (!input) {
              input = { ordinal: inputs.size, raw: '', id: toolCall.id, name: toolCall.name };
              inputs.set(toolCall.id, input);
              yield {
                type: 'tool-call-delta',
                index: input.ordinal,
                id: toolCall.id,
                name: toolCall.name,
                argumentsDelta: '',
              };
            }
            // The deltas must add up to the final arguments.
            if (input.raw !== toolCall.rawArguments) {
              const rest = toolCall.rawArguments.startsWith(input.raw)
                ? toolCall.rawArguments.slice(input.raw.length)
                : toolCall.rawArguments;
              if (rest !== '') yield { type: 'tool-call-delta', index: input.ordinal, argumentsDelta: rest };
              input.raw = toolCall.rawArguments;
            }
            input.called = true;
            toolCalls.push(toolCall);
            // Unparsable input is held until the finish reason says whether it was cut off.
            if (isCompleteToolArguments(toolCall.rawArguments) || toolCall.rawArguments.trim() === '')
              yield { type: 'tool-call', toolCall };
            else held.push(toolCall);
            break;
          }
          case 'finish':
            finish = part;
            break;
          case 'error': {
            if (isEndedWithoutFinishReason(part.error)) {
              endedWithoutFinishReason = true;
              break;
            }
            // A keep-alive the AI SDK parsed as a chunk and rejected: no part of the answer.
            if (isKeepAlive(lastRaw)) {
              lastRaw = undefined;
              break;
            }
            // A chunk the AI SDK's schema rejected: read from its raw form, not a failed answer.
            const rejected = rejectedChunk(lastRaw);
            if (rejected && otherChoice) break;
            if (rejected) {
              lastRaw = undefined;
              if (Array.isArray(rejected.choices)) {
                for (const delta of this.#readRejected(rejected, rejectedCalls, reasoningFor)) {
                  if (delta.type === 'text-delta') text += delta.delta;
                  yield delta;
                }
                const choice: unknown = rejected.choices[0];
                if (
                  isRecord(choice) &&
                  typeof choice.finish_reason === 'string' &&
                  choice.finish_reason !== ''
                )
                  rejectedFinish = choice.finish_reason;
              }
              // The AI SDK's finish is now its `error` for the rejection: the answer's own finish
              // reason, when an earlier chunk carried it, stands.
              rejectedFinish ??= tailFinish;
              rawUsage = chatUsage(rejected.usage) ?? rawUsage;
              break;
            }
            const bare = bareErrorChunk(lastRaw);
            if (bare) throw this.#error(bare, signal, false, requestId);
            // The AI SDK reports a stream that ended early as an error part: a cut connection.
            if (isCutStream(part.error)) throw jsonBody() ?? this.#cut(text, requestId);
            throw this.#error(part.error, signal, false, requestId);
          }
        }
      }
      completed = true;
    } catch (error) {
      throw this.#error(error, signal);
    } finally {
      control.dispose();
      if (!completed) await reader.cancel().catch(() => {});
    }
    if (signal?.aborted) throw this.#error(signal.reason, signal);
    // Settled after the terminal chunk without the body's end: that chunk's finish and usage.
    if (!finish && tailFinish !== undefined)
      finish = { type: 'finish', finishReason: unifiedTerminal(tailFinish), usage: tailUsage };
    // The AI SDK's finish reason is the last chunk's, perhaps another choice's: the answer's own.
    if (finish && otherChoices && tailFinish !== undefined)
      finish = { ...finish, finishReason: unifiedTerminal(tailFinish) };
    for (const call of rejectedCalls.values()) yield* wholeCall(call);
    // A streamed deprecated `function_call`, unless the AI SDK read the answer's calls itself (a
    // server that sends both shapes): `call_0`, held like any call until the finish reason shows
    // it was not cut off.
    if (legacyCall && inputs.size === 0) {
      if (legacyCall.name === '')
        throw new ModelError({
          code: 'invalid-response',
          message: `${this.provider}: the streamed function_call has no function name${requestId ? ` (request ${requestId})` : ''}`,
          provider: this.provider,
          rawOutput: legacyCall.rawArguments,
          ...(requestId ? { requestId } : {}),
        });
      yield* wholeCall(legacyCall);
    }
    const usage = rawUsage && mapAISDKUsage(finish?.usage).totalTokens === 0 ? rawUsage : finish?.usage;
    if (endedWithoutFinishReason && !rejectedFinish) {
      const json = jsonBody();
      if (json) throw json;
      this.#checkWithoutFinishReason(inputs.values(), held, text, requestId);
      // The bridge cannot see `[DONE]`; a usage report, which servers send once generation has
      // ended, is its evidence. Without one, a body that just ended is a cut stream.
      if (mapAISDKUsage(usage).outputTokens <= 0) throw this.#cut(text, requestId);
    }
    // An answer read to its end without a finish reason is whole (checked above): a natural stop.
    // The finish reason of a chunk the AI SDK rejected, when the AI SDK has none of its own (its
    // `error` for the rejection, or none at all).
    const sdkReason = finish?.finishReason;
    const useRejected =
      rejectedFinish !== undefined &&
      finish !== undefined &&
      (endedWithoutFinishReason ||
        (unifiedReason(sdkReason) === 'error' && !(isRecord(sdkReason) && sdkReason.raw)));
    const reason = useRejected
      ? { unified: unifiedChatFinish(rejectedFinish as string), raw: rejectedFinish }
      : endedWithoutFinishReason
        ? { unified: 'stop', raw: undefined }
        : sdkReason;
    const unified = isRecord(reason) ? reason.unified : reason;
    const raw = isRecord(reason) ? reason.raw : reason;
    // A stream that ended without the provider's finish reason was cut off (the AI SDK still
    // closes it with a catch-all `other`/`unknown` finish, or v4's `interrupted`).
    if (
      !finish ||
      isInterrupted(reason) ||
      ((unified === 'other' || unified === 'unknown') && (raw === undefined || raw === 'unknown'))
    ) {
      throw jsonBody() ?? this.#cut(text, requestId);
    }
    // A tool input that never became a call (the provider dropped it at the cut), or a held call
    // with unparsable input in an answer that was cut off: never returned, never dropped silently.
    const unfinished = [...inputs.values()].find((input) => !input.called);
    const cut = unfinished
      ? { id: unfinished.id, name: unfinished.name, rawArguments: unfinished.raw }
      : isCutOff(reason)
        ? held[0]
        : undefined;
    if (cut) {
      throw truncatedToolCallError({
        provider: this.provider,
        call: cut,
        rawFinishReason: rawReason(reason),
        requestId,
      });
    }
    this.#checkToolFinish(reason, toolCalls.length, text, requestId, request.tools);
    const [unknownCut] = isUnknownFinish(reason) ? held : [];
    if (unknownCut) {
      throw truncatedToolCallError({
        provider: this.provider,
        call: unknownCut,
        rawFinishReason: rawReason(reason),
        requestId,
      });
    }
    for (const toolCall of held) yield { type: 'tool-call', toolCall };
    const result = this.#result({
      text,
      reasoning: reasoning.filter((part) => part.text !== '' || part.providerData !== undefined),
      toolCalls,
      finishReason: reason,
      usage,
      id,
      modelId,
      requestId,
      warnings,
    });
    if (endedWithoutFinishReason && !rejectedFinish) delete result.rawFinishReason;
    yield { type: 'finish', result };
  }
}

/**
 * Wraps an AI SDK language model (the `@ai-sdk/provider` specification v2, v3 or v4: AI SDK 5, 6
 * or 7 providers) as a closedloop `ChatModel`.
 *
 * @example
 * import { google } from '@ai-sdk/google';
 * const model = fromAISDK(google('gemini-2.5-pro'));
 */
export function fromAISDK(model: AISDKLanguageModel, options: FromAISDKOptions = {}): AISDKChatModel {
  return new AISDKChatModel(model, options);
}
