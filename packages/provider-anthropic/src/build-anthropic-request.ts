import type {
  ToolChoice as AnthropicToolChoice,
  CacheControlEphemeral,
  ContentBlockParam,
  DocumentBlockParam,
  ImageBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import {
  type ChatMessage,
  type ContentPart,
  type GenerateRequest,
  type JsonSchema,
  type ModelCapabilities,
  ModelError,
  type ReasoningEffort,
  type ReasoningPart,
  type ToolCall,
  type ToolChoice,
} from '@closedloop/model';
import {
  checkCallOptions,
  contentPartSource,
  createToolCallIds,
  parseProviderOptions,
  useStrictTool,
} from '@closedloop/model/provider';
import { z } from 'zod';

/** Per-model settings, the second argument of `anthropic(modelId, settings)`. */
export interface AnthropicChatSettings {
  /** Overrides on top of the capabilities resolved for the model id. */
  capabilities?: Partial<ModelCapabilities>;
  /**
   * Extended thinking: `{ budgetTokens }` (>= 1024, manual budget) or `{ type: 'adaptive' }`
   * (the model decides; what newer models prefer). Thinking blocks come back as `ReasoningPart`s
   * with their signature and must be sent back unchanged on later turns (closedloop does this
   * when you keep `reasoning` on the assistant message). While thinking is on, `temperature` is
   * not sent and structured output asks for (rather than forces) the answer tool, as the API
   * requires.
   */
  thinking?: { budgetTokens: number } | { type: 'adaptive' };
  /** `max_tokens` when a request sets no `maxOutputTokens`. Default: min(8192, the model's limit). */
  defaultMaxTokens?: number;
  /**
   * Send `strict: true` on tools whose schema allows it (strict tool use). Default: on for models
   * that support it (Claude Sonnet/Haiku 4.5, Opus 4.1 and newer); a tool's own `strict: false`
   * wins.
   */
  strictTools?: boolean;
}

/**
 * The typed options `request.providerOptions.anthropic` (or `providerOptions[<provider id>]`)
 * may carry. Unknown keys are rejected with a `ModelError('bad-request')` listing these; raw API
 * fields go in `extraBody` (merged into the body last, verbatim).
 */
export const anthropicRequestOptionsSchema = z.strictObject({
  topK: z.number().int().positive().optional(),
  topP: z.number().min(0).max(1).optional(),
  /** `metadata.user_id`: an opaque id of the end user. */
  userId: z.string().optional(),
  /** Extended thinking for this request (overrides the model setting). */
  thinking: z
    .union([
      z.strictObject({ budgetTokens: z.number().int().min(1024) }),
      z.strictObject({ type: z.literal('adaptive') }),
    ])
    .optional(),
  /** Raw fields merged into the request body last, verbatim. */
  extraBody: z.record(z.string(), z.unknown()).optional(),
});

/** What {@link anthropicRequestOptionsSchema} accepts. */
export type AnthropicRequestOptions = z.infer<typeof anthropicRequestOptionsSchema>;

/** Claude generation `[major, minor]` and tier from a model id (`claude-sonnet-4-6` → sonnet 4.6). */
function claudeGeneration(modelId: string): { tier: string; major: number; minor: number } | undefined {
  const match = /^claude-(opus|sonnet|haiku)-(\d+)(?:-(\d{1,2}))?(?:-\d{8}|-latest)?$/i.exec(modelId);
  if (!match?.[1] || !match[2]) return undefined;
  return { tier: match[1].toLowerCase(), major: Number(match[2]), minor: Number(match[3] ?? 0) };
}

function atLeast(generation: { major: number; minor: number }, major: number, minor: number): boolean {
  return generation.major > major || (generation.major === major && generation.minor >= minor);
}

/** Strict tool use: Claude Sonnet/Haiku 4.5, Opus 4.1 and newer. */
export function supportsStrictTools(modelId: string): boolean {
  const generation = claudeGeneration(modelId);
  if (!generation) return false;
  return generation.tier === 'opus' ? atLeast(generation, 4, 1) : atLeast(generation, 4, 5);
}

/** Adaptive thinking with an effort level: Claude 4.6 and newer. */
function supportsAdaptiveThinking(modelId: string): boolean {
  const generation = claudeGeneration(modelId);
  return generation !== undefined && atLeast(generation, 4, 6);
}

const effortBudgets: Record<Exclude<ReasoningEffort, 'none'>, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16_384,
  xhigh: 32_768,
};

