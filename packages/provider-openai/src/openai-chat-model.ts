import {
  type CallOptions,
  type ChatModel,
  type GenerateRequest,
  type GenerateResult,
  type ModelCapabilities,
  ModelError,
  parseToolCall,
  type StreamPart,
  type ToolCall,
} from '@closedloop/model';
import type OpenAI from 'openai';
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
import {
  compatReasoningText,
  confidenceFromLogprobs,
  mapOpenAIFinishReason,
  mapOpenAIUsage,
  reasoningParts,
} from './parse-openai-response';

/** What a provider hands each of its models. */
export interface OpenAIChatModelConfig {
  provider: string;
  /** Returns the (lazily created) SDK client; throws `ModelError('auth')` when no key is set. */
  client: () => OpenAI;
  /** Literal secrets to redact from error messages (the API key once known). */
  secrets: () => readonly string[];
}

interface PendingToolCall {
  id: string | undefined;
  name: string;
  rawArguments: string;
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
    this.modelId = options.modelId;
    this.provider = options.config.provider;
    this.capabilities = options.capabilities;
    this.#settings = options.settings;
    this.#config = options.config;
  }

  #body(request: GenerateRequest, stream: boolean) {
    return buildOpenAIRequest({
      provider: this.provider,
      modelId: this.modelId,
      request,
      capabilities: this.capabilities,
      settings: this.#settings,
      stream,
    });
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
    try {
      const body = this.#body(request, false) as ChatCompletionCreateParamsNonStreaming;
      const { data, request_id } = await this.#config
        .client()
        .chat.completions.create(body, { signal })
        .withResponse();
      completion = data;
      requestId = request_id ?? undefined;
    } catch (error) {
      throw this.#error(error, signal);
    }
    const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
    if (!choice || typeof choice.message !== 'object' || choice.message === null) {
      throw this.#invalid('the response has no choices[0].message', requestId, JSON.stringify(completion));
    }
    const message = choice.message;
    const toolCalls: ToolCall[] = [];
    for (const [index, call] of (message.tool_calls ?? []).entries()) {
      if (call.type !== 'function') continue;
      toolCalls.push(
        parseToolCall({
          id: call.id || `call_${index}`,
          name: call.function.name,
          rawArguments: call.function.arguments ?? '',
        }),
      );
    }
    const refusal =
      typeof message.refusal === 'string' && message.refusal !== '' ? message.refusal : undefined;
    return this.#result({
      text: message.content ?? refusal ?? '',
      toolCalls,
      rawFinishReason: choice.finish_reason,
      refused: refusal !== undefined,
      usage: completion.usage,
      logprobs: choice.logprobs?.content,
      reasoning: compatReasoningText(message),
      id: completion.id,
      model: completion.model,
      requestId,
    });
  }

  #result(parts: {
    text: string;
    toolCalls: ToolCall[];
    rawFinishReason: string | null | undefined;
    refused: boolean;
    usage: CompletionUsage | null | undefined;
    logprobs: ReadonlyArray<ChatCompletionTokenLogprob> | null | undefined;
    reasoning: string | undefined;
    id: string | undefined;
    model: string | undefined;
    requestId: string | undefined;
  }): GenerateResult {
    const result: GenerateResult = {
      text: parts.text,
      toolCalls: parts.toolCalls,
      finishReason: mapOpenAIFinishReason(parts.rawFinishReason, {
        hasToolCalls: parts.toolCalls.length > 0,
        refused: parts.refused,
      }),
      usage: mapOpenAIUsage(parts.usage),
    };
    if (parts.rawFinishReason) result.rawFinishReason = parts.rawFinishReason;
    const reasoning = reasoningParts(parts.reasoning);
    if (reasoning) result.reasoning = reasoning;
    const confidence = confidenceFromLogprobs(parts.logprobs);
    if (confidence !== undefined) result.confidence = confidence;
    const response: NonNullable<GenerateResult['response']> = {};
    if (parts.id) response.id = parts.id;
    if (parts.model) response.modelId = parts.model;
    if (parts.requestId) response.requestId = parts.requestId;
    result.response = response;
    return result;
  }

  async *doStream(request: GenerateRequest, options: CallOptions = {}): AsyncGenerator<StreamPart> {
    const { signal } = options;
    let stream: AsyncIterable<ChatCompletionChunk>;
    let requestId: string | undefined;
    try {
      const body = this.#body(request, true) as ChatCompletionCreateParamsStreaming;
      const { data, request_id } = await this.#config
        .client()
        .chat.completions.create(body, { signal })
        .withResponse();
      stream = data;
      requestId = request_id ?? undefined;
    } catch (error) {
      throw this.#error(error, signal);
    }

    let text = '';
    let refusal = '';
    let reasoning = '';
    const calls: PendingToolCall[] = [];
    const logprobs: ChatCompletionTokenLogprob[] = [];
    let rawFinishReason: string | null | undefined;
    let usage: CompletionUsage | null | undefined;
    let id: string | undefined;
    let model: string | undefined;
    try {
      for await (const chunk of stream) {
        id ??= chunk.id;
        model ??= chunk.model;
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        if (choice.finish_reason) rawFinishReason = choice.finish_reason;
        if (choice.logprobs?.content) logprobs.push(...choice.logprobs.content);
        const delta = choice.delta;
        if (!delta) continue;
        const reasoningDelta = compatReasoningText(delta);
        if (reasoningDelta !== undefined) {
          reasoning += reasoningDelta;
          yield { type: 'reasoning-delta', delta: reasoningDelta };
        }
        if (typeof delta.content === 'string' && delta.content !== '') {
          text += delta.content;
          yield { type: 'text-delta', delta: delta.content };
        }
        if (typeof delta.refusal === 'string' && delta.refusal !== '') refusal += delta.refusal;
        for (const [position, callDelta] of (delta.tool_calls ?? []).entries()) {
          const index = typeof callDelta.index === 'number' ? callDelta.index : position;
          let call = calls[index];
          if (!call) {
            call = { id: undefined, name: '', rawArguments: '' };
            calls[index] = call;
          }
          if (callDelta.id) call.id ??= callDelta.id;
          // Some servers repeat the name on every chunk: keep the first.
          if (callDelta.function?.name && call.name === '') call.name = callDelta.function.name;
          const argumentsDelta = callDelta.function?.arguments ?? '';
          call.rawArguments += argumentsDelta;
          const part: StreamPart = { type: 'tool-call-delta', index, argumentsDelta };
          if (callDelta.id) part.id = callDelta.id;
          if (callDelta.function?.name) part.name = callDelta.function.name;
          yield part;
        }
      }
    } catch (error) {
      throw this.#error(error, signal);
    }
    // The SDK ends iteration quietly when the request is aborted mid-stream.
    if (signal?.aborted) throw this.#error(signal.reason, signal);
    if (!rawFinishReason) {
      throw new ModelError({
        code: 'network',
        message: `${this.provider}: the stream ended before a finish_reason (connection closed early after ${text.length} characters)${
          requestId ? ` (request ${requestId})` : ''
        }`,
        provider: this.provider,
        ...(requestId ? { requestId } : {}),
      });
    }
    const toolCalls: ToolCall[] = [];
    for (const [index, call] of calls.entries()) {
      if (!call) continue;
      if (call.name === '')
        throw this.#invalid(`streamed tool call ${index} has no function name`, requestId);
      const toolCall = parseToolCall({
        id: call.id ?? `call_${index}`,
        name: call.name,
        rawArguments: call.rawArguments,
      });
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
        refused: refusal !== '',
        usage,
        logprobs,
        reasoning: reasoning === '' ? undefined : reasoning,
        id,
        model,
        requestId,
      }),
    };
  }
}
