import {
  type CallOptions,
  type ChatModel,
  type FinishReason,
  type GenerateRequest,
  type GenerateResult,
  type ModelCapabilities,
  ModelError,
  type ReasoningPart,
  type StreamPart,
  type ToolCall,
  type Usage,
} from '@closedloop/model';
import {
  checkStreamIdleTimeout,
  emptyAnswerError,
  htmlPageError,
  isCompleteToolArguments,
  isHtmlContentType,
  jsonSyntaxMessage,
  parseToolCall,
  rejectHtmlPage,
  responseToolCallIds,
  resultToStream,
  type StallGuardedStream,
  streamStallError,
  truncatedToolCallError,
  withStallTimeout,
} from '@closedloop/model/provider';
import { APIError } from 'openai';
import type {
  ResponseCreateParamsNonStreaming,
  ResponseCreateParamsStreaming,
} from 'openai/resources/responses/responses';
import { buildResponsesRequest, type OpenAIResponsesSettings } from './build-responses-request';
import { mapOpenAIError } from './map-openai-error';
import type { OpenAIChatModelConfig } from './openai-chat-model';

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** Maps Responses usage: input (with cached) and output (with reasoning) tokens. */
export function mapResponsesUsage(usage: unknown): Usage {
  const raw = isRecord(usage) ? usage : {};
  const inputTokens = count(raw.input_tokens) ?? 0;
  const outputTokens = count(raw.output_tokens) ?? 0;
  const mapped: Usage = {
    inputTokens,
    outputTokens,
    totalTokens: count(raw.total_tokens) ?? inputTokens + outputTokens,
  };
  const inputDetails = isRecord(raw.input_tokens_details) ? raw.input_tokens_details : {};
  const outputDetails = isRecord(raw.output_tokens_details) ? raw.output_tokens_details : {};
  const cached = count(inputDetails.cached_tokens);
  if (cached !== undefined) mapped.cachedInputTokens = cached;
  const reasoning = count(outputDetails.reasoning_tokens);
  if (reasoning !== undefined) mapped.reasoningTokens = reasoning;
  return mapped;
}

/**
 * The finish reason of a Responses API response: `completed` → `stop` (or `tool-calls` when it
 * called functions, `refusal` when it refused); `incomplete` by its reason (`max_output_tokens`
 * → `length`, `content_filter` → `content-filter`, anything else → `unknown`). Returns the raw
 * reason too (the incomplete reason, else the status).
 */
export function mapResponsesFinishReason(
  response: Json,
  options: { hasToolCalls: boolean; refused: boolean },
): { finishReason: FinishReason; rawFinishReason: string | undefined } {
  const status = text(response.status);
  const incomplete = isRecord(response.incomplete_details)
    ? text(response.incomplete_details.reason)
    : undefined;
  if (status === 'incomplete' || incomplete !== undefined) {
    const reason = incomplete ?? 'incomplete';
    const finishReason: FinishReason =
      reason === 'max_output_tokens' ? 'length' : reason === 'content_filter' ? 'content-filter' : 'unknown';
    return { finishReason, rawFinishReason: reason };
  }
  if (status === 'completed' || status === undefined) {
    const finishReason: FinishReason = options.hasToolCalls
      ? 'tool-calls'
      : options.refused
        ? 'refusal'
        : 'stop';
    return { finishReason, rawFinishReason: status };
  }
  return { finishReason: 'unknown', rawFinishReason: status };
}

/** A reasoning output item as a `ReasoningPart` (summary text, encrypted content as signature, item id). */
function reasoningPart(item: Json): ReasoningPart {
  const summary = Array.isArray(item.summary) ? item.summary : [];
  const content = Array.isArray(item.content) ? item.content : [];
  const pieces = (summary.length > 0 ? summary : content)
    .map((entry) => (isRecord(entry) && typeof entry.text === 'string' ? entry.text : ''))
    .filter((entry) => entry !== '');
  const part: ReasoningPart = { text: pieces.join('\n\n') };
  const encrypted = text(item.encrypted_content);
  if (encrypted) part.signature = encrypted;
  const id = text(item.id);
  if (id) part.providerData = { itemId: id };
  return part;
}

