import {
  type ChatMessage,
  type ContentPart,
  type GenerateRequest,
  type JsonSchema,
  type ModelCapabilities,
  ModelError,
  type ReasoningPart,
  type ToolChoice,
} from '@closedloop/model';
import {
  checkCallOptions,
  contentPartSource,
  createToolCallIds,
  parseProviderOptions,
  promptCacheKey,
  strictSchemaProblem,
  useStrictTool,
} from '@closedloop/model/provider';
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import {
  genericCompatibleProfile,
  type OpenAICompatibleProfile,
  openAICompatibleProfiles,
} from './openai-compatible-profiles';
import { openAIRequestOptionsSchema } from './openai-request-options';

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
  /**
   * Send `strict: true` on function tools whose schema allows it. Default: when the server
   * accepts strict tools (OpenAI, Azure, xAI, OpenRouter); a tool's own `strict: false` wins.
   */
  strictTools?: boolean;
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

/**
 * Whether OpenAI accepts a JSON Schema in strict mode: every object schema has
 * `additionalProperties: false` and lists all its properties in `required`, and no keyword strict
 * mode rejects is used (`strictSchemaProblem` from `@closedloop/model` says which).
 */
export function isStrictCompatibleSchema(schema: JsonSchema): boolean {
  return strictSchemaProblem(schema, { root: 'any' }) === undefined;
}

function toolArgumentsText(call: { arguments: unknown; rawArguments: string }): string {
  if (call.rawArguments.trim() !== '') return call.rawArguments;
  return JSON.stringify(call.arguments ?? {});
}

function userContent(
  message: Extract<ChatMessage, { role: 'user' }>,
  index: number,
  provider: string,
): string | ChatCompletionContentPart[] {
  if (!message.parts || message.parts.length === 0) return message.content;
  const parts: ChatCompletionContentPart[] = [];
  if (message.content !== '') parts.push({ type: 'text', text: message.content });
  for (const [partIndex, part] of message.parts.entries()) {
    parts.push(toContentPart(part, { provider, path: `messages[${index}].parts[${partIndex}]` }));
  }
  return parts;
}

function toContentPart(
  part: ContentPart,
  where: { provider: string; path: string },
): ChatCompletionContentPart {
  if (part.type === 'text') return { type: 'text', text: part.text };
  const source = contentPartSource(part, where);
  const url = source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
  if (part.type === 'image') {
    return { type: 'image_url', image_url: { url, ...(part.detail ? { detail: part.detail } : {}) } };
  }
  if (source.kind === 'url') {
    throw new ModelError({
      code: 'bad-request',
      message: `${where.provider}: ${where.path} (file) by url is not supported by Chat Completions; send its bytes as base64 data`,
      provider: where.provider,
    });
  }
  return {
    type: 'file',
    file: {
      file_data: url,
      filename: part.filename ?? (source.mediaType === 'application/pdf' ? 'document.pdf' : 'file'),
    },
  };
}

