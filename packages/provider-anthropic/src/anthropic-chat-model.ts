import type Anthropic from '@anthropic-ai/sdk';
import { APIError } from '@anthropic-ai/sdk';
import type {
  ContentBlock,
  Message,
  MessageCreateParamsNonStreaming,
  MessageCreateParamsStreaming,
  RawContentBlockDelta,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages';
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
} from '@closedloop/model';
import {
  checkStreamIdleTimeout,
  emptyAnswerError,
  htmlPageError,
  isCompleteToolArguments,
  isHtmlContentType,
  parseToolCall,
  rejectHtmlPage,
  responseToolCallIds,
  type StallGuardedStream,
  streamStallError,
  truncatedToolCallError,
  withStallTimeout,
} from '@closedloop/model/provider';
import {
  type AnthropicChatSettings,
  buildAnthropicRequest,
  checkAnthropicSettings,
  type ResponseTool,
} from './build-anthropic-request';
import { mapAnthropicError } from './map-anthropic-error';
import {
  type AnthropicUsageFields,
  addAnthropicUsage,
  mapAnthropicStopReason,
  mapAnthropicUsage,
  mergeAnthropicUsage,
} from './parse-anthropic-response';

/** What a provider hands each of its models. */
export interface AnthropicChatModelConfig {
  provider: string;
  /** Returns the (lazily created) SDK client; throws `ModelError('auth')` when no key is set. */
  client: () => Anthropic;
  /** Literal secrets to redact from error messages (the API key once known). */
  secrets: () => readonly string[];
  /** Longest silence of a stream between two events, in ms (`0`: no limit). */
  streamIdleTimeoutMs: number;
}

type StreamBlock =
  | { kind: 'text' }
  | { kind: 'reasoning'; part: ReasoningPart }
  | {
      kind: 'tool';
      ordinal: number;
      id: string;
      name: string;
      raw: string;
      /** The input a proxy sent whole in `content_block_start` (Anthropic sends `{}` there). */
      initial: string;
      closed?: boolean;
    }
  | { kind: 'response'; raw: string }
  | { kind: 'other' };

/**
 * Stop reasons that cut the answer off wherever it was: a tool_use block that was being written
 * then is incomplete (Anthropic's docs: retry with a higher `max_tokens`; a streaming refusal
 * stops mid-output).
 */
const cutOffStopReasons: ReadonlySet<string> = new Set([
  'max_tokens',
  'model_context_window_exceeded',
  'refusal',
]);

/**
 * How many times a turn the server paused (`stop_reason: "pause_turn"`, a long server-tool loop
 * such as web search) is continued before the call fails.
 */
const maxPauseTurnContinuations = 5;

type RequestBody = MessageCreateParamsNonStreaming | MessageCreateParamsStreaming;

/**
 * The request that continues a paused turn, as Anthropic's docs say: the same request with the
 * assistant content so far appended verbatim (server tool calls and their results included), and
 * the container of a container tool (code execution) when one was used.
 */
function continuePausedTurn<Body extends RequestBody>(
  original: Body,
  content: readonly unknown[],
  container: unknown,
): Body {
  const messages = [...original.messages];
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    // A prefilled assistant turn: the paused content continues it.
    const prefix = typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : last.content;
    messages[messages.length - 1] = { role: 'assistant', content: [...prefix, ...content] as never };
  } else {
    messages.push({ role: 'assistant', content: [...content] as never });
  }
  const body: Body = { ...original, messages };
  const containerId = (container as { id?: unknown } | null | undefined)?.id;
  if (typeof containerId === 'string' && containerId !== '')
    (body as { container?: string }).container = containerId;
  return body;
}

/** The error for a turn the server kept pausing. */
function pausedTooOften(provider: string, requestId: string | undefined, text: string): ModelError {
  return new ModelError({
    code: 'invalid-response',
    message: `${provider}: the server paused the turn (stop_reason "pause_turn") ${
      maxPauseTurnContinuations + 1
    } times in a row; the answer is incomplete and was not returned${requestId ? ` (request ${requestId})` : ''}. Narrow the task or limit server tool uses (max_uses).`,
    isRetryable: false,
    provider,
    rawOutput: text,
    ...(requestId ? { requestId } : {}),
  });
}