/** At most four cache breakpoints per request (Anthropic's limit). */
const maxCacheBreakpoints = 4;

/** How structured output is requested: a forced tool whose input is the answer. */
export interface ResponseTool {
  name: string;
  /** True when the schema was not an object and got wrapped as `{ value: <schema> }`. */
  wrapped: boolean;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toolInput(call: ToolCall): Record<string, unknown> {
  if (isPlainObject(call.arguments)) return call.arguments;
  try {
    const parsed: unknown = JSON.parse(call.rawArguments);
    if (isPlainObject(parsed)) return parsed;
  } catch {
    // fall through
  }
  return {};
}

const validToolUseId = /^[a-zA-Z0-9_-]+$/;

/**
 * A `tool_use` id as the Messages API takes it (`^[a-zA-Z0-9_-]+$`): Kimi's
 * `functions.read_file:0` becomes `functions_read_file_0`.
 */
function toolUseId(id: string): string {
  return validToolUseId.test(id) ? id : id.replace(/[^a-zA-Z0-9_-]/g, '_');
}

function badRequest(provider: string, message: string): ModelError {
  return new ModelError({ code: 'bad-request', message: `${provider}: ${message}`, provider });
}

/**
 * Converts closedloop messages to the Messages API: system messages are pulled out into the
 * `system` prompt; consecutive tool results (and a user message right after them) merge into one
 * user message, tool results first; assistant messages carry their thinking blocks (signature and
 * redacted data round-trip unchanged), text and `tool_use` blocks.
 */
export function toAnthropicMessages(
  messages: readonly ChatMessage[],
  options: { provider?: string } = {},
): { system: string | undefined; messages: MessageParam[] } {
  const provider = options.provider ?? 'anthropic';
  const system: string[] = [];
  const out: MessageParam[] = [];
  let results: ToolResultBlockParam[] = [];
  let texts: Array<TextBlockParam | ImageBlockParam | DocumentBlockParam> = [];
  // Valid and unique in the request, or Anthropic rejects the whole request.
  const ids = createToolCallIds({ normalize: toolUseId, emptyPrefix: 'toolu_' });

  const flushUser = () => {
    if (results.length === 0 && texts.length === 0) return;
    const only = texts[0];
    if (results.length === 0 && texts.length === 1 && only?.type === 'text')
      out.push({ role: 'user', content: only.text });
    else out.push({ role: 'user', content: [...results, ...texts] });
    results = [];
    texts = [];
  };

  messages.forEach((message, index) => {
    switch (message.role) {
      case 'system':
        if (message.content !== '') system.push(message.content);
        return;
      case 'user':
        if (message.content !== '') texts.push({ type: 'text', text: message.content });
        for (const [partIndex, part] of (message.parts ?? []).entries()) {
          texts.push(toContentBlock(part, { provider, path: `messages[${index}].parts[${partIndex}]` }));
        }
        return;
      case 'tool':
        results.push({
          type: 'tool_result',
          tool_use_id: ids.result(message.toolCallId),
          content: message.content,
          ...(message.isError ? { is_error: true } : {}),
        });
        return;
      case 'assistant': {
        flushUser();
        ids.startTurn();
        const blocks: ContentBlockParam[] = [];
        const calls = message.toolCalls ?? [];
        // Text and calls up to a place in the answer, each sent once.
        let textAt = 0;
        let callAt = 0;
        const sendUpTo = (textEnd: number, callEnd: number) => {
          const text = message.content.slice(textAt, textEnd);
          // Anthropic rejects whitespace-only text blocks.
          if (text.trim() !== '') blocks.push({ type: 'text', text });
          textAt = Math.max(textAt, Math.min(textEnd, message.content.length));
          for (; callAt < Math.min(callEnd, calls.length); callAt++) {
            const call = calls[callAt] as ToolCall;
            blocks.push({ type: 'tool_use', id: ids.call(call.id), name: call.name, input: toolInput(call) });
          }
        };
        for (const part of message.reasoning ?? []) {
          if (!part.signature) continue; // Unsigned reasoning (another provider's) cannot be verified: dropped.
          // Interleaved thinking goes back where it was among the text and tool_use blocks.
          const position = reasoningPosition(part);
          if (position) sendUpTo(position.text, position.toolCalls);
          if (part.redacted) blocks.push({ type: 'redacted_thinking', data: part.signature });
          else blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
        }
        sendUpTo(message.content.length, calls.length);
        if (blocks.length > 0) out.push({ role: 'assistant', content: blocks });
        return;
      }
      default: {
        const role = (message as { role?: unknown }).role;
        throw badRequest(
          provider,
          `messages[${index}] has unknown role ${JSON.stringify(role)}; expected system, user, assistant or tool`,
        );
      }
    }
  });
  flushUser();
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: out };
}

