import {
  type ChatMessage,
  type ContentPart,
  type GenerateRequest,
  type ModelCapabilities,
  ModelError,
  type ReasoningPart,
  type ToolChoice,
} from '@closedloop/model';
import {
  checkCallOptions,
  contentPartSource,
  createToolCallIds,
  idDigest,
  parseProviderOptions,
  promptCacheKey,
  useStrictTool,
} from '@closedloop/model/provider';
import type {
  ResponseCreateParamsBase,
  ResponseInputContent,
  ResponseInputItem,
  Tool,
  ToolChoiceOptions,
} from 'openai/resources/responses/responses';
import {
  isReasoningModelId,
  isStrictCompatibleSchema,
  type OpenAIChatSettings,
} from './build-openai-request';
import { type OpenAICompatibleProfile, openAICompatibleProfiles } from './openai-compatible-profiles';
import { openAIRequestOptionsSchema } from './openai-request-options';

/** Per-model settings of `openai.responses(modelId, settings)`: the chat settings plus reasoning summaries. */
export interface OpenAIResponsesSettings extends OpenAIChatSettings {
  /**
   * Reasoning summaries for reasoning models (`reasoning.summary`): `auto` (default), `concise`,
   * `detailed`, or `none` to ask for none.
   */
  reasoningSummary?: 'auto' | 'concise' | 'detailed' | 'none';
}

/** Inputs of {@link buildResponsesRequest}. */
export interface BuildResponsesRequestOptions {
  provider: string;
  modelId: string;
  request: GenerateRequest;
  capabilities: ModelCapabilities;
  settings: OpenAIResponsesSettings;
  stream: boolean;
  profile?: OpenAICompatibleProfile;
  /** Receives what the request asked for but this model cannot do (left out). */
  warnings?: string[];
}

function bad(provider: string, message: string): ModelError {
  return new ModelError({ code: 'bad-request', message: `${provider}: ${message}`, provider });
}

function inputContent(part: ContentPart, where: { provider: string; path: string }): ResponseInputContent {
  if (part.type === 'text') return { type: 'input_text', text: part.text };
  const source = contentPartSource(part, where);
  if (part.type === 'image') {
    const url = source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
    return { type: 'input_image', image_url: url, detail: part.detail ?? 'auto' };
  }
  if (source.kind === 'url') return { type: 'input_file', file_url: source.url };
  return {
    type: 'input_file',
    file_data: `data:${source.mediaType};base64,${source.data}`,
    filename: part.filename ?? (source.mediaType === 'application/pdf' ? 'document.pdf' : 'file'),
  };
}

/** A `call_id` the Responses API takes: 1–64 characters, no whitespace or control characters. */
const validCallId = /^[^\s\p{Cc}]{1,64}$/u;

/**
 * A `call_id` as the Responses API takes it: unchanged when valid; else (Codex and MCP ids longer
 * than 64 characters, ids with spaces) its start with invalid characters replaced, and a digest of
 * the whole id so two long ids with one prefix stay apart — the same for the same id, so each
 * `function_call_output` follows its call.
 */
function responsesCallId(id: string): string {
  if (validCallId.test(id)) return id;
  const digest = idDigest(id);
  return `${id.replace(/[\s\p{Cc}]/gu, '_').slice(0, 63 - digest.length)}_${digest}`;
}

/** A reasoning item of a previous turn, as the Responses API wants it back (stateless). */
function reasoningItem(part: ReasoningPart): ResponseInputItem | undefined {
  const id = typeof part.providerData?.itemId === 'string' ? part.providerData.itemId : undefined;
  // Without encrypted content a reasoning item cannot be replayed statelessly (`store: false`).
  if (!id || !part.signature) return undefined;
  return {
    type: 'reasoning',
    id,
    encrypted_content: part.signature,
    summary: part.text === '' ? [] : [{ type: 'summary_text', text: part.text }],
  };
}

