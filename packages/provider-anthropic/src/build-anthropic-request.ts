import type {
  ToolChoice as AnthropicToolChoice,
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  TextBlockParam,
  Tool,
  ToolResultBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import {
  type ChatMessage,
  type GenerateRequest,
  type JsonSchema,
  type ModelCapabilities,
  ModelError,
  type ToolCall,
  type ToolChoice,
} from '@closedloop/model';

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
}

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
  let texts: TextBlockParam[] = [];

  const flushUser = () => {
    if (results.length === 0 && texts.length === 0) return;
    if (results.length === 0 && texts.length === 1 && texts[0])
      out.push({ role: 'user', content: texts[0].text });
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
        return;
      case 'tool':
        results.push({
          type: 'tool_result',
          tool_use_id: message.toolCallId,
          content: message.content,
          ...(message.isError ? { is_error: true } : {}),
        });
        return;
      case 'assistant': {
        flushUser();
        const blocks: ContentBlockParam[] = [];
        for (const part of message.reasoning ?? []) {
          if (part.redacted) {
            if (part.signature) blocks.push({ type: 'redacted_thinking', data: part.signature });
          } else if (part.signature) {
            // Unsigned reasoning (from another provider) cannot be verified by Anthropic: dropped.
            blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
          }
        }
        if (message.content !== '') blocks.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) {
          blocks.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call) });
        }
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
}

/**
 * Builds the Messages API request body. Structured output with a schema becomes a forced tool
 * (`tool_choice: { type: 'tool' }`) whose input is the answer; the returned `responseTool` tells
 * the parser which tool that is. `providerOptions.anthropic` (or `providerOptions[provider]`) is
 * merged in last, verbatim.
 */
export function buildAnthropicRequest(options: BuildAnthropicRequestOptions): {
  body: MessageCreateParamsBase;
  responseTool: ResponseTool | undefined;
} {
  const { provider, modelId, request, capabilities, settings, stream } = options;
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw badRequest(provider, 'request.messages must be a non-empty array');
  }
  const { system, messages } = toAnthropicMessages(request.messages, { provider });
  if (messages.length === 0) {
    throw badRequest(provider, 'the request has no user or assistant message (Anthropic needs at least one)');
  }
  const thinking = settings.thinking;
  const budget = thinking && 'budgetTokens' in thinking ? thinking.budgetTokens : undefined;
  if (thinking && 'budgetTokens' in thinking && !(Number.isInteger(budget) && (budget ?? 0) >= 1024)) {
    throw badRequest(provider, `thinking.budgetTokens must be an integer >= 1024, got ${String(budget)}`);
  }
  const defaultMaxTokens = settings.defaultMaxTokens ?? Math.min(8192, capabilities.maxOutputTokens);
  const maxTokens =
    request.maxOutputTokens ?? (budget !== undefined ? budget + defaultMaxTokens : defaultMaxTokens);
  const body: MessageCreateParamsBase = { model: modelId, max_tokens: maxTokens, messages };
  if (system !== undefined) body.system = system;
  if (request.temperature !== undefined && !thinking && capabilities.supportsTemperature !== false) {
    body.temperature = request.temperature;
  }
  if (thinking) {
    body.thinking = budget !== undefined ? { type: 'enabled', budget_tokens: budget } : { type: 'adaptive' };
  }

  const tools: Tool[] = (request.tools ?? []).map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Tool.InputSchema,
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
  if (stream) body.stream = true;
  const extras = request.providerOptions?.[provider] ?? request.providerOptions?.anthropic;
  return { body: extras ? ({ ...body, ...extras } as MessageCreateParamsBase) : body, responseTool };
}
