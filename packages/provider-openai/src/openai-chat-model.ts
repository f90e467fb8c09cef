import {
  type CallOptions,
  type ChatModel,
  type GenerateRequest,
  type GenerateResult,
  type ModelCapabilities,
  ModelError,
  type ReasoningPart,
  type StreamPart,
  type ToolCall,
  type ToolSpec,
} from '@closedloop/model';
import {
  checkStreamIdleTimeout,
  emptyAnswerError,
  htmlPageError,
  isCompleteToolArguments,
  isHtmlContentType,
  parseToolCall,
  rejectHtmlPage,
  restatedArguments,
  type StallGuardedStream,
  streamStallError,
  toolCallMarkup,
  truncatedToolCallError,
  withStallTimeout,
} from '@closedloop/model/provider';
import type OpenAI from 'openai';
import { APIError } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionTokenLogprob,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { buildOpenAIRequest, type OpenAIChatSettings } from './build-openai-request';
import { mapOpenAIError } from './map-openai-error';
import { genericCompatibleProfile, type OpenAICompatibleProfile } from './openai-compatible-profiles';
import {
  canonicalFinishReason,
  compatReasoning,
  confidenceFromLogprobs,
  errorPayload,
  findUsage,
  mapOpenAIFinishReason,
  mapOpenAIUsage,
  mergeReasoningDetails,
  reasoningParts,
  splitContent,
} from './parse-openai-response';
import { splitThinkTags, ThinkTagSplitter } from './think-tag-splitter';
import { streamEndedWithDone } from './without-empty-events';

/** What a provider hands each of its models. */
export interface OpenAIChatModelConfig {
  provider: string;
  /** Returns the (lazily created) SDK client; throws `ModelError('auth')` when no key is set. */
  client: () => OpenAI;
  /** Literal secrets to redact from error messages (the API key once known). */
  secrets: () => readonly string[];
  /** The server's quirks (default: the generic OpenAI-compatible profile). */
  profile?: OpenAICompatibleProfile;
  /** Longest silence of a stream between two chunks, in ms (`0` or absent: no limit). */
  streamIdleTimeoutMs?: number;
}

/** The slot key of a deprecated streamed `function_call` (wire indexes are >= 0). */
const legacyFunctionCall = -1;

interface PendingToolCall {
  id: string | undefined;
  name: string;
  rawArguments: string;
  /** Gemini's `extra_content` (the call's thought signature), sent back with the call. */
  extraContent?: Record<string, unknown>;
}

/** A tool call's `extra_content` object (Gemini's OpenAI endpoint), else `undefined`. */
function extraContentOf(call: unknown): Record<string, unknown> | undefined {
  const value = (call as { extra_content?: unknown } | null)?.extra_content;
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The parsed `ToolCall`, with the provider data the next request must send back. */
function toToolCall(call: PendingToolCall, id: string): ToolCall {
  const toolCall = parseToolCall({ id, name: call.name, rawArguments: call.rawArguments });
  if (call.extraContent) toolCall.providerData = { extraContent: call.extraContent };
  return toolCall;
}

/** A non-empty string, else `undefined` (servers send `""` for "unknown": Azure's first chunk). */
function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * A tool call's argument text. OpenAI sends a JSON string; some compatible servers (llama.cpp's
 * server, Ollama-style gateways) send the arguments as a JSON object, which is serialised here
 * rather than read as `"[object Object]"`.
 */
function argumentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return '';
}

/**
 * Finish reasons (canonical, see `canonicalFinishReason`) that cut an answer off wherever it was
 * (a tool call's arguments included).
 */
const cutOffFinishReasons: ReadonlySet<string> = new Set(['length', 'content_filter']);

/** Finish reasons (canonical) of an answer the model ended itself: its calls are as it wrote them. */
const endedFinishReasons: ReadonlySet<string> = new Set(['stop', 'tool_calls']);

/**
 * Finish reasons of an answer the server gave up on without an error object: `error` (OpenRouter,
 * Mistral), `abort` (vLLM: the request was aborted server-side, e.g. preempted or shut down).
 */
const failedFinishReasons: ReadonlySet<string> = new Set(['error', 'abort']);

/**
 * The chunk's choice 0: with `n` > 1 (or a server that answers with several choices anyway) the
 * chunks of other choices carry `index` 1, 2, … in `choices[0]` and must not be mixed in.
 */