/**
 * Converts closedloop messages to Responses API input items: system messages as `system` (or
 * `developer` for reasoning models) messages; user messages with `input_text`/`input_image`/
 * `input_file` parts; assistant messages as their reasoning items (encrypted content, so the
 * reasoning carries across tool steps without server-side state), an output message and
 * `function_call` items; tool results as `function_call_output` items (errors prefixed `Error: `).
 */
export function toResponsesInput(
  messages: readonly ChatMessage[],
  options: { systemRole?: 'system' | 'developer'; provider?: string } = {},
): ResponseInputItem[] {
  const { systemRole = 'system', provider = 'openai' } = options;
  const items: ResponseInputItem[] = [];
  // Valid and unique in the request; each result follows its call's id.
  const ids = createToolCallIds({ normalize: responsesCallId, emptyPrefix: 'call_' });
  for (const [index, message] of messages.entries()) {
    switch (message.role) {
      case 'system':
        items.push({ role: systemRole, content: message.content });
        break;
      case 'user': {
        if (!message.parts || message.parts.length === 0) {
          items.push({ role: 'user', content: message.content });
          break;
        }
        const content: ResponseInputContent[] = [];
        if (message.content !== '') content.push({ type: 'input_text', text: message.content });
        for (const [partIndex, part] of message.parts.entries()) {
          content.push(inputContent(part, { provider, path: `messages[${index}].parts[${partIndex}]` }));
        }
        items.push({ role: 'user', content });
        break;
      }
      case 'assistant':
        for (const part of message.reasoning ?? []) {
          const item = reasoningItem(part);
          if (item) items.push(item);
        }
        if (message.content !== '') items.push({ role: 'assistant', content: message.content });
        if ((message.toolCalls ?? []).length > 0) ids.startTurn();
        for (const call of message.toolCalls ?? []) {
          items.push({
            type: 'function_call',
            call_id: ids.call(call.id),
            name: call.name,
            arguments:
              call.rawArguments.trim() !== '' ? call.rawArguments : JSON.stringify(call.arguments ?? {}),
          });
        }
        break;
      case 'tool':
        items.push({
          type: 'function_call_output',
          call_id: ids.result(message.toolCallId),
          output: message.isError ? `Error: ${message.content}` : message.content,
        });
        break;
      default: {
        const role = (message as { role?: unknown }).role;
        throw bad(
          provider,
          `messages[${index}] has unknown role ${JSON.stringify(role)}; expected system, user, assistant or tool`,
        );
      }
    }
  }
  return items;
}

function toToolChoice(choice: ToolChoice): ToolChoiceOptions | { type: 'function'; name: string } {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}

function schemaName(name: string | undefined): string {
  const cleaned = (name ?? 'response').replace(/[^a-zA-Z0-9_-]/g, '_').slice(0, 64);
  return cleaned === '' ? 'response' : cleaned;
}

/**
 * Builds a Responses API request body for a closedloop request. Stateless by default:
 * `store: false` and `include: ['reasoning.encrypted_content']` for reasoning models, so each
 * step sends the previous steps' reasoning items back itself. Function tools (strict where the
 * schema allows), `tool_choice`, `parallel_tool_calls`, structured output as
 * `text.format: json_schema`, `reasoning: { effort, summary }`, `text.verbosity`,
 * `max_output_tokens`, `prompt_cache_key`, `service_tier`, and the typed
 * `providerOptions.openai` (unknown keys are a `bad-request`; `extraBody` merged last).
 */