/** Response statuses that hold no finished answer (a background response, a cancelled one). */
const unfinishedStatuses: ReadonlySet<string> = new Set(['queued', 'in_progress', 'cancelled']);

/** The `output_text` of the `message` items of a response's `output`, joined. */
function outputText(output: readonly Json[]): string {
  let answer = '';
  for (const item of output) {
    if (item.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const content of item.content)
      if (isRecord(content) && content.type === 'output_text' && typeof content.text === 'string')
        answer += content.text;
  }
  return answer;
}

interface PendingCall {
  itemId: string | undefined;
  callId: string | undefined;
  name: string;
  rawArguments: string;
  ordinal: number;
  /** `output_item.done` arrived. */
  done?: boolean;
  /** Its `tool-call` part was yielded. */
  returned?: boolean;
}

/**
 * The incomplete reason of a response cut off wherever it was (`max_output_tokens`,
 * `content_filter`), else `undefined`.
 */
function cutOffReason(response: Json): string | undefined {
  if (text(response.status) !== 'incomplete' && !isRecord(response.incomplete_details)) return undefined;
  return (
    (isRecord(response.incomplete_details) ? text(response.incomplete_details.reason) : undefined) ??
    'incomplete'
  );
}

/** A function_call item the cut-off left unfinished: its status says so, or its arguments do. */
function isUnfinishedCall(status: unknown, rawArguments: string): boolean {
  return status === 'incomplete' || status === 'in_progress' || !isCompleteToolArguments(rawArguments);
}

/**
 * A `ChatModel` over OpenAI's Responses API through the official `openai` SDK
 * (`client.responses.create`, `maxRetries: 0`). Created by `createOpenAI(...).responses(modelId)`.
 * Stateless: `store: false`, and reasoning items (with encrypted content) come back as
 * `ReasoningPart`s that carry the model's reasoning into the next tool step when kept on the
 * assistant message.
 */
export class OpenAIResponsesModel implements ChatModel {
  readonly specificationVersion = 'v1' as const;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly #settings: OpenAIResponsesSettings;
  readonly #config: OpenAIChatModelConfig;

  constructor(options: {
    modelId: string;
    settings: OpenAIResponsesSettings;
    capabilities: ModelCapabilities;
    config: OpenAIChatModelConfig;
  }) {
    checkStreamIdleTimeout({
      factory: 'OpenAIResponsesModel',
      provider: options.config.provider,
      streamIdleTimeoutMs: options.config.streamIdleTimeoutMs,
    });
    this.modelId = options.modelId;
    this.provider = options.config.provider;
    this.capabilities = options.capabilities;
    this.#settings = options.settings;
    this.#config = options.config;
  }

  #body(request: GenerateRequest, stream: boolean, warnings: string[]) {
    return buildResponsesRequest({
      provider: this.provider,
      modelId: this.modelId,
      request,
      capabilities: this.capabilities,
      settings: this.#settings,
      stream,
      warnings,
      ...(this.#config.profile ? { profile: this.#config.profile } : {}),
    });
  }