/**
 * Where a thinking block stood in the answer it came from (text characters and tool calls before
 * it), as the adapter recorded it in `providerData.anthropicPosition`; `undefined` for one at the
 * start, or reasoning from elsewhere.
 */
function reasoningPosition(part: ReasoningPart): { text: number; toolCalls: number } | undefined {
  const position = part.providerData?.anthropicPosition as
    | { text?: unknown; toolCalls?: unknown }
    | undefined;
  if (typeof position !== 'object' || position === null) return undefined;
  const { text, toolCalls } = position;
  const count = (value: unknown) =>
    Number.isInteger(value) && (value as number) >= 0 ? (value as number) : 0;
  return { text: count(text), toolCalls: count(toolCalls) };
}

function toContentBlock(
  part: ContentPart,
  where: { provider: string; path: string },
): TextBlockParam | ImageBlockParam | DocumentBlockParam {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const source = contentPartSource(part, where);
  if (part.type === 'image') {
    if (source.kind === 'url') return { type: 'image', source: { type: 'url', url: source.url } };
    return {
      type: 'image',
      source: {
        type: 'base64',
        media_type: source.mediaType as 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp',
        data: source.data,
      },
    };
  }
  const title = part.filename !== undefined ? { title: part.filename } : {};
  if (source.kind === 'url') return { type: 'document', source: { type: 'url', url: source.url }, ...title };
  if (source.mediaType === 'application/pdf') {
    return {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: source.data },
      ...title,
    };
  }
  if (source.mediaType.startsWith('text/')) {
    const text = new TextDecoder().decode(Uint8Array.from(atob(source.data), (char) => char.charCodeAt(0)));
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, ...title };
  }
  throw new ModelError({
    code: 'bad-request',
    message: `${where.provider}: ${where.path} (file) has media type ${source.mediaType}; Anthropic takes PDFs and text files as documents`,
    provider: where.provider,
  });
}

/**
 * Marks the prompt for caching with at most four `cache_control` breakpoints: the last tool, the
 * system prompt, and the last two user turns (the one the previous step of an agent loop cached,
 * so this step reads it, and the newest, so the next step can). Anthropic caches the prefix up to
 * each breakpoint (tools → system → messages); prompts shorter than the model's minimum are
 * simply not cached.
 */
export function placeCacheBreakpoints(
  body: Pick<MessageCreateParamsBase, 'system' | 'tools' | 'messages'>,
  cacheControl: CacheControlEphemeral,
): number {
  let placed = 0;
  const lastTool = body.tools?.at(-1);
  if (lastTool) {
    (lastTool as { cache_control?: CacheControlEphemeral }).cache_control = cacheControl;
    placed++;
  }
  if (typeof body.system === 'string' && body.system !== '') {
    body.system = [{ type: 'text', text: body.system, cache_control: cacheControl }];
    placed++;
  }
  const userTurns: number[] = [];
  for (let index = body.messages.length - 1; index >= 0 && userTurns.length < 2; index--) {
    if (body.messages[index]?.role === 'user') userTurns.push(index);
  }
  for (const index of userTurns) {
    if (placed >= maxCacheBreakpoints) break;
    const message = body.messages[index] as MessageParam;
    const blocks: ContentBlockParam[] =
      typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : [...message.content];
    const last = blocks.at(-1);
    if (!last || last.type === 'thinking' || last.type === 'redacted_thinking') continue;
    blocks[blocks.length - 1] = { ...last, cache_control: cacheControl } as ContentBlockParam;
    body.messages[index] = { ...message, content: blocks };
    placed++;
  }
  return placed;
}

function toToolChoice(
  choice: ToolChoice | undefined,
  disableParallel: boolean,
): AnthropicToolChoice | undefined {
  const parallel = disableParallel ? { disable_parallel_tool_use: true } : {};
  if (choice === undefined) return disableParallel ? { type: 'auto', ...parallel } : undefined;
  if (choice === 'none') return { type: 'none' };
  if (choice === 'auto') return { type: 'auto', ...parallel };
  if (choice === 'required') return { type: 'any', ...parallel };
  return { type: 'tool', name: choice.name, ...parallel };
}