export function buildResponsesRequest(options: BuildResponsesRequestOptions): ResponseCreateParamsBase {
  const { provider, modelId, request, capabilities, settings, stream } = options;
  const profile = options.profile ?? openAICompatibleProfiles.openai;
  const warnings = options.warnings ?? [];
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw bad(provider, 'request.messages must be a non-empty array');
  }
  checkCallOptions({ provider, request });
  const extra = parseProviderOptions({
    provider,
    keys: ['openai', provider],
    schema: openAIRequestOptionsSchema,
    request,
  });
  const reasoning = settings.reasoningModel ?? (isReasoningModelId(modelId) || capabilities.reasoning);
  const body: ResponseCreateParamsBase = {
    model: modelId,
    input: toResponsesInput(request.messages, { systemRole: reasoning ? 'developer' : 'system', provider }),
    store: extra.store ?? false,
  };
  if (reasoning && body.store === false) body.include = ['reasoning.encrypted_content'];
  const tools = request.tools ?? [];
  const strictTools = settings.strictTools ?? profile.strictTools;
  if (tools.length > 0) {
    body.tools = tools.map(
      (tool): Tool => ({
        type: 'function',
        name: tool.name,
        description: tool.description,
        parameters: tool.inputSchema,
        strict: strictTools && useStrictTool(tool),
      }),
    );
    if (request.toolChoice !== undefined) body.tool_choice = toToolChoice(request.toolChoice);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  } else if (request.toolChoice !== undefined && request.toolChoice !== 'none') {
    throw bad(
      provider,
      `toolChoice ${JSON.stringify(request.toolChoice)} needs at least one tool in request.tools`,
    );
  }
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) {
    if (!reasoning && capabilities.supportsTemperature !== false) body.temperature = request.temperature;
    else warnings.push(`temperature is not supported by ${modelId} and was left out`);
  }
  if (extra.topP !== undefined) body.top_p = extra.topP;
  if (extra.user !== undefined) body.user = extra.user;
  if (extra.safetyIdentifier !== undefined) body.safety_identifier = extra.safetyIdentifier;
  if (extra.metadata !== undefined) body.metadata = extra.metadata;
  const effort = request.reasoningEffort ?? extra.reasoningEffort ?? settings.reasoningEffort;
  if (reasoning) {
    const summary = settings.reasoningSummary ?? 'auto';
    body.reasoning = {
      ...(effort !== undefined ? { effort } : {}),
      ...(summary !== 'none' ? { summary } : {}),
    };
  } else if (request.reasoningEffort !== undefined || extra.reasoningEffort !== undefined) {
    warnings.push(`reasoningEffort is not supported by ${modelId} and was left out`);
  }
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) {
    warnings.push('stopSequences are not supported by the Responses API and were left out');
  }
  if ((request.seed ?? extra.seed) !== undefined) {
    warnings.push('seed is not supported by the Responses API and was left out');
  }
  const tier = request.serviceTier ?? extra.serviceTier;
  if (tier !== undefined) body.service_tier = tier;
  const text: NonNullable<ResponseCreateParamsBase['text']> = {};
  const verbosity = request.verbosity ?? extra.verbosity;
  if (verbosity !== undefined) {
    if (reasoning) text.verbosity = verbosity;
    else warnings.push(`verbosity is not supported by ${modelId} and was left out`);
  }
  const format = request.responseFormat;
  if (format !== undefined) {
    text.format =
      format.schema !== undefined && capabilities.structuredOutput
        ? {
            type: 'json_schema',
            name: schemaName(format.name),
            ...(format.description !== undefined ? { description: format.description } : {}),
            schema: format.schema,
            strict: settings.strictJsonSchema ?? isStrictCompatibleSchema(format.schema),
          }
        : { type: 'json_object' };
  }
  if (Object.keys(text).length > 0) body.text = text;
  if (request.logprobs) warnings.push('logprobs are not mapped by the Responses adapter');
  const key =
    request.promptCache === false
      ? undefined
      : (request.promptCache?.key ?? extra.promptCacheKey ?? promptCacheKey({ modelId, request }));
  if (key !== undefined && profile.promptCacheKey) body.prompt_cache_key = key;
  if (extra.promptCacheRetention !== undefined) body.prompt_cache_retention = extra.promptCacheRetention;
  if (stream) body.stream = true;
  return extra.extraBody ? ({ ...body, ...extra.extraBody } as ResponseCreateParamsBase) : body;
}