  #error(error: unknown, signal: AbortSignal | undefined): ModelError {
    return mapOpenAIError(error, { provider: this.provider, signal, secrets: this.#config.secrets() });
  }

  /** An error reported in the body (`response.failed`, an `error` event) as the SDK's `APIError`. */
  #bodyError(error: unknown, signal: AbortSignal | undefined): ModelError {
    const body = isRecord(error) ? error : { message: String(error) };
    return this.#error(new APIError(undefined, body, undefined, undefined), signal);
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

  #result(parts: {
    response: Json;
    text: string;
    refusal: string;
    toolCalls: ToolCall[];
    reasoning: ReasoningPart[];
    requestId: string | undefined;
    warnings: string[];
  }): GenerateResult {
    const { finishReason, rawFinishReason } = mapResponsesFinishReason(parts.response, {
      hasToolCalls: parts.toolCalls.length > 0,
      refused: parts.text === '' && parts.refusal !== '',
    });
    // A status no mapping knows, with no text and no call: not an answer to return.
    const empty = emptyAnswerError({
      provider: this.provider,
      finishReason,
      rawFinishReason,
      text: parts.text !== '' ? parts.text : parts.refusal,
      toolCalls: parts.toolCalls.length,
      requestId: parts.requestId,
    });
    if (empty) throw empty;
    const result: GenerateResult = {
      text: parts.text !== '' ? parts.text : parts.refusal,
      toolCalls: parts.toolCalls,
      finishReason,
      usage: mapResponsesUsage(parts.response.usage),
    };
    if (rawFinishReason) result.rawFinishReason = rawFinishReason;
    if (parts.reasoning.length > 0) result.reasoning = parts.reasoning;
    const response: NonNullable<GenerateResult['response']> = {};
    const id = text(parts.response.id);
    const model = text(parts.response.model);
    if (id) response.id = id;
    if (model) response.modelId = model;
    if (parts.requestId) response.requestId = parts.requestId;
    result.response = response;
    if (parts.warnings.length > 0) result.warnings = parts.warnings;
    return result;
  }

  async doGenerate(request: GenerateRequest, options: CallOptions = {}): Promise<GenerateResult> {
    const { signal } = options;
    let response: Json;
    let requestId: string | undefined;
    const warnings: string[] = [];
    try {
      const body = this.#body(request, false, warnings) as ResponseCreateParamsNonStreaming;
      // The raw response, read here: the SDK's own reading of a body that is not a JSON object
      // (an HTML page, an empty or plain-text 200) fails with a TypeError that quotes the body.
      const http = await this.#config.client().responses.create(body, { signal }).asResponse();
      requestId = http.headers.get('x-request-id') ?? undefined;
      const contentType = http.headers.get('content-type');
      const raw = await http.text();
      if (isHtmlContentType(contentType)) {
        throw htmlPageError({
          provider: this.provider,
          contentType: contentType ?? '',
          body: raw,
          requestId,
          streaming: false,
        });
      }
      try {
        response = JSON.parse(raw) as Json;
      } catch (error) {
        throw this.#invalid(
          `the response is not valid JSON (${jsonSyntaxMessage(error)})`,
          requestId,
          raw.slice(0, 4096),
        );
      }
    } catch (error) {
      throw this.#error(error, signal);
    }
    return this.#fromResponse(response, { signal, requestId, warnings });
  }

  /** The result of a whole (non-streamed) response body, or the error it carries. */
  #fromResponse(
    response: unknown,
    context: { signal: AbortSignal | undefined; requestId: string | undefined; warnings: string[] },
  ): GenerateResult {
    const { signal, requestId, warnings } = context;
    if (!isRecord(response) || !Array.isArray(response.output)) {
      throw this.#invalid('the response has no output array', requestId, JSON.stringify(response));
    }
    if (text(response.status) === 'failed' || isRecord(response.error)) {
      throw this.#bodyError(response.error, signal);
    }
    const status = text(response.status);
    if (status !== undefined && unfinishedStatuses.has(status)) {
      // No answer yet (or none coming): never an empty result with an unknown finish reason.
      throw this.#invalid(
        `the response has status "${status}": it holds no finished answer`,
        requestId,
        JSON.stringify(response).slice(0, 4096),
      );
    }
    let answer = '';
    let refusal = '';
    const reasoning: ReasoningPart[] = [];
    const calls: Array<{ id: string; name: string; rawArguments: string }> = [];
    for (const item of response.output) {
      if (!isRecord(item)) continue;
      if (item.type === 'reasoning') reasoning.push(reasoningPart(item));
      else if (item.type === 'message' && Array.isArray(item.content)) {
        for (const content of item.content) {
          if (!isRecord(content)) continue;
          if (content.type === 'output_text' && typeof content.text === 'string') answer += content.text;
          else if (content.type === 'refusal' && typeof content.refusal === 'string')
            refusal += content.refusal;
        }
      } else if (item.type === 'function_call') {
        const call = {
          id: text(item.call_id) ?? text(item.id) ?? `call_${calls.length}`,
          name: typeof item.name === 'string' ? item.name : '',
          rawArguments: typeof item.arguments === 'string' ? item.arguments : '',
        };
        const cut = cutOffReason(response);
        if (cut && isUnfinishedCall(item.status, call.rawArguments)) {
          throw truncatedToolCallError({ provider: this.provider, call, rawFinishReason: cut, requestId });
        }
        calls.push(call);
      }
    }
    // Two calls with one call_id (a compatible server) each get their own id: pairing is by id.
    const idOf = responseToolCallIds('call_');
    // The SDK's convenience field, from a server that sends it without the output items.
    if (answer === '' && refusal === '' && calls.length === 0 && typeof response.output_text === 'string')
      answer = response.output_text;
    return this.#result({
      response,
      text: answer,
      refusal,
      toolCalls: calls.map((call) => parseToolCall({ ...call, id: idOf(call.id) })),
      reasoning,
      requestId,
      warnings,
    });
  }

  async *doStream(request: GenerateRequest, options: CallOptions = {}): AsyncGenerator<StreamPart> {
    const { signal } = options;
    let stream: StallGuardedStream<unknown>;
    let requestId: string | undefined;
    let whole: GenerateResult | undefined;
    const warnings: string[] = [];
    try {
      const body = this.#body(request, true, warnings) as ResponseCreateParamsStreaming;
      const { data, request_id, response } = await this.#config
        .client()
        .responses.create(body, { signal })
        .withResponse();
      requestId = request_id ?? undefined;
      const id = requestId;
      stream = withStallTimeout(data as AsyncIterable<unknown>, {
        idleMs: this.#config.streamIdleTimeoutMs ?? 0,
        onStall: (ms) => streamStallError(this.provider, ms, { requestId: id }),
        cancel: () => data.controller.abort(),
      });
      // A web page (a web UI, a login): the SDK would read no events from it.
      await rejectHtmlPage(response, { provider: this.provider, requestId, streaming: true });
      const contentType = response.headers.get('content-type');
      if ((contentType ?? '').includes('json')) {
        // A JSON body instead of an event stream (the SDK would read no events from it): its
        // error, or the whole response (a gateway that ignores `stream: true`) replayed as parts.
        const json: unknown = JSON.parse(await response.text());
        const failure =
          isRecord(json) && !Array.isArray(json.output) && isRecord(json.error) ? json.error : undefined;
        if (failure) throw this.#bodyError(failure, signal);
        whole = this.#fromResponse(json, { signal, requestId, warnings });
      }
    } catch (error) {
      throw this.#error(error, signal);
    }
    if (whole) {
      yield* resultToStream(whole);
      return;
    }

    let answer = '';
    // Text that only the done events carried (`output_text.done`, a message's `output_item.done`).
    let doneText = '';
    let refusal = '';
    const reasoning: ReasoningPart[] = [];
    const reasoningByItem = new Map<string, ReasoningPart>();
    const summaryIndex = new Map<ReasoningPart, number>();
    const calls = new Map<string, PendingCall>();
    const callsByOutputIndex = new Map<number, PendingCall>();
    const toolCalls: ToolCall[] = [];
    // Two calls with one call_id (a compatible server) each get their own id: pairing is by id.
    const idOf = responseToolCallIds('call_');
    let final: Json | undefined;
    let meta: Json = {};

    const callFor = (event: Json): PendingCall | undefined => {
      const itemId = text(event.item_id);
      return (itemId ? calls.get(itemId) : undefined) ?? callsByOutputIndex.get(Number(event.output_index));
    };
    const reasoningFor = (itemId: string | undefined): ReasoningPart => {
      const key = itemId ?? '';
      let part = reasoningByItem.get(key);
      if (!part) {
        part = { text: '', ...(itemId ? { providerData: { itemId } } : {}) };
        reasoningByItem.set(key, part);
        reasoning.push(part);
      }
      return part;
    };

    try {
      for await (const raw of stream) {
        if (!isRecord(raw)) continue;
        const event = raw;
        switch (event.type) {
          case 'response.created':
          case 'response.in_progress':
            if (isRecord(event.response)) meta = event.response;
            break;
          case 'response.output_item.added': {
            const item = isRecord(event.item) ? event.item : {};
            if (item.type === 'function_call') {
              const call: PendingCall = {
                itemId: text(item.id),
                callId: text(item.call_id),
                name: typeof item.name === 'string' ? item.name : '',
                rawArguments: '',
                ordinal: calls.size,
              };
              calls.set(call.itemId ?? `#${call.ordinal}`, call);
              callsByOutputIndex.set(Number(event.output_index), call);
              yield {
                type: 'tool-call-delta',
                index: call.ordinal,
                ...(call.callId ? { id: call.callId } : {}),
                ...(call.name ? { name: call.name } : {}),
                argumentsDelta: '',
              };
            } else if (item.type === 'reasoning') {
              reasoningFor(text(item.id));
            }
            break;
          }
          case 'response.output_text.delta':
            if (typeof event.delta === 'string' && event.delta !== '') {
              answer += event.delta;
              yield { type: 'text-delta', delta: event.delta };
            }
            break;
          case 'response.refusal.delta':
            if (typeof event.delta === 'string') refusal += event.delta;
            break;
          case 'response.reasoning_summary_text.delta':
          case 'response.reasoning_text.delta':
            if (typeof event.delta === 'string' && event.delta !== '') {
              const part = reasoningFor(text(event.item_id));
              // Summary parts of one item are separate paragraphs.
              const index = Number(event.summary_index ?? 0);
              const separator = part.text !== '' && summaryIndex.get(part) !== index ? '\n\n' : '';
              summaryIndex.set(part, index);
              part.text += separator + event.delta;
              yield { type: 'reasoning-delta', delta: separator + event.delta };
            }
            break;
          case 'response.function_call_arguments.delta': {
            const call = callFor(event);
            if (call && typeof event.delta === 'string' && event.delta !== '') {
              call.rawArguments += event.delta;
              yield { type: 'tool-call-delta', index: call.ordinal, argumentsDelta: event.delta };
            }
            break;
          }
          case 'response.output_item.done': {
            const item = isRecord(event.item) ? event.item : {};
            if (item.type === 'message' && answer === '') {
              doneText += outputText([item]);
            } else if (item.type === 'reasoning') {
              const part = reasoningFor(text(item.id));
              const done = reasoningPart(item);
              if (done.signature) part.signature = done.signature;
              if (part.text === '' && done.text !== '') part.text = done.text;
            } else if (item.type === 'function_call') {
              const call =
                (text(item.id) ? calls.get(text(item.id) as string) : undefined) ??
                callsByOutputIndex.get(Number(event.output_index));
              if (!call) break;
              const finalArguments = typeof item.arguments === 'string' ? item.arguments : call.rawArguments;
              // Arguments only in the done event: stream them as one delta so deltas add up.
              if (call.rawArguments === '' && finalArguments !== '') {
                call.rawArguments = finalArguments;
                yield { type: 'tool-call-delta', index: call.ordinal, argumentsDelta: finalArguments };
              }
              call.callId ??= text(item.call_id);
              if (call.name === '' && typeof item.name === 'string') call.name = item.name;
              call.done = true;
              // Held until the response's status shows it was not cut off mid-call.
              if (isUnfinishedCall(item.status, call.rawArguments)) break;
              const toolCall = parseToolCall({
                id: idOf(call.callId ?? call.itemId ?? `call_${call.ordinal}`),
                name: call.name,
                rawArguments: call.rawArguments,
              });
              toolCalls.push(toolCall);
              call.returned = true;
              yield { type: 'tool-call', toolCall };
            }
            break;
          }
          case 'response.completed':
          case 'response.incomplete':
            final = isRecord(event.response) ? event.response : {};
            // The terminal event: a server that then holds the connection open does not hold the answer.
            stream.complete();
            break;
          case 'response.failed': {
            const response = isRecord(event.response) ? event.response : {};
            throw this.#bodyError(response.error ?? { message: 'the response failed' }, signal);
          }
          case 'error':
            throw this.#bodyError(isRecord(event.error) ? event.error : event, signal);
        }
      }
    } catch (error) {
      throw this.#error(error, signal);
    }
    if (signal?.aborted) throw this.#error(signal.reason, signal);
    if (!final) {
      throw new ModelError({
        code: 'network',
        message: `${this.provider}: the stream ended before response.completed (connection closed early after ${answer.length} characters)${
          requestId ? ` (request ${requestId})` : ''
        }`,
        provider: this.provider,
        ...(requestId ? { requestId } : {}),
      });
    }
    // What the terminal response holds and the events did not carry (servers that stream only
    // the done events, or only the finished response): its text, and its function calls.
    const finalOutput = Array.isArray(final.output) ? final.output.filter(isRecord) : [];
    if (answer === '') {
      const whole = outputText(finalOutput) || doneText;
      if (whole !== '') {
        answer = whole;
        yield { type: 'text-delta', delta: whole };
      }
    }
    for (const item of finalOutput) {
      if (item.type !== 'function_call') continue;
      const itemId = text(item.id);
      const callId = text(item.call_id);
      const known =
        (itemId ? calls.get(itemId) : undefined) ??
        [...calls.values()].find((call) => callId !== undefined && call.callId === callId);
      const finalArguments = typeof item.arguments === 'string' ? item.arguments : undefined;
      const finished = text(item.status) === 'completed' && finalArguments !== undefined;
      if (known) {
        if (known.done || !finished) continue;
        if (finalArguments.startsWith(known.rawArguments) && finalArguments !== known.rawArguments)
          yield {
            type: 'tool-call-delta',
            index: known.ordinal,
            argumentsDelta: finalArguments.slice(known.rawArguments.length),
          };
        known.rawArguments = finalArguments;
        known.callId ??= callId;
        if (known.name === '' && typeof item.name === 'string') known.name = item.name;
        known.done = true;
        continue;
      }
      const call: PendingCall = {
        itemId,
        callId,
        name: typeof item.name === 'string' ? item.name : '',
        rawArguments: finalArguments ?? '',
        ordinal: calls.size,
        done: finished || (text(item.status) === undefined && finalArguments !== undefined),
      };
      calls.set(itemId ?? `#${call.ordinal}`, call);
      yield {
        type: 'tool-call-delta',
        index: call.ordinal,
        ...(call.callId ? { id: call.callId } : {}),
        ...(call.name ? { name: call.name } : {}),
        argumentsDelta: call.rawArguments,
      };
    }
    const cut = cutOffReason(final);
    for (const call of calls.values()) {
      if (call.returned) continue;
      const pending = { id: call.callId ?? call.itemId, name: call.name, rawArguments: call.rawArguments };
      // A call the response stopped inside of (or that never finished): never returned.
      if (cut || !call.done) {
        throw truncatedToolCallError({
          provider: this.provider,
          call: pending,
          rawFinishReason: cut ?? text(final.status) ?? 'unknown',
          requestId,
        });
      }
      // A finished call with malformed arguments in a completed response: returned as before.
      const toolCall = parseToolCall({ ...pending, id: idOf(pending.id ?? `call_${call.ordinal}`) });
      toolCalls.push(toolCall);
      yield { type: 'tool-call', toolCall };
    }
    if (answer === '' && refusal !== '') yield { type: 'text-delta', delta: refusal };
    yield {
      type: 'finish',
      result: this.#result({
        response: { ...meta, ...final },
        text: answer,
        refusal,
        toolCalls,
        reasoning: reasoning.filter((part) => part.text !== '' || part.signature !== undefined),
        requestId,
        warnings,
      }),
    };
  }
}