function firstChoice(
  choices: ChatCompletionChunk['choices'] | null | undefined,
): ChatCompletionChunk.Choice | undefined {
  if (!Array.isArray(choices)) return undefined;
  const first = choices[0];
  if (first === undefined || typeof first.index !== 'number' || first.index === 0) return first;
  return choices.find((choice) => choice.index === 0);
}

/**
 * A whole `message` (a completion's shape) as the delta it stands for, its tool calls indexed:
 * servers that answer a streaming request with one non-stream-shaped chunk, or a JSON body.
 */
function messageAsDelta(message: ChatCompletion.Choice['message']): ChatCompletionChunk.Choice.Delta {
  const { tool_calls: toolCalls, ...rest } = message;
  return {
    ...rest,
    ...(toolCalls ? { tool_calls: toolCalls.map((call, index) => ({ ...call, index })) } : {}),
  } as ChatCompletionChunk.Choice.Delta;
}

/** Tool-call ids unique within a response: missing ids become `call_N`, repeats get a suffix. */
function uniqueIds(calls: ReadonlyArray<{ id: string | undefined }>): string[] {
  const seen = new Set<string>();
  return calls.map((call, index) => {
    let id = call.id ?? `call_${index}`;
    for (let n = 2; seen.has(id); n++) id = `${call.id ?? `call_${index}`}_${n}`;
    seen.add(id);
    return id;
  });
}

/**
 * A `ChatModel` over OpenAI's Chat Completions API (or any server that speaks it), through the
 * official `openai` SDK with `maxRetries: 0`. Created by `createOpenAI(...)(modelId)`.
 */
export class OpenAIChatModel implements ChatModel {
  readonly specificationVersion = 'v1' as const;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly #settings: OpenAIChatSettings;
  readonly #config: OpenAIChatModelConfig;

  constructor(options: {
    modelId: string;
    settings: OpenAIChatSettings;
    capabilities: ModelCapabilities;
    config: OpenAIChatModelConfig;
  }) {
    checkStreamIdleTimeout({
      factory: 'OpenAIChatModel',
      provider: options.config.provider,
      streamIdleTimeoutMs: options.config.streamIdleTimeoutMs,
    });
    this.modelId = options.modelId;
    this.provider = options.config.provider;
    this.capabilities = options.capabilities;
    this.#settings = options.settings;
    this.#config = options.config;
  }