/** A body that is Anthropic's error shape (`{ type: 'error', error: { type, message } }`). */
function isErrorBody(body: unknown): body is { type: 'error'; error: unknown } {
  return (
    typeof body === 'object' &&
    body !== null &&
    (body as { type?: unknown }).type === 'error' &&
    typeof (body as { error?: unknown }).error === 'object'
  );
}

/** The text blocks' text of some content. */
function textOf(content: readonly ContentBlock[]): string {
  let text = '';
  for (const block of content) if (block.type === 'text') text += block.text;
  return text;
}

/**
 * A thinking block as a `ReasoningPart` that remembers its place in the answer: how much text and
 * how many tool calls came before it, when any did (Claude's interleaved thinking puts thinking
 * between tool_use blocks, and each block must go back where it was; see `toAnthropicMessages`).
 */
function placedReasoning(part: ReasoningPart, text: string, toolCalls: number): ReasoningPart {
  if (text.length === 0 && toolCalls === 0) return part;
  return { ...part, providerData: { anthropicPosition: { text: text.length, toolCalls } } };
}

/** A streamed tool input's JSON (`{}` when none arrived or it does not parse). */
function parseInput(json: string): unknown {
  if (json.trim() === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return {};
  }
}

/** Applies a streamed delta to the content block as sent (the SDK's own accumulation rules). */
function applyDelta(
  block: Record<string, unknown>,
  delta: RawContentBlockDelta,
  inputJson: Map<number, string>,
  index: number,
): void {
  switch (delta.type) {
    case 'text_delta':
      block.text = `${(block.text as string | undefined) ?? ''}${delta.text}`;
      break;
    case 'thinking_delta':
      block.thinking = `${(block.thinking as string | undefined) ?? ''}${delta.thinking}`;
      break;
    case 'signature_delta':
      block.signature = delta.signature;
      break;
    case 'citations_delta':
      block.citations = [...((block.citations as unknown[] | null | undefined) ?? []), delta.citation];
      break;
    case 'input_json_delta':
      inputJson.set(index, (inputJson.get(index) ?? '') + delta.partial_json);
      break;
  }
}

function structuredText(input: unknown, tool: ResponseTool): string {
  const value =
    tool.wrapped && typeof input === 'object' && input !== null
      ? (input as { value?: unknown }).value
      : input;
  return JSON.stringify(value ?? {});
}

function finishReasonOf(
  raw: string | null | undefined,
  answeredWithResponseTool: boolean,
  toolCalls: number,
): FinishReason {
  if (raw === 'tool_use' && answeredWithResponseTool && toolCalls === 0) return 'stop';
  return mapAnthropicStopReason(raw);
}

/**
 * A `ChatModel` over Anthropic's Messages API through the official `@anthropic-ai/sdk` with
 * `maxRetries: 0`. Created by `createAnthropic(...)(modelId)`.
 */
export class AnthropicChatModel implements ChatModel {
  readonly specificationVersion = 'v1' as const;
  readonly provider: string;
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  readonly #settings: AnthropicChatSettings;
  readonly #config: AnthropicChatModelConfig;

  constructor(options: {
    modelId: string;
    settings: AnthropicChatSettings;
    capabilities: ModelCapabilities;
    config: AnthropicChatModelConfig;
  }) {
    checkStreamIdleTimeout({
      factory: 'AnthropicChatModel',
      provider: options.config.provider,
      streamIdleTimeoutMs: options.config.streamIdleTimeoutMs,
    });
    checkAnthropicSettings(options.config.provider, options.settings);
    this.modelId = options.modelId;
    this.provider = options.config.provider;
    this.capabilities = options.capabilities;
    this.#settings = options.settings;
    this.#config = options.config;
  }

