import {
  type ChatMessage,
  type GenerateRequest,
  type JsonSchema,
  type ModelCapabilities,
  ModelError,
  type ToolChoice,
} from '@closedloop/model';
import type {
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';

/** OpenAI reasoning effort for reasoning models (o-series, gpt-5). */
export type OpenAIReasoningEffort = 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';

/** Per-model settings, the second argument of `openai(modelId, settings)`. */
export interface OpenAIChatSettings {
  /** Overrides on top of the capabilities resolved for the model id. */
  capabilities?: Partial<ModelCapabilities>;
  /** `reasoning_effort` for reasoning models; ignored for other models. */
  reasoningEffort?: OpenAIReasoningEffort;
  /**
   * Apply reasoning-model rules (`max_completion_tokens`, no `temperature`, `developer` role for
   * system messages on api.openai.com). Default: detected from the model id (o1/o3/o4 families
   * and gpt-5, except `gpt-5-chat`). Without them, the output-token field is
   * `capabilities.maxTokensParameter` (default `max_tokens`, which OpenAI-compatible servers
   * understand) and `temperature` is dropped when `capabilities.supportsTemperature` is false.
   */
  reasoningModel?: boolean;
  /**
   * Send `strict: true` with json_schema response formats. Default: strict whenever the schema
   * meets OpenAI's strict-mode rules (every object closed with `additionalProperties: false` and
   * every property required), non-strict otherwise.
   */
  strictJsonSchema?: boolean;
}

/**
 * True for model ids that follow OpenAI's reasoning-model rules: the o1/o3/o4 families and gpt-5
 * (but not `gpt-5-chat`, which is a chat model).
 */
export function isReasoningModelId(modelId: string): boolean {
  const id = modelId.toLowerCase().replace(/^openai\//, '');
  if (/^o\d(\b|-|$)/.test(id)) return true;
  return /^gpt-5(\b|-|\.|$)/.test(id) && !id.startsWith('gpt-5-chat');
}

function walkSchemas(schema: unknown, visit: (node: Record<string, unknown>) => boolean): boolean {
  if (typeof schema !== 'object' || schema === null) return true;
  if (Array.isArray(schema)) return schema.every((item) => walkSchemas(item, visit));
  const node = schema as Record<string, unknown>;
  if (!visit(node)) return false;
  for (const key of ['properties', '$defs', 'definitions', 'patternProperties']) {
    const children = node[key];
    if (typeof children === 'object' && children !== null) {
      if (!Object.values(children).every((child) => walkSchemas(child, visit))) return false;
    }
  }
  for (const key of ['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf', 'additionalProperties', 'not']) {
    if (key in node && !walkSchemas(node[key], visit)) return false;
  }
  return true;
}

/**
 * Whether OpenAI accepts a JSON Schema in strict mode: every object schema has
 * `additionalProperties: false` and lists all its properties in `required`.
 */
export function isStrictCompatibleSchema(schema: JsonSchema): boolean {
  return walkSchemas(schema, (node) => {
    const isObject = node.type === 'object' || (Array.isArray(node.type) && node.type.includes('object'));
    if (!isObject && node.properties === undefined) return true;
    if (node.additionalProperties !== false) return false;
    const properties = Object.keys((node.properties as Record<string, unknown> | undefined) ?? {});
    const required = Array.isArray(node.required) ? (node.required as unknown[]) : [];
    return properties.every((name) => required.includes(name));
  });
}

function toolArgumentsText(call: { arguments: unknown; rawArguments: string }): string {
  if (call.rawArguments.trim() !== '') return call.rawArguments;
  return JSON.stringify(call.arguments ?? {});
}

/**
 * Converts closedloop messages to Chat Completions messages. System messages become `developer`
 * messages for reasoning models; tool results are sent by `tool_call_id`, error results with an
 * `Error: ` prefix so the model sees that the call failed.
 */
export function toOpenAIMessages(
  messages: readonly ChatMessage[],
  options: { systemRole?: 'system' | 'developer'; provider?: string } = {},
): ChatCompletionMessageParam[] {
  const { systemRole = 'system', provider = 'openai' } = options;
  return messages.map((message, index): ChatCompletionMessageParam => {
    switch (message.role) {
      case 'system':
        return { role: systemRole, content: message.content };
      case 'user':
        return { role: 'user', content: message.content };
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) return { role: 'assistant', content: message.content };
        return {
          role: 'assistant',
          content: message.content === '' ? null : message.content,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.name, arguments: toolArgumentsText(call) },
          })),
        };
      }
      case 'tool':
        return {
          role: 'tool',
          tool_call_id: message.toolCallId,
          content: message.isError ? `Error: ${message.content}` : message.content,
        };
      default: {
        const role = (message as { role?: unknown }).role;
        throw new ModelError({
          code: 'bad-request',
          message: `${provider}: messages[${index}] has unknown role ${JSON.stringify(role)}; expected system, user, assistant or tool`,
          provider,
        });
      }
    }
  });
}

function toToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  if (typeof choice === 'string') return choice;
  return { type: 'function', function: { name: choice.name } };
}

/** A json_schema `name` must match `^[a-zA-Z0-9_-]{1,64}$`. */
function schemaName(name: string | undefined): string {
  const cleaned = (name ?? 'response').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'response' : cleaned;
}

/** Inputs of {@link buildOpenAIRequest}. */
export interface BuildOpenAIRequestOptions {
  provider: string;
  modelId: string;
  request: GenerateRequest;
  capabilities: ModelCapabilities;
  settings: OpenAIChatSettings;
  stream: boolean;
}

/**
 * Builds the Chat Completions request body for a closedloop request: messages, tools and
 * `tool_choice`, `parallel_tool_calls`, strict `json_schema` response format, logprobs,
 * reasoning-model rules and streaming usage. `providerOptions.openai` (or
 * `providerOptions[provider]`) is merged in last, verbatim.
 */
export function buildOpenAIRequest(options: BuildOpenAIRequestOptions): ChatCompletionCreateParamsBase {
  const { provider, modelId, request, capabilities, settings, stream } = options;
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw new ModelError({
      code: 'bad-request',
      message: `${provider}: request.messages must be a non-empty array`,
      provider,
    });
  }
  const reasoning = settings.reasoningModel ?? isReasoningModelId(modelId);
  const body: ChatCompletionCreateParamsBase = {
    model: modelId,
    messages: toOpenAIMessages(request.messages, {
      systemRole: reasoning && provider === 'openai' ? 'developer' : 'system',
      provider,
    }),
  };
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    body.tools = tools.map(
      (tool): ChatCompletionTool => ({
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
      }),
    );
    if (request.toolChoice !== undefined) body.tool_choice = toToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  } else if (request.toolChoice === 'none') {
    // Nothing to forbid without tools.
  } else if (request.toolChoice !== undefined) {
    throw new ModelError({
      code: 'bad-request',
      message: `${provider}: toolChoice ${JSON.stringify(request.toolChoice)} needs at least one tool in request.tools`,
      provider,
    });
  }
  if (request.maxOutputTokens !== undefined) {
    const parameter = reasoning ? 'max_completion_tokens' : (capabilities.maxTokensParameter ?? 'max_tokens');
    body[parameter] = request.maxOutputTokens;
  }
  const temperatureAllowed = !reasoning && capabilities.supportsTemperature !== false;
  if (request.temperature !== undefined && temperatureAllowed) body.temperature = request.temperature;
  if (reasoning && settings.reasoningEffort !== undefined) body.reasoning_effort = settings.reasoningEffort;
  const format = request.responseFormat;
  if (format !== undefined) {
    if (format.schema !== undefined && capabilities.structuredOutput) {
      body.response_format = {
        type: 'json_schema',
        json_schema: {
          name: schemaName(format.name),
          ...(format.description !== undefined ? { description: format.description } : {}),
          schema: format.schema,
          strict: settings.strictJsonSchema ?? isStrictCompatibleSchema(format.schema),
        },
      };
    } else {
      body.response_format = { type: 'json_object' };
    }
  }
  if (request.logprobs && capabilities.logprobs) body.logprobs = true;
  if (stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  const extras = request.providerOptions?.[provider] ?? request.providerOptions?.openai;
  return extras ? ({ ...body, ...extras } as ChatCompletionCreateParamsBase) : body;
}