/** Letters and digits of a fixed length from any id, the same every time (Mistral's tool-call ids). */
function rewriteId(id: string, length: number): string {
  let hash = 0x811c9dc5;
  let out = '';
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  for (let round = 0; out.length < length; round++) {
    for (let index = 0; index < id.length; index++) {
      hash ^= id.charCodeAt(index) + round;
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
    out += alphabet[hash % alphabet.length];
  }
  return out;
}

/** The tool-call id as this server accepts it (unchanged unless the profile restricts ids). */
export function wireToolCallId(id: string, profile: OpenAICompatibleProfile): string {
  const rule = profile.toolCallId;
  return !rule || rule.pattern.test(id) ? id : rewriteId(id, rule.length);
}

function reasoningText(parts: readonly ReasoningPart[]): string {
  return parts
    .filter((part) => !part.redacted && part.text !== '')
    .map((part) => part.text)
    .join('');
}

/** The wire field a reasoning part came in (`reasoning_content`, `reasoning`), when it says. */
function reasoningFieldOf(parts: readonly ReasoningPart[], profile: OpenAICompatibleProfile): string {
  for (const part of parts) {
    const field = part.providerData?.field;
    if (typeof field === 'string' && field !== 'content' && /^[a-z_]+$/.test(field)) return field;
  }
  return profile.reasoningFields[0] ?? 'reasoning_content';
}

/** How an assistant message's reasoning goes back: as its wire field, or as a content part when it came as one. */
function echoMode(
  parts: readonly ReasoningPart[],
  profile: OpenAICompatibleProfile,
): 'none' | 'field' | 'content' {
  if (profile.reasoningEcho === 'none') return 'none';
  // Reasoning the server inlined as <think> tags is not sent back.
  if (parts.every((part) => part.providerData?.field === 'think-tags')) return 'none';
  return parts.some((part) => part.providerData?.field === 'content') ? 'content' : profile.reasoningEcho;
}

/**
 * Converts closedloop messages to Chat Completions messages. System messages become `developer`
 * messages for reasoning models; user messages with `parts` become content arrays (text,
 * `image_url`, `file`); tool results are sent by `tool_call_id`, error results with an `Error: `
 * prefix so the model sees that the call failed. With a `profile`, assistant messages of the
 * current tool loop carry their reasoning back the way that server needs it, and tool-call ids are
 * rewritten where the server restricts them.
 */
export function toOpenAIMessages(
  messages: readonly ChatMessage[],
  options: { systemRole?: 'system' | 'developer'; provider?: string; profile?: OpenAICompatibleProfile } = {},
): ChatCompletionMessageParam[] {
  const { systemRole = 'system', provider = 'openai', profile = openAICompatibleProfiles.openai } = options;
  let lastUser = -1;
  for (const [index, message] of messages.entries()) if (message.role === 'user') lastUser = index;
  // Valid for the profile and unique in the request (llama.cpp/Ollama history restarts at `call_0`).
  const ids = createToolCallIds({ normalize: (id) => wireToolCallId(id, profile), emptyPrefix: 'call_' });
  return messages.map((message, index): ChatCompletionMessageParam => {
    switch (message.role) {
      case 'system':
        return { role: systemRole, content: message.content };
      case 'user':
        return { role: 'user', content: userContent(message, index, provider) };
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        const parts = message.reasoning ?? [];
        const mode = index > lastUser ? echoMode(parts, profile) : 'none';
        const reasoning = mode === 'none' ? '' : reasoningText(parts);
        let content: string | null | Array<Record<string, unknown>> =
          calls.length > 0 && message.content === '' ? null : message.content;
        const extra: Record<string, unknown> = {};
        const details =
          mode === 'none'
            ? undefined
            : parts.find((part) => Array.isArray(part.providerData?.reasoningDetails));
        if (details) {
          // OpenRouter's structured reasoning goes back exactly as it came.
          extra.reasoning_details = details.providerData?.reasoningDetails;
        } else if (reasoning !== '' && mode === 'field') {
          extra[reasoningFieldOf(parts, profile)] = reasoning;
        } else if (reasoning !== '' && mode === 'content') {
          content = [
            { type: 'thinking', thinking: [{ type: 'text', text: reasoning }] },
            ...(message.content === '' ? [] : [{ type: 'text', text: message.content }]),
          ];
        }
        const out = { role: 'assistant', content, ...extra } as ChatCompletionMessageParam &
          Record<string, unknown>;
        if (calls.length > 0) {
          ids.startTurn();
          out.tool_calls = calls.map((call) => {
            const extraContent = call.providerData?.extraContent;
            return {
              id: ids.call(call.id),
              type: 'function' as const,
              function: { name: call.name, arguments: toolArgumentsText(call) },
              // Gemini's thought signature of the call: its next request is rejected without it.
              ...(typeof extraContent === 'object' && extraContent !== null
                ? { extra_content: extraContent }
                : {}),
            };
          });
        }
        return out;
      }
      case 'tool':
        return {
          role: 'tool',
          tool_call_id: ids.result(message.toolCallId),
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

function toToolChoice(choice: ToolChoice, profile: OpenAICompatibleProfile): ChatCompletionToolChoiceOption {
  if (choice === 'required' && profile.requiredToolChoice) {
    return profile.requiredToolChoice as ChatCompletionToolChoiceOption;
  }
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
  /** The server's quirks. Default: `openai` for the provider `openai`, else the generic profile. */
  profile?: OpenAICompatibleProfile;
  /** Receives what the request asked for but this server or model cannot do (left out). */
  warnings?: string[];
}

/**
 * Builds the Chat Completions request body for a closedloop request: messages (content parts,
 * reasoning echo), tools (strict where the schema allows) and `tool_choice`,
 * `parallel_tool_calls`, strict `json_schema` response format, logprobs, reasoning-model rules,
 * the typed per-call options (`stopSequences`, `seed`, `reasoningEffort`, `serviceTier`,
 * `verbosity`), `prompt_cache_key`, streaming usage, and the typed `providerOptions.openai` (or
 * `providerOptions[provider]`; unknown keys are a `bad-request`), whose `extraBody` is merged in
 * last, verbatim.
 */
export function buildOpenAIRequest(options: BuildOpenAIRequestOptions): ChatCompletionCreateParamsBase {
  const { provider, modelId, request, capabilities, settings, stream } = options;
  const profile =
    options.profile ?? (provider === 'openai' ? openAICompatibleProfiles.openai : genericCompatibleProfile);
  const warnings = options.warnings ?? [];
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw new ModelError({
      code: 'bad-request',
      message: `${provider}: request.messages must be a non-empty array`,
      provider,
    });
  }
  checkCallOptions({ provider, request });
  const extra = parseProviderOptions({
    provider,
    keys: ['openai', provider],
    schema: openAIRequestOptionsSchema,
    request,
  });
  const reasoning = settings.reasoningModel ?? isReasoningModelId(modelId);
  const body: ChatCompletionCreateParamsBase = {
    model: modelId,
    messages: toOpenAIMessages(request.messages, {
      systemRole: reasoning && provider === 'openai' ? 'developer' : 'system',
      provider,
      profile,
    }),
  };
  const tools = request.tools ?? [];
  const strictTools = settings.strictTools ?? profile.strictTools;
  if (tools.length > 0) {
    body.tools = tools.map(
      (tool): ChatCompletionTool => ({
        type: 'function',
        function: {
          name: tool.name,
          description: tool.description,
          parameters: tool.inputSchema,
          ...(strictTools && useStrictTool(tool) ? { strict: true } : {}),
        },
      }),
    );
    if (request.toolChoice !== undefined) body.tool_choice = toToolChoice(request.toolChoice, profile);
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
    const parameter = reasoning
      ? 'max_completion_tokens'
      : (capabilities.maxTokensParameter ?? profile.maxTokensParameter);
    body[parameter] = request.maxOutputTokens;
  }
  const temperatureAllowed = !reasoning && capabilities.supportsTemperature !== false;
  if (request.temperature !== undefined) {
    if (temperatureAllowed) body.temperature = request.temperature;
    else warnings.push(`temperature is not supported by ${modelId} and was left out`);
  }
  if (extra.topP !== undefined) body.top_p = extra.topP;
  if (extra.frequencyPenalty !== undefined) body.frequency_penalty = extra.frequencyPenalty;
  if (extra.presencePenalty !== undefined) body.presence_penalty = extra.presencePenalty;
  if (extra.logitBias !== undefined) body.logit_bias = extra.logitBias;
  if (extra.user !== undefined) body.user = extra.user;
  if (extra.safetyIdentifier !== undefined) body.safety_identifier = extra.safetyIdentifier;
  if (extra.metadata !== undefined) body.metadata = extra.metadata;
  if (extra.store !== undefined) body.store = extra.store;
  if (extra.topK !== undefined) (body as unknown as Record<string, unknown>).top_k = extra.topK;

  const effort = request.reasoningEffort ?? extra.reasoningEffort ?? settings.reasoningEffort;
  if (effort !== undefined) {
    if ((reasoning || capabilities.reasoning) && profile.reasoningEffort) body.reasoning_effort = effort;
    else if (request.reasoningEffort !== undefined || extra.reasoningEffort !== undefined) {
      warnings.push(`reasoningEffort is not supported by ${provider}:${modelId} and was left out`);
    }
  }
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    if (profile.name === 'openai' && request.stopSequences.length > 4) {
      throw new ModelError({
        code: 'bad-request',
        message: `${provider}: at most 4 stopSequences are allowed, got ${request.stopSequences.length}`,
        provider,
      });
    }
    if (reasoning && profile.name === 'openai')
      warnings.push(`stopSequences are not supported by ${modelId} and were left out`);
    else body.stop = request.stopSequences;
  }
  const seed = request.seed ?? extra.seed;
  if (seed !== undefined) {
    if (profile.seedParameter) (body as unknown as Record<string, unknown>)[profile.seedParameter] = seed;
    else warnings.push(`seed is not supported by ${provider} and was left out`);
  }
  const tier = request.serviceTier ?? extra.serviceTier;
  if (tier !== undefined) {
    const wire = profile.serviceTiers?.[tier];
    if (wire !== undefined) (body as unknown as Record<string, unknown>).service_tier = wire;
    else warnings.push(`serviceTier ${tier} is not supported by ${provider} and was left out`);
  }
  const verbosity = request.verbosity ?? extra.verbosity;
  if (verbosity !== undefined) {
    if (profile.verbosity && reasoning) body.verbosity = verbosity;
    else warnings.push(`verbosity is not supported by ${provider}:${modelId} and was left out`);
  }
  if (profile.promptCacheKey) {
    const key =
      request.promptCache === false
        ? undefined
        : (request.promptCache?.key ?? extra.promptCacheKey ?? promptCacheKey({ modelId, request }));
    if (key !== undefined) body.prompt_cache_key = key;
    if (extra.promptCacheRetention !== undefined) body.prompt_cache_retention = extra.promptCacheRetention;
  }
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
  if (request.logprobs) {
    if (capabilities.logprobs && profile.logprobs) body.logprobs = true;
    else warnings.push(`logprobs are not supported by ${provider}:${modelId}`);
  }
  if (stream) {
    body.stream = true;
    if (profile.streamUsageOption) body.stream_options = { include_usage: true };
  }
  return extra.extraBody ? ({ ...body, ...extra.extraBody } as ChatCompletionCreateParamsBase) : body;
}