function responseToolName(name: string | undefined, taken: ReadonlySet<string>): string {
  const base = (name ?? 'json_response').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64) || 'json_response';
  let candidate = base;
  for (let n = 2; taken.has(candidate); n++) candidate = `${base.slice(0, 60)}_${n}`;
  return candidate;
}

/** Inputs of {@link buildAnthropicRequest}. */
export interface BuildAnthropicRequestOptions {
  provider: string;
  modelId: string;
  request: GenerateRequest;
  capabilities: ModelCapabilities;
  settings: AnthropicChatSettings;
  stream: boolean;
  /** Receives what the request asked for but Anthropic or the model cannot do (left out). */
  warnings?: string[];
}

type Thinking = { budgetTokens: number } | { type: 'adaptive' } | undefined;

function shown(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/**
 * Checks the numeric per-model settings where the model is created (`anthropic(modelId,
 * settings)`), so a bad value fails at once, not at the first request:
 * `defaultMaxTokens` a positive integer, `thinking.budgetTokens` an integer >= 1024. Throws
 * `ModelError('bad-request')` with the value.
 */
export function checkAnthropicSettings(provider: string, settings: AnthropicChatSettings): void {
  const max = settings.defaultMaxTokens;
  if (max !== undefined && !(Number.isInteger(max) && max > 0)) {
    throw badRequest(provider, `defaultMaxTokens must be a positive integer, got ${shown(max)}`);
  }
  const thinking = settings.thinking;
  if (thinking && 'budgetTokens' in thinking) {
    const budget: unknown = thinking.budgetTokens;
    if (!(Number.isInteger(budget) && (budget as number) >= 1024))
      throw badRequest(provider, `thinking.budgetTokens must be an integer >= 1024, got ${shown(budget)}`);
  }
}

/**
 * Builds the Messages API request body. Structured output with a schema becomes a forced tool
 * (`tool_choice: { type: 'tool' }`) whose input is the answer; the returned `responseTool` tells
 * the parser which tool that is. Prompt caching is on unless `request.promptCache === false`
 * (see {@link placeCacheBreakpoints}); tools are strict where the schema and model allow; user
 * `parts` become image and document blocks; the typed per-call options map to `stop_sequences`,
 * `service_tier` and thinking. The typed `providerOptions.anthropic` (or `[provider]`) is applied
 * last; unknown keys are a `bad-request`.
 */
export function buildAnthropicRequest(options: BuildAnthropicRequestOptions): {
  body: MessageCreateParamsBase;
  responseTool: ResponseTool | undefined;
} {
  const { provider, modelId, request, capabilities, settings, stream } = options;
  const warnings = options.warnings ?? [];
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw badRequest(provider, 'request.messages must be a non-empty array');
  }
  checkCallOptions({ provider, request });
  const extra = parseProviderOptions({
    provider,
    keys: ['anthropic', provider],
    schema: anthropicRequestOptionsSchema,
    request,
  });
  const { system, messages } = toAnthropicMessages(request.messages, { provider });
  if (messages.length === 0) {
    throw badRequest(provider, 'the request has no user or assistant message (Anthropic needs at least one)');
  }
  const thinking = thinkingFor({ provider, modelId, capabilities, settings, request, extra, warnings });
  const budget = thinking && 'budgetTokens' in thinking ? thinking.budgetTokens : undefined;
  if (thinking && 'budgetTokens' in thinking && !(Number.isInteger(budget) && (budget ?? 0) >= 1024)) {
    throw badRequest(provider, `thinking.budgetTokens must be an integer >= 1024, got ${String(budget)}`);
  }
  const defaultMaxTokens = settings.defaultMaxTokens ?? Math.min(8192, capabilities.maxOutputTokens);
  const maxTokens =
    request.maxOutputTokens ?? (budget !== undefined ? budget + defaultMaxTokens : defaultMaxTokens);
  const body: MessageCreateParamsBase = { model: modelId, max_tokens: maxTokens, messages };
  if (system !== undefined) body.system = system;
  if (request.temperature !== undefined) {
    if (!thinking && capabilities.supportsTemperature !== false) body.temperature = request.temperature;
    else warnings.push('temperature is not sent while thinking is on');
  }
  if (thinking) {
    body.thinking = budget !== undefined ? { type: 'enabled', budget_tokens: budget } : { type: 'adaptive' };
    const effort = request.reasoningEffort;
    if (budget === undefined && effort !== undefined && effort !== 'none') {
      body.output_config = { effort: effort === 'minimal' ? 'low' : effort };
    }
  }
  if (extra.topK !== undefined) body.top_k = extra.topK;
  if (extra.topP !== undefined) body.top_p = extra.topP;
  if (extra.userId !== undefined) body.metadata = { user_id: extra.userId };
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    body.stop_sequences = request.stopSequences;
  }
  if (request.seed !== undefined) warnings.push('seed is not supported by Anthropic and was left out');
  if (request.verbosity !== undefined)
    warnings.push('verbosity is not supported by Anthropic and was left out');
  if (request.serviceTier !== undefined) {
    if (request.serviceTier === 'auto') body.service_tier = 'auto';
    else if (request.serviceTier === 'default') body.service_tier = 'standard_only';
    else warnings.push(`serviceTier ${request.serviceTier} is not offered by Anthropic and was left out`);
  }

  const strictTools = settings.strictTools ?? supportsStrictTools(modelId);
  const tools: Tool[] = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Tool.InputSchema,
    ...(strictTools && useStrictTool(tool) ? { strict: true } : {}),
  }));
  let toolChoice = request.toolChoice;
  if (tools.length === 0 && toolChoice !== undefined && toolChoice !== 'none') {
    throw badRequest(
      provider,
      `toolChoice ${JSON.stringify(toolChoice)} needs at least one tool in request.tools`,
    );
  }
  let responseTool: ResponseTool | undefined;
  const format = request.responseFormat;
  if (format?.schema !== undefined && capabilities.structuredOutput) {
    const wrapped = format.schema.type !== 'object';
    const name = responseToolName(format.name, new Set(tools.map((tool) => tool.name)));
    const schema: JsonSchema = wrapped
      ? {
          type: 'object',
          properties: { value: format.schema },
          required: ['value'],
          additionalProperties: false,
        }
      : format.schema;
    tools.push({
      name,
      description: format.description ?? 'Respond by calling this tool: its input is your complete answer.',
      input_schema: schema as Tool.InputSchema,
      ...(strictTools && useStrictTool({ inputSchema: schema }) ? { strict: true } : {}),
    });
    responseTool = { name, wrapped };
    // Thinking does not allow a forced tool; the model is then asked (not forced) to use it.
    toolChoice = thinking ? 'auto' : { type: 'tool', name };
  }
  if (tools.length > 0) {
    body.tools = tools;
    const choice = toToolChoice(toolChoice, request.parallelToolCalls === false);
    if (choice) body.tool_choice = choice;
  }
  if (request.promptCache !== false) {
    const ttl = request.promptCache?.ttl;
    placeCacheBreakpoints(body, { type: 'ephemeral', ...(ttl === '1h' ? { ttl } : {}) });
  }
  if (stream) body.stream = true;
  return {
    body: extra.extraBody ? ({ ...body, ...extra.extraBody } as MessageCreateParamsBase) : body,
    responseTool,
  };
}

/**
 * Thinking for this request: `providerOptions.anthropic.thinking`, else the request's
 * `reasoningEffort` (`none` turns it off; otherwise adaptive thinking with that effort on Claude
 * 4.6+, a budget on older thinking models), else the model setting.
 */
function thinkingFor(options: {
  provider: string;
  modelId: string;
  capabilities: ModelCapabilities;
  settings: AnthropicChatSettings;
  request: GenerateRequest;
  extra: AnthropicRequestOptions;
  warnings: string[];
}): Thinking {
  const { modelId, capabilities, settings, request, extra, warnings } = options;
  if (extra.thinking) return extra.thinking;
  const effort = request.reasoningEffort;
  if (effort === undefined) return settings.thinking;
  if (effort === 'none') return undefined;
  if (!capabilities.reasoning) {
    warnings.push(`reasoningEffort is not supported by ${modelId} (no extended thinking) and was left out`);
    return settings.thinking;
  }
  if (supportsAdaptiveThinking(modelId)) return { type: 'adaptive' };
  return { budgetTokens: effortBudgets[effort] };
}