  #build(request: GenerateRequest, stream: boolean, warnings: string[]) {
    return buildAnthropicRequest({
      provider: this.provider,
      modelId: this.modelId,
      request,
      capabilities: this.capabilities,
      settings: this.#settings,
      stream,
      warnings,
    });
  }

  #error(error: unknown, signal: AbortSignal | undefined): ModelError {
    return mapAnthropicError(error, { provider: this.provider, signal, secrets: this.#config.secrets() });
  }

  /** The error for a tool call the answer stopped inside of (`max_tokens` mid tool_use). */
  #truncated(
    call: { id: string; name: string; rawArguments: string },
    rawStopReason: string,
    requestId: string | undefined,
  ): ModelError {
    return truncatedToolCallError({
      provider: this.provider,
      call,
      rawFinishReason: rawStopReason,
      requestId,
      code: rawStopReason === 'model_context_window_exceeded' ? 'context-length' : 'invalid-response',
    });
  }

  /** The error for a tool_use block without a tool name (a proxy's translation): nothing to run. */
  #nameless(id: string | undefined, requestId: string | undefined): ModelError {
    return new ModelError({
      code: 'invalid-response',
      message: `${this.provider}: tool call ${id ? JSON.stringify(id) : '(no id)'} has no tool name${
        requestId ? ` (request ${requestId})` : ''
      }`,
      isRetryable: false,
      provider: this.provider,
      ...(requestId ? { requestId } : {}),
    });
  }

  /**
   * The error for `stop_reason: "tool_use"` without a tool call: the model stopped to have a tool
   * run, and what it asked for never arrived (a proxy lost the block). Never a clean answer.
   */
  #toolUseWithoutCall(requestId: string | undefined, text: string): ModelError {
    return new ModelError({
      code: 'invalid-response',
      message: `${this.provider}: the stop reason is "tool_use" but no tool call arrived${
        requestId ? ` (request ${requestId})` : ''
      }; the call the model asked for is missing, so the answer is incomplete`,
      isRetryable: false,
      provider: this.provider,
      ...(requestId ? { requestId } : {}),
      ...(text !== '' ? { rawOutput: text } : {}),
    });
  }

  #result(parts: {
    text: string;
    toolCalls: ToolCall[];
    reasoning: ReasoningPart[];
    rawStopReason: string | null | undefined;
    answeredWithResponseTool: boolean;
    usage: AnthropicUsageFields | null | undefined;
    id: string | undefined;
    model: string | undefined;
    requestId: string | undefined;
    warnings: string[];
  }): GenerateResult {
    // Nothing at all, for a stop reason that says neither "done" nor why it was cut (a gateway
    // forwarding its backend's reason, or none): not an answer.
    const empty = emptyAnswerError({
      provider: this.provider,
      finishReason: mapAnthropicStopReason(parts.rawStopReason),
      rawFinishReason: parts.rawStopReason,
      text: parts.text,
      toolCalls: parts.toolCalls.length,
      requestId: parts.requestId,
    });
    if (empty) throw empty;
    const result: GenerateResult = {
      text: parts.text,
      toolCalls: parts.toolCalls,
      finishReason: finishReasonOf(
        parts.rawStopReason,
        parts.answeredWithResponseTool,
        parts.toolCalls.length,
      ),
      usage: mapAnthropicUsage(parts.usage),
    };
    if (parts.rawStopReason) result.rawFinishReason = parts.rawStopReason;
    if (parts.reasoning.length > 0) result.reasoning = parts.reasoning;
    const response: NonNullable<GenerateResult['response']> = {};
    if (parts.id) response.id = parts.id;
    if (parts.model) response.modelId = parts.model;
    if (parts.requestId) response.requestId = parts.requestId;
    result.response = response;
    if (parts.warnings.length > 0) result.warnings = parts.warnings;
    return result;
  }

  async doGenerate(request: GenerateRequest, options: CallOptions = {}): Promise<GenerateResult> {
    const { signal } = options;
    let message: Message;
    let requestId: string | undefined;
    let responseTool: ResponseTool | undefined;
    const warnings: string[] = [];
    // Content and usage of the responses that paused the turn (`pause_turn`), oldest first.
    const paused: ContentBlock[] = [];
    let pausedUsage: AnthropicUsageFields | undefined;
    try {
      const built = this.#build(request, false, warnings);
      responseTool = built.responseTool;
      const original = built.body as MessageCreateParamsNonStreaming;
      let body = original;
      let container: unknown;
      for (let continuation = 0; ; continuation++) {
        const { data, request_id, response } = await this.#config
          .client()
          .messages.create(body, { signal })
          .withResponse();
        message = data;
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
        // A 200 whose body is an error (gateways, proxies): classified by its type, like an error event.
        if (isErrorBody(message)) throw new APIError(undefined, message, undefined, response.headers);
        if (message?.stop_reason !== 'pause_turn' || !Array.isArray(message.content)) break;
        paused.push(...message.content);
        pausedUsage = addAnthropicUsage(pausedUsage, message.usage);
        if (continuation === maxPauseTurnContinuations) {
          throw pausedTooOften(this.provider, requestId, textOf(paused));
        }
        container = message.container ?? container;
        body = continuePausedTurn(original, paused, container);
      }
    } catch (error) {
      throw this.#error(error, signal);
    }
    if (!message || !Array.isArray(message.content)) {
      throw new ModelError({
        code: 'invalid-response',
        message: `${this.provider}: the response has no content array${requestId ? ` (request ${requestId})` : ''}`,
        provider: this.provider,
        rawOutput: JSON.stringify(message),
        ...(requestId ? { requestId } : {}),
      });
    }
    if (paused.length > 0) {
      message = {
        ...message,
        content: [...paused, ...message.content],
        usage: addAnthropicUsage(pausedUsage, message.usage) as Message['usage'],
      };
    }
    let text = '';
    let answered = false;
    const toolCalls: ToolCall[] = [];
    const reasoning: ReasoningPart[] = [];
    // Gateways may send calls without ids, or two calls with one id.
    const idOf = responseToolCallIds('toolu_');
    const last = message.content.at(-1);
    if (
      last?.type === 'tool_use' &&
      message.stop_reason &&
      cutOffStopReasons.has(message.stop_reason) &&
      !(responseTool && last.name === responseTool.name)
    ) {
      // The input of a tool_use cut off by max_tokens is the part that arrived, parsed server-side.
      throw this.#truncated(
        { id: last.id, name: last.name, rawArguments: JSON.stringify(last.input ?? {}) },
        message.stop_reason,
        requestId,
      );
    }
    for (const block of message.content) {
      if (block.type === 'text') text += block.text;
      else if (block.type === 'thinking')
        reasoning.push(
          placedReasoning({ text: block.thinking, signature: block.signature }, text, toolCalls.length),
        );
      else if (block.type === 'redacted_thinking')
        reasoning.push(
          placedReasoning({ text: '', signature: block.data, redacted: true }, text, toolCalls.length),
        );
      else if (block.type === 'tool_use') {
        if (responseTool && block.name === responseTool.name) {
          text += structuredText(block.input, responseTool);
          answered = true;
        } else {
          if (!block.name) throw this.#nameless(block.id, requestId);
          toolCalls.push({
            id: idOf(block.id),
            name: block.name,
            arguments: block.input ?? {},
            rawArguments: JSON.stringify(block.input ?? {}),
          });
        }
      }
    }
    if (message.stop_reason === 'tool_use' && toolCalls.length === 0 && !answered)
      throw this.#toolUseWithoutCall(requestId, text);
    return this.#result({
      text,
      toolCalls,
      reasoning,
      rawStopReason: message.stop_reason,
      answeredWithResponseTool: answered,
      usage: message.usage,
      id: message.id,
      model: message.model,
      requestId,
      warnings,
    });
  }

  /** Opens a stream (a JSON body instead of an event stream is its error, or an invalid response). */
  async #openStream(
    body: MessageCreateParamsStreaming,
    signal: AbortSignal | undefined,
  ): Promise<{ stream: StallGuardedStream<RawMessageStreamEvent>; requestId: string | undefined }> {
    const { data, request_id, response } = await this.#config
      .client()
      .messages.create(body, { signal })
      .withResponse();
    const requestId = request_id ?? undefined;
    // A web page (a web UI, a login): the SDK would read no events from it.
    await rejectHtmlPage(response, { provider: this.provider, requestId, streaming: true });
    const contentType = response.headers.get('content-type');
    if ((contentType ?? '').includes('json')) {
      // A JSON body instead of an event stream: the SDK would read no events from it.
      const parsed: unknown = JSON.parse(await response.text());
      if (isErrorBody(parsed)) throw new APIError(undefined, parsed, undefined, response.headers);
      throw new ModelError({
        code: 'invalid-response',
        message: `${this.provider}: the server answered a streaming request with a JSON body, not an event stream${
          requestId ? ` (request ${requestId})` : ''
        }`,
        provider: this.provider,
        rawOutput: JSON.stringify(parsed),
        ...(requestId ? { requestId } : {}),
      });
    }
    const stream = withStallTimeout(data, {
      idleMs: this.#config.streamIdleTimeoutMs,
      onStall: (ms) => streamStallError(this.provider, ms, { requestId }),
      cancel: () => data.controller.abort(),
    });
    return { stream, requestId };
  }

  async *doStream(request: GenerateRequest, options: CallOptions = {}): AsyncGenerator<StreamPart> {
    const { signal } = options;
    let stream: StallGuardedStream<RawMessageStreamEvent>;
    let requestId: string | undefined;
    let responseTool: ResponseTool | undefined;
    let original: MessageCreateParamsStreaming;
    const warnings: string[] = [];
    try {
      const built = this.#build(request, true, warnings);
      responseTool = built.responseTool;
      original = built.body as MessageCreateParamsStreaming;
      ({ stream, requestId } = await this.#openStream(original, signal));
    } catch (error) {
      throw this.#error(error, signal);
    }

    const reasoning: ReasoningPart[] = [];
    const toolCalls: ToolCall[] = [];
    let text = '';
    let answered = false;
    let toolOrdinal = 0;
    // Gateways may send calls without ids, or two calls with one id (over a paused turn too).
    const idOf = responseToolCallIds('toolu_');
    let usage: AnthropicUsageFields | undefined;
    let rawStopReason: string | null | undefined;
    let id: string | undefined;
    let model: string | undefined;
    // The content and summed usage of the responses that paused the turn (`pause_turn`).
    const paused: unknown[] = [];
    let pausedUsage: AnthropicUsageFields | undefined;
    let container: unknown;
    // The last finished tool call is held until another block starts or the stop reason is known:
    // a tool_use block that `max_tokens` cut off is closed like a complete one.
    let held: ToolCall | undefined;
    const release = (): StreamPart | undefined => {
      if (!held) return undefined;
      const toolCall = held;
      held = undefined;
      toolCalls.push(toolCall);
      return { type: 'tool-call', toolCall };
    };
    for (let continuation = 0; ; continuation++) {
      // Per response: block indexes start at 0 again in a continued turn.
      const blocks = new Map<number, StreamBlock>();
      // The content blocks as sent (kept to continue a paused turn verbatim).
      const content: Array<Record<string, unknown>> = [];
      const inputJson = new Map<number, string>();
      let lastBlock: StreamBlock | undefined;
      let stopped = false;
      usage = undefined;
      try {
        for await (const event of stream) {
          switch (event.type) {
            case 'message_start':
              id ??= event.message.id;
              model ??= event.message.model;
              container = event.message.container ?? container;
              usage = mergeAnthropicUsage(undefined, event.message.usage);
              // Gateways that turn a whole response into a stream may put its content here (the
              // SDK's own accumulator starts from it): each block is a started and closed one.
              for (const [index, block] of (event.message.content ?? []).entries()) {
                content[index] = { ...block };
                if (block.type === 'text' && block.text) {
                  text += block.text;
                  yield { type: 'text-delta', delta: block.text };
                } else if (block.type === 'thinking') {
                  reasoning.push(
                    placedReasoning(
                      { text: block.thinking ?? '', signature: block.signature },
                      text,
                      toolOrdinal,
                    ),
                  );
                  if (block.thinking) yield { type: 'reasoning-delta', delta: block.thinking };
                } else if (block.type === 'redacted_thinking') {
                  // Sent back unchanged on the next turn, like the streamed block.
                  reasoning.push(
                    placedReasoning({ text: '', signature: block.data, redacted: true }, text, toolOrdinal),
                  );
                } else if (block.type === 'tool_use') {
                  const rawArguments = JSON.stringify(block.input ?? {});
                  if (responseTool && block.name === responseTool.name) {
                    const json = structuredText(block.input, responseTool);
                    text += json;
                    answered = true;
                    yield { type: 'text-delta', delta: json };
                    continue;
                  }
                  const released = release();
                  if (released) yield released;
                  const ordinal = toolOrdinal++;
                  const callId = idOf(block.id);
                  yield {
                    type: 'tool-call-delta',
                    index: ordinal,
                    id: callId,
                    name: block.name,
                    argumentsDelta: rawArguments,
                  };
                  if (!block.name) throw this.#nameless(block.id, requestId);
                  held = parseToolCall({ id: callId, name: block.name, rawArguments });
                }
              }
              break;
            case 'content_block_start': {
              const released = release();
              if (released) yield released;
              const block = event.content_block;
              content[event.index] = { ...block };
              // Proxies that translate other APIs may leave out the block's empty `text`/`thinking`.
              if (block.type === 'text') {
                blocks.set(event.index, { kind: 'text' });
                const initial = block.text ?? '';
                if (initial !== '') {
                  text += initial;
                  yield { type: 'text-delta', delta: initial };
                }
              } else if (block.type === 'thinking') {
                const initial = block.thinking ?? '';
                const part = placedReasoning(
                  { text: initial, signature: block.signature },
                  text,
                  toolOrdinal,
                );
                reasoning.push(part);
                blocks.set(event.index, { kind: 'reasoning', part });
                if (initial !== '') yield { type: 'reasoning-delta', delta: initial };
              } else if (block.type === 'redacted_thinking') {
                reasoning.push(
                  placedReasoning({ text: '', signature: block.data, redacted: true }, text, toolOrdinal),
                );
                blocks.set(event.index, { kind: 'other' });
              } else if (block.type === 'tool_use') {
                if (responseTool && block.name === responseTool.name) {
                  blocks.set(event.index, { kind: 'response', raw: '' });
                } else {
                  const ordinal = toolOrdinal++;
                  const input: unknown = block.input;
                  const initial =
                    typeof input === 'object' && input !== null && Object.keys(input).length > 0
                      ? JSON.stringify(input)
                      : '';
                  const callId = idOf(block.id);
                  blocks.set(event.index, {
                    kind: 'tool',
                    ordinal,
                    id: callId,
                    name: block.name,
                    raw: '',
                    initial,
                  });
                  yield {
                    type: 'tool-call-delta',
                    index: ordinal,
                    id: callId,
                    name: block.name,
                    argumentsDelta: '',
                  };
                }
              } else {
                blocks.set(event.index, { kind: 'other' });
              }
              lastBlock = blocks.get(event.index);
              break;
            }
            case 'content_block_delta': {
              const delta = event.delta;
              const sent = content[event.index];
              if (sent) applyDelta(sent, delta, inputJson, event.index);
              const block = blocks.get(event.index);
              if (!block) break;
              if (delta.type === 'text_delta' && block.kind === 'text') {
                text += delta.text;
                yield { type: 'text-delta', delta: delta.text };
              } else if (delta.type === 'thinking_delta' && block.kind === 'reasoning') {
                block.part.text += delta.thinking;
                yield { type: 'reasoning-delta', delta: delta.thinking };
              } else if (delta.type === 'signature_delta' && block.kind === 'reasoning') {
                block.part.signature = (block.part.signature ?? '') + delta.signature;
              } else if (delta.type === 'input_json_delta') {
                if (block.kind === 'tool') {
                  block.raw += delta.partial_json;
                  if (delta.partial_json !== '') {
                    yield {
                      type: 'tool-call-delta',
                      index: block.ordinal,
                      argumentsDelta: delta.partial_json,
                    };
                  }
                } else if (block.kind === 'response') {
                  block.raw += delta.partial_json;
                  if (!responseTool?.wrapped && delta.partial_json !== '') {
                    text += delta.partial_json;
                    yield { type: 'text-delta', delta: delta.partial_json };
                  }
                }
              }
              break;
            }
            case 'content_block_stop': {
              const json = inputJson.get(event.index);
              const sent = content[event.index];
              if (json !== undefined && sent) sent.input = parseInput(json);
              const block = blocks.get(event.index);
              if (block?.kind === 'tool') {
                if (block.raw === '' && block.initial !== '') {
                  // Proxies that translate other APIs into Anthropic's send the whole input in
                  // content_block_start and no input_json_delta: that input is the arguments.
                  block.raw = block.initial;
                  yield { type: 'tool-call-delta', index: block.ordinal, argumentsDelta: block.raw };
                }
                if (!block.name) throw this.#nameless(block.id, requestId);
                // Blocks a gateway streams interleaved close one after another: each is a call.
                const released = release();
                if (released) yield released;
                held = parseToolCall({ id: block.id, name: block.name, rawArguments: block.raw });
                block.closed = true;
              } else if (block?.kind === 'response' && responseTool) {
                answered = true;
                if (responseTool.wrapped || block.raw.trim() === '') {
                  const json = structuredText(
                    block.raw.trim() === '' ? {} : JSON.parse(block.raw),
                    responseTool,
                  );
                  text += json;
                  yield { type: 'text-delta', delta: json };
                }
              }
              break;
            }
            case 'message_delta': {
              rawStopReason = event.delta.stop_reason ?? rawStopReason;
              container = event.delta.container ?? container;
              usage = mergeAnthropicUsage(usage, event.usage);
              if (
                lastBlock?.kind === 'tool' &&
                rawStopReason &&
                (cutOffStopReasons.has(rawStopReason) ||
                  // A stop reason no one knows says nothing about the call: unparsable input was cut.
                  (mapAnthropicStopReason(rawStopReason) === 'unknown' &&
                    lastBlock.raw.trim() !== '' &&
                    !isCompleteToolArguments(lastBlock.raw)))
              ) {
                throw this.#truncated(
                  { id: lastBlock.id, name: lastBlock.name, rawArguments: lastBlock.raw },
                  rawStopReason,
                  requestId,
                );
              }
              // The terminal event: a server that then sends only pings and never closes the
              // stream (a proxy) does not hold the complete answer.
              if (rawStopReason) stream.complete();
              const released = release();
              if (released) yield released;
              break;
            }
            case 'message_stop':
              stopped = true;
              break;
          }
        }
      } catch (error) {
        throw this.#error(error, signal);
      }
      // The SDK ends iteration quietly when the request is aborted mid-stream.
      if (signal?.aborted) throw this.#error(signal.reason, signal);
      const unfinished = [...blocks.values()].find((block) => block.kind === 'tool' && !block.closed);
      // A stream that ended cleanly after the message_delta with the stop reason, every block
      // closed, lacks only the message_stop frame (some proxies drop it): the answer is whole.
      if (!stopped && rawStopReason && !unfinished) stopped = true;
      if (stopped && unfinished?.kind === 'tool') {
        throw this.#truncated(
          { id: unfinished.id, name: unfinished.name, rawArguments: unfinished.raw },
          rawStopReason ?? 'none',
          requestId,
        );
      }
      if (!stopped) {
        throw new ModelError({
          code: 'network',
          message: `${this.provider}: the stream ended before message_stop (connection closed early after ${text.length} characters)${
            requestId ? ` (request ${requestId})` : ''
          }`,
          provider: this.provider,
          ...(requestId ? { requestId } : {}),
        });
      }
      if (rawStopReason !== 'pause_turn') break;
      // The server paused a long turn (a server tool loop): continue it with what it sent so far.
      paused.push(...content.filter((block) => block !== undefined));
      pausedUsage = addAnthropicUsage(pausedUsage, usage);
      if (continuation === maxPauseTurnContinuations) throw pausedTooOften(this.provider, requestId, text);
      rawStopReason = undefined;
      try {
        ({ stream, requestId } = await this.#openStream(
          continuePausedTurn(original, paused, container),
          signal,
        ));
      } catch (error) {
        throw this.#error(error, signal);
      }
    }
    if (pausedUsage) usage = addAnthropicUsage(pausedUsage, usage);
    const released = release();
    if (released) yield released;
    if (rawStopReason === 'tool_use' && toolCalls.length === 0 && !answered)
      throw this.#toolUseWithoutCall(requestId, text);
    yield {
      type: 'finish',
      result: this.#result({
        text,
        toolCalls,
        reasoning,
        rawStopReason,
        answeredWithResponseTool: answered,
        usage,
        id,
        model,
        requestId,
        warnings,
      }),
    };
  }
}