  get #profile(): OpenAICompatibleProfile {
    return this.#config.profile ?? genericCompatibleProfile;
  }

  #body(request: GenerateRequest, stream: boolean, warnings: string[]) {
    return buildOpenAIRequest({
      provider: this.provider,
      modelId: this.modelId,
      request,
      capabilities: this.capabilities,
      settings: this.#settings,
      stream,
      profile: this.#profile,
      warnings,
    });
  }

  /** A stream chunk that is an error object (`{ object: 'error', … }`) as the SDK's `APIError`. */
  #errorChunk(chunk: Record<string, unknown>, signal: AbortSignal | undefined): ModelError {
    return this.#error(new APIError(undefined, chunk, undefined, undefined), signal);
  }

  #error(error: unknown, signal: AbortSignal | undefined): ModelError {
    return mapOpenAIError(error, { provider: this.provider, signal, secrets: this.#config.secrets() });
  }

  #invalid(message: string, requestId: string | undefined, rawOutput?: string): ModelError {
    return new ModelError({
      code: 'invalid-response',
      message: `${this.provider}: ${message}${requestId ? ` (request ${requestId})` : ''}`,
      provider: this.provider,
      ...(requestId ? { requestId } : {}),
      ...(rawOutput !== undefined ? { rawOutput } : {}),
    });
  }

  async doGenerate(request: GenerateRequest, options: CallOptions = {}): Promise<GenerateResult> {
    const { signal } = options;
    let completion: ChatCompletion;
    let requestId: string | undefined;
    const warnings: string[] = [];
    try {
      const body = this.#body(request, false, warnings) as ChatCompletionCreateParamsNonStreaming;
      const { data, request_id, response } = await this.#config
        .client()
        .chat.completions.create(body, { signal })
        .withResponse();
      completion = data;
      requestId = request_id ?? undefined;
      const contentType = response.headers.get('content-type');
      if (isHtmlContentType(contentType)) {
        throw htmlPageError({
          provider: this.provider,
          contentType: contentType ?? '',
          body: typeof data === 'string' ? data : undefined,
          requestId,
          streaming: false,
        });
      }
    } catch (error) {
      throw this.#error(error, signal);
    }
    const failure = errorPayload(completion);
    if (failure) throw this.#errorChunk(failure, signal);
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    if (!choice || typeof choice.message !== 'object' || choice.message === null) {
      throw this.#invalid('the response has no choices[0].message', requestId, JSON.stringify(completion));
    }
    const message = choice.message;
    const calls: PendingToolCall[] = [];
    for (const call of message.tool_calls ?? []) {
      if (call.type !== undefined && call.type !== 'function') continue;
      const extraContent = extraContentOf(call);
      calls.push({
        id: nonEmpty(call.id),
        name: call.function?.name ?? '',
        rawArguments: argumentText(call.function?.arguments),
        ...(extraContent ? { extraContent } : {}),
      });
    }
    // The deprecated single `function_call` (older Azure API versions, some compatible servers).
    if (calls.length === 0 && message.function_call?.name) {
      calls.push({
        id: undefined,
        name: message.function_call.name,
        rawArguments: argumentText(message.function_call.arguments),
      });
    }
    const answerText = splitContent(message.content).text;
    if (!canonicalFinishReason(choice.finish_reason)) {
      this.#checkWithoutFinishReason(calls, requestId, answerText + (message.refusal ?? ''));
    }
    this.#checkFinish(choice.finish_reason, calls, requestId, answerText, request.tools);
    this.#checkEmpty(choice.finish_reason, calls, requestId, answerText + (message.refusal ?? ''));
    const ids = uniqueIds(calls);
    const toolCalls = calls.map((call, index) => toToolCall(call, ids[index] as string));
    const refusal =
      typeof message.refusal === 'string' && message.refusal !== '' ? message.refusal : undefined;
    const content = splitContent(message.content);
    const field = compatReasoning(message, this.#profile.reasoningFields);
    let reasoning =
      field ?? (content.reasoning !== '' ? { text: content.reasoning, field: 'content' } : undefined);
    let text = content.text;
    if (this.#profile.thinkTags && !reasoning) {
      const split = splitThinkTags(text);
      if (split.reasoning !== '') {
        reasoning = { text: split.reasoning, field: 'think-tags' };
        text = split.text;
      }
    }
    return this.#result({
      text: text !== '' ? text : (refusal ?? ''),
      toolCalls,
      rawFinishReason: choice.finish_reason,
      // A whole body without a finish_reason (some gateways): the answer is all there.
      impliedFinishReason: 'stop',
      refused: refusal !== undefined,
      usage: findUsage(completion),
      logprobs: choice.logprobs?.content,
      reasoning,
      reasoningDetails: mergeReasoningDetails(
        [],
        (message as unknown as Record<string, unknown>).reasoning_details,
      ),
      id: nonEmpty(completion.id),
      model: nonEmpty(completion.model),
      requestId,
      warnings,
    });
  }

  /** A JSON body sent to a streaming request, as the one chunk it stands for (or its error). */
  #jsonAsChunk(
    body: unknown,
    signal: AbortSignal | undefined,
    requestId: string | undefined,
  ): ChatCompletionChunk {
    const failure = errorPayload(body);
    if (failure) throw this.#errorChunk(failure, signal);
    const completion = body as Partial<ChatCompletion> | null;
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    if (!completion || !choice || typeof choice.message !== 'object' || choice.message === null) {
      throw this.#invalid(
        'the server answered a streaming request with a JSON body that is neither a completion nor an error',
        requestId,
        JSON.stringify(body),
      );
    }
    return {
      ...(completion as object),
      object: 'chat.completion.chunk',
      choices: [
        {
          index: 0,
          delta: messageAsDelta(choice.message),
          finish_reason: choice.finish_reason,
          logprobs: choice.logprobs ?? null,
        },
      ],
    } as ChatCompletionChunk;
  }

  /**
   * Throws for an answer that ended cleanly (a whole body, or a stream's `[DONE]`) but without a
   * finish_reason — vLLM-MLX, Gemini proxies and some gateways send none on a natural stop, and
   * report `length` when they cut — yet cannot be whole: a tool call with partial arguments, or
   * nothing at all. Both are the server's fault and retryable.
   */
  #checkWithoutFinishReason(
    calls: readonly PendingToolCall[],
    requestId: string | undefined,
    text: string,
  ): void {
    const cut = calls.find(
      (call) => call.rawArguments.trim() !== '' && !isCompleteToolArguments(call.rawArguments),
    );
    const where = requestId ? ` (request ${requestId})` : '';
    if (cut) {
      throw new ModelError({
        code: 'invalid-response',
        message: `${this.provider}: the answer ended without a finish_reason inside tool call ${JSON.stringify(cut.name)}${
          cut.id ? ` (${cut.id})` : ''
        } after ${cut.rawArguments.length} characters of arguments that are not complete JSON; the call is incomplete and was not returned, so nothing ran${where}`,
        isRetryable: true,
        provider: this.provider,
        rawOutput: cut.rawArguments,
        ...(requestId ? { requestId } : {}),
      });
    }
    if (calls.length === 0 && text === '') {
      throw new ModelError({
        code: 'network',
        message: `${this.provider}: the server ended the answer without a finish_reason and without any text or tool call${where}`,
        provider: this.provider,
        ...(requestId ? { requestId } : {}),
      });
    }
  }

  /**
   * Throws for an answer with nothing in it (no text, refusal or call) and a finish reason that
   * says neither "done" nor why it was cut (Ollama's `done_reason: "load"`): see {@link emptyAnswerError}.
   */
  #checkEmpty(
    rawFinishReason: string | null | undefined,
    calls: readonly PendingToolCall[],
    requestId: string | undefined,
    text: string,
  ): void {
    const empty = emptyAnswerError({
      provider: this.provider,
      finishReason: mapOpenAIFinishReason(rawFinishReason, { hasToolCalls: calls.length > 0 }),
      rawFinishReason,
      text,
      toolCalls: calls.length,
      requestId,
    });
    if (empty) throw empty;
  }

  /**
   * Throws for an answer that must not be returned: `finish_reason: "error"` (the server gave up
   * mid-answer without an error object), a cut-off (`length`, `content_filter`) inside a tool
   * call's arguments, or a finish reason no mapping knows with a call whose arguments are not
   * complete JSON (cut, as far as anyone can tell).
   */
  #checkFinish(
    rawFinishReason: string | null | undefined,
    calls: readonly PendingToolCall[],
    requestId: string | undefined,
    text: string,
    tools: readonly ToolSpec[] | undefined,
  ): void {
    const reason = canonicalFinishReason(rawFinishReason);
    if (reason && failedFinishReasons.has(reason)) {
      throw new ModelError({
        code: 'network',
        message: `${this.provider}: the server ended the answer with finish_reason "${rawFinishReason}" and no error details${
          requestId ? ` (request ${requestId})` : ''
        }; the answer is incomplete`,
        provider: this.provider,
        ...(requestId ? { requestId } : {}),
      });
    }
    if (reason === 'insufficient_system_resource') {
      // DeepSeek: "the request is interrupted due to insufficient resource of the inference system".
      throw new ModelError({
        code: 'overloaded',
        message: `${this.provider}: the server interrupted the answer (finish_reason "insufficient_system_resource"${
          requestId ? `, request ${requestId}` : ''
        }); retry with backoff`,
        provider: this.provider,
        ...(requestId ? { requestId } : {}),
      });
    }
    if (calls.length === 0 && reason === 'tool_calls') {
      // vLLM without a tool parser (or whose parser failed) says "tool_calls" and sends none: the
      // call the model meant is in the text, if anywhere. Not an answer, and nothing to run.
      throw this.#invalid(
        `finish_reason is "${rawFinishReason}" but no tool call arrived (the server did not parse the model's tool call; check its tool-call parser)`,
        requestId,
        text,
      );
    }
    const markup =
      calls.length === 0 && tools !== undefined
        ? toolCallMarkup(
            text,
            tools.map((tool) => tool.name),
          )
        : undefined;
    if (markup !== undefined) {
      // The same server without a parser, ending with `stop`: the call is in the text, unrun.
      throw this.#invalid(
        `the answer holds a call of "${markup.name}" as ${markup.format} markup in its text, and no tool call (the server did not parse the model's tool call; check its tool-call parser)`,
        requestId,
        text,
      );
    }
    if (!reason || endedFinishReasons.has(reason)) return;
    // A cut-off stops a call wherever it was; a reason no one knows (a gateway's `end`, `eos_id`)
    // says nothing about the calls, so one whose arguments are not complete JSON was cut too.
    const cut = cutOffFinishReasons.has(reason)
      ? calls.find((call) => !isCompleteToolArguments(call.rawArguments))
      : calls.find((call) => call.rawArguments.trim() !== '' && !isCompleteToolArguments(call.rawArguments));
    if (cut) {
      throw truncatedToolCallError({
        provider: this.provider,
        call: cut,
        rawFinishReason: rawFinishReason as string,
        requestId,
      });
    }
  }

  #result(parts: {
    text: string;
    toolCalls: ToolCall[];
    rawFinishReason: string | null | undefined;
    /** The finish reason mapped when the server sent none (it ended the answer cleanly). */
    impliedFinishReason?: string;
    refused: boolean;
    usage: CompletionUsage | null | undefined;
    logprobs: ReadonlyArray<ChatCompletionTokenLogprob> | null | undefined;
    reasoning: { text: string; field: string } | undefined;
    /** OpenRouter's structured reasoning, sent back as is on the next turn. */
    reasoningDetails?: Array<Record<string, unknown>>;
    id: string | undefined;
    model: string | undefined;
    requestId: string | undefined;
    warnings: string[];
  }): GenerateResult {
    const result: GenerateResult = {
      text: parts.text,
      toolCalls: parts.toolCalls,
      finishReason: mapOpenAIFinishReason(
        canonicalFinishReason(parts.rawFinishReason) ?? parts.impliedFinishReason,
        {
          hasToolCalls: parts.toolCalls.length > 0,
          refused: parts.refused,
        },
      ),
      usage: mapOpenAIUsage(parts.usage),
    };
    if (parts.rawFinishReason) result.rawFinishReason = parts.rawFinishReason;
    const reasoning = reasoningParts(parts.reasoning?.text, parts.reasoning?.field) ?? [];
    if (parts.reasoningDetails?.length) {
      if (reasoning.length === 0) reasoning.push({ text: '' });
      const first = reasoning[0] as ReasoningPart;
      first.providerData = { ...first.providerData, reasoningDetails: parts.reasoningDetails };
    }
    if (reasoning.length > 0) result.reasoning = reasoning;
    const confidence = confidenceFromLogprobs(parts.logprobs);
    if (confidence !== undefined) result.confidence = confidence;
    const response: NonNullable<GenerateResult['response']> = {};
    if (parts.id) response.id = parts.id;
    if (parts.model) response.modelId = parts.model;
    if (parts.requestId) response.requestId = parts.requestId;
    result.response = response;
    if (parts.warnings.length > 0) result.warnings = parts.warnings;
    return result;
  }

  async *doStream(request: GenerateRequest, options: CallOptions = {}): AsyncGenerator<StreamPart> {
    const { signal } = options;
    let stream: StallGuardedStream<ChatCompletionChunk> | Iterable<ChatCompletionChunk>;
    let requestId: string | undefined;
    let httpResponse: Response;
    // A whole JSON body read as one chunk: it ended cleanly whatever its finish_reason.
    let wholeBody = false;
    const warnings: string[] = [];
    try {
      const body = this.#body(request, true, warnings) as ChatCompletionCreateParamsStreaming;
      const { data, request_id, response } = await this.#config
        .client()
        .chat.completions.create(body, { signal })
        .withResponse();
      httpResponse = response;
      requestId = request_id ?? undefined;
      const id = requestId;
      stream = withStallTimeout(data, {
        idleMs: this.#config.streamIdleTimeoutMs ?? 0,
        onStall: (ms) => streamStallError(this.provider, ms, { requestId: id }),
        cancel: () => data.controller.abort(),
      });
      // A web page (a web UI, a login): the SDK would read no events from it.
      await rejectHtmlPage(response, { provider: this.provider, requestId, streaming: true });
      const contentType = response.headers.get('content-type');
      if ((contentType ?? '').includes('json')) {
        wholeBody = true;
        // A JSON body instead of an event stream (the SDK would read no events from it): an error
        // object is thrown like one in a stream; a whole completion (a server that ignores
        // `stream: true`) is read as a single chunk.
        stream = [this.#jsonAsChunk(JSON.parse(await response.text()), signal, requestId)];
      }
    } catch (error) {
      throw this.#error(error, signal);
    }

    const fields = this.#profile.reasoningFields;
    const thinkTags = this.#profile.thinkTags ? new ThinkTagSplitter() : undefined;
    let text = '';
    let refusal = '';
    let reasoning = '';
    let reasoningField: string | undefined;
    const calls: PendingToolCall[] = [];
    // Wire index → position in `calls` (servers that reuse index 0 for every call get new slots).
    const slots = new Map<number, number>();
    const logprobs: ChatCompletionTokenLogprob[] = [];
    const reasoningDetails: Array<Record<string, unknown>> = [];
    let rawFinishReason: string | null | undefined;
    let usage: CompletionUsage | undefined;
    let id: string | undefined;
    let model: string | undefined;
    try {
      for await (const chunk of stream) {
        const failure = errorPayload(chunk);
        if (failure) throw this.#errorChunk(failure, signal);
        // Azure's model router sends a first chunk with `id: ""` and `model: ""`: keep the first real values.
        id ??= nonEmpty(chunk.id);
        model ??= nonEmpty(chunk.model);
        usage = findUsage(chunk) ?? usage;
        const choice = firstChoice(chunk.choices);
        if (!choice) continue;
        if (choice.finish_reason) {
          rawFinishReason = choice.finish_reason;
          // The terminal chunk (a usage chunk and `[DONE]` may follow): a server that then holds
          // the connection open does not hold the complete answer.
          if ('complete' in stream) stream.complete();
        }
        if (choice.logprobs?.content) logprobs.push(...choice.logprobs.content);
        // A chunk in a completion's shape (`message`, not `delta`; some gateways send the whole
        // answer as one such chunk) is the delta it stands for, not an empty one.
        const whole = (choice as { message?: ChatCompletion.Choice['message'] | null }).message;
        const delta =
          choice.delta ?? (whole && typeof whole === 'object' ? messageAsDelta(whole) : undefined);
        if (!delta) continue;
        mergeReasoningDetails(
          reasoningDetails,
          (delta as unknown as Record<string, unknown>).reasoning_details,
        );
        const content = splitContent(delta.content);
        const fieldReasoning = compatReasoning(delta, fields);
        const tagged = thinkTags && content.text !== '' ? thinkTags.push(content.text) : undefined;
        const answer = tagged ? tagged.text : content.text;
        const reasoningDelta = (fieldReasoning?.text ?? '') + content.reasoning + (tagged?.reasoning ?? '');
        if (reasoningDelta !== '') {
          reasoningField ??= fieldReasoning?.field ?? (tagged?.reasoning ? 'think-tags' : 'content');
          reasoning += reasoningDelta;
          yield { type: 'reasoning-delta', delta: reasoningDelta };
        }
        if (answer !== '') {
          text += answer;
          yield { type: 'text-delta', delta: answer };
        }
        if (typeof delta.refusal === 'string' && delta.refusal !== '') refusal += delta.refusal;
        const legacy = delta.function_call;
        if (legacy && (legacy.name || legacy.arguments)) {
          // The deprecated single `function_call`, streamed like a tool call without an id.
          let slot = slots.get(legacyFunctionCall);
          if (slot === undefined) {
            slot = calls.length;
            slots.set(legacyFunctionCall, slot);
            calls.push({ id: undefined, name: '', rawArguments: '' });
          }
          const call = calls[slot] as PendingToolCall;
          const name = nonEmpty(legacy.name);
          if (name && call.name === '') call.name = name;
          const argumentsDelta = argumentText(legacy.arguments);
          call.rawArguments += argumentsDelta;
          const part: StreamPart = { type: 'tool-call-delta', index: slot, argumentsDelta };
          if (name) part.name = name;
          yield part;
        }
        for (const [position, callDelta] of (delta.tool_calls ?? []).entries()) {
          const wireIndex = typeof callDelta.index === 'number' ? callDelta.index : position;
          const callId = nonEmpty(callDelta.id);
          const name = nonEmpty(callDelta.function?.name);
          let argumentsDelta = argumentText(callDelta.function?.arguments);
          let slot = slots.get(wireIndex);
          if (slot === undefined && callId !== undefined) {
            // LocalAI sends one call again at further indexes, with its id: the same call.
            const known = calls.findIndex((call) => call.id === callId);
            if (known !== -1) {
              slot = known;
              slots.set(wireIndex, slot);
            }
          }
          const existing = slot === undefined ? undefined : calls[slot];
          const restated = existing ? restatedArguments(existing.rawArguments, argumentsDelta) : 'no';
          // A new id on a used index is a new call (Ollama-style streams put every call at index 0),
          // and so is a named chunk with other whole arguments after a complete call (the same
          // without ids).
          if (
            existing === undefined ||
            (callId !== undefined && existing.id !== undefined && existing.id !== callId) ||
            (restated === 'different' && name !== undefined && callId === undefined)
          ) {
            slot = calls.length;
            slots.set(wireIndex, slot);
            calls.push({ id: undefined, name: '', rawArguments: '' });
          } else if (restated === 'same') {
            // LiteLLM, GLM parsers and some proxies send a call's whole arguments again at the
            // end: appending them would double the JSON.
            argumentsDelta = '';
          } else if (restated === 'whole') {
            // vLLM's end-of-stream flush (GLM, xLAM parsers): the whole arguments from their start
            // after a partial stream replace it; the delta is their rest when they extend it.
            if (argumentsDelta.startsWith(existing.rawArguments))
              argumentsDelta = argumentsDelta.slice(existing.rawArguments.length);
            else existing.rawArguments = '';
          } else if (restated === 'different') {
            throw this.#invalid(
              `tool call ${JSON.stringify(existing.name)} got two different complete argument texts (${JSON.stringify(
                existing.rawArguments,
              )}, then ${JSON.stringify(argumentsDelta)}); which one the model meant is unknown`,
              requestId,
              existing.rawArguments + argumentsDelta,
            );
          }
          const call = calls[slot as number] as PendingToolCall;
          if (callId) call.id ??= callId;
          const extraContent = extraContentOf(callDelta);
          if (extraContent) call.extraContent = { ...call.extraContent, ...extraContent };
          // Some servers repeat the name on every chunk: keep the first.
          if (name && call.name === '') call.name = name;
          call.rawArguments += argumentsDelta;
          const part: StreamPart = { type: 'tool-call-delta', index: slot as number, argumentsDelta };
          if (callId) part.id = callId;
          if (name) part.name = name;
          yield part;
        }
      }
    } catch (error) {
      throw this.#error(error, signal);
    }
    // The SDK ends iteration quietly when the request is aborted mid-stream.
    if (signal?.aborted) throw this.#error(signal.reason, signal);
    const held = thinkTags?.flush();
    if (held?.reasoning) {
      reasoning += held.reasoning;
      yield { type: 'reasoning-delta', delta: held.reasoning };
    }
    if (held?.text) {
      text += held.text;
      yield { type: 'text-delta', delta: held.text };
    }
    if (!rawFinishReason) {
      // `[DONE]` without a finish_reason is a server that ended the answer without saying why
      // (vLLM-MLX, Gemini proxies, some gateways); without `[DONE]` the connection closed early.
      if (!wholeBody && streamEndedWithDone(httpResponse) !== true) {
        throw new ModelError({
          code: 'network',
          message: `${this.provider}: the stream ended before a finish_reason (connection closed early after ${text.length} characters)${
            requestId ? ` (request ${requestId})` : ''
          }`,
          provider: this.provider,
          ...(requestId ? { requestId } : {}),
        });
      }
      this.#checkWithoutFinishReason(calls, requestId, text + refusal);
    }
    this.#checkFinish(rawFinishReason, calls, requestId, text, request.tools);
    this.#checkEmpty(rawFinishReason, calls, requestId, text + refusal);
    const ids = uniqueIds(calls);
    const toolCalls: ToolCall[] = [];
    for (const [index, call] of calls.entries()) {
      if (call.name === '')
        throw this.#invalid(`streamed tool call ${index} has no function name`, requestId);
      const toolCall = toToolCall(call, ids[index] as string);
      toolCalls.push(toolCall);
      yield { type: 'tool-call', toolCall };
    }
    if (text === '' && refusal !== '') {
      text = refusal;
      yield { type: 'text-delta', delta: refusal };
    }
    yield {
      type: 'finish',
      result: this.#result({
        text,
        toolCalls,
        rawFinishReason,
        impliedFinishReason: 'stop',
        refused: refusal !== '',
        usage,
        logprobs,
        reasoning:
          reasoning === '' ? undefined : { text: reasoning, field: reasoningField ?? 'reasoning_content' },
        reasoningDetails,
        id,
        model,
        requestId,
        warnings,
      }),
    };
  }
}
