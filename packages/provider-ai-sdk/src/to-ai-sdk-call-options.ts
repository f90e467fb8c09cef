import type {
  JSONObject,
  LanguageModelV3CallOptions,
  LanguageModelV3DataContent,
  LanguageModelV3FilePart,
  LanguageModelV3TextPart,
  LanguageModelV3ToolChoice,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';
import { type ChatMessage, type GenerateRequest, ModelError, type ToolChoice } from '@closedloop/model';
import { checkCallOptions, contentPartSource } from '@closedloop/model/provider';
import type {
  AISDKPromptMessage,
  LanguageModelV4CallOptions,
  LanguageModelV4FileData,
  LanguageModelV4Message,
} from './language-model-v4';

function bad(provider: string, message: string): ModelError {
  return new ModelError({ code: 'bad-request', message: `${provider}: ${message}`, provider });
}

function providerOptionsOf(data: Record<string, unknown> | undefined): SharedV3ProviderOptions | undefined {
  const metadata = data?.providerMetadata;
  return typeof metadata === 'object' && metadata !== null
    ? (metadata as SharedV3ProviderOptions)
    : undefined;
}

function toolInput(call: { arguments: unknown; rawArguments: string }): unknown {
  if (call.arguments !== undefined && typeof call.arguments !== 'string') return call.arguments;
  try {
    return JSON.parse(call.rawArguments === '' ? '{}' : call.rawArguments);
  } catch {
    return call.rawArguments;
  }
}

/**
 * Converts closedloop messages to an AI SDK prompt (a `LanguageModelV3Prompt`, which V2 models read
 * the same way; `toAISDKCallOptions` gives v4 models V4's file data): user `parts` become `file` parts (images and PDFs as base64 or URLs); assistant
 * messages carry their reasoning and tool calls with the provider metadata they came with (as
 * `providerOptions`, so signatures and encrypted reasoning round-trip); consecutive tool results
 * become one `tool` message (`error-text` outputs for failures).
 */
export function toAISDKPrompt(messages: readonly ChatMessage[], provider: string): AISDKPromptMessage[] {
  const prompt: AISDKPromptMessage[] = [];
  for (const [index, message] of messages.entries()) {
    switch (message.role) {
      case 'system':
        prompt.push({ role: 'system', content: message.content });
        break;
      case 'user': {
        const content: Array<LanguageModelV3TextPart | LanguageModelV3FilePart> = [];
        if (message.content !== '' || !message.parts?.length)
          content.push({ type: 'text', text: message.content });
        for (const [partIndex, part] of (message.parts ?? []).entries()) {
          if (part.type === 'text') {
            content.push({ type: 'text', text: part.text });
            continue;
          }
          const source = contentPartSource(part, {
            provider,
            path: `messages[${index}].parts[${partIndex}]`,
          });
          const mediaType =
            source.mediaType ?? (part.type === 'image' ? 'image/*' : 'application/octet-stream');
          content.push({
            type: 'file',
            mediaType,
            data: source.kind === 'url' ? new URL(source.url) : source.data,
            ...(part.type === 'file' && part.filename ? { filename: part.filename } : {}),
          });
        }
        prompt.push({ role: 'user', content });
        break;
      }
      case 'assistant': {
        const content: Extract<AISDKPromptMessage, { role: 'assistant' }>['content'] = [];
        for (const part of message.reasoning ?? []) {
          const providerOptions = providerOptionsOf(part.providerData);
          if (part.text === '' && !providerOptions) continue;
          content.push({
            type: 'reasoning',
            text: part.text,
            ...(providerOptions ? { providerOptions } : {}),
          });
        }
        if (message.content !== '') content.push({ type: 'text', text: message.content });
        for (const call of message.toolCalls ?? []) {
          const providerOptions = providerOptionsOf(call.providerData);
          content.push({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            input: toolInput(call),
            ...(providerOptions ? { providerOptions } : {}),
          });
        }
        prompt.push({ role: 'assistant', content });
        break;
      }
      case 'tool': {
        const result: Extract<AISDKPromptMessage, { role: 'tool' }>['content'][number] = {
          type: 'tool-result',
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: message.isError
            ? { type: 'error-text', value: message.content }
            : { type: 'text', value: message.content },
        };
        const last = prompt.at(-1);
        if (last?.role === 'tool') last.content.push(result);
        else prompt.push({ role: 'tool', content: [result] });
        break;
      }
      default: {
        const role = (message as { role?: unknown }).role;
        throw bad(
          provider,
          `messages[${index}] has unknown role ${JSON.stringify(role)}; expected system, user, assistant or tool`,
        );
      }
    }
  }
  return prompt;
}

function toToolChoice(choice: ToolChoice): LanguageModelV3ToolChoice {
  return typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name };
}

function toV4FileData(data: LanguageModelV3DataContent): LanguageModelV4FileData {
  return data instanceof URL ? { type: 'url', url: data } : { type: 'data', data };
}

/** A V3 prompt in V4's shape: the same messages, with file data as V4's tagged union. */
function toV4Prompt(prompt: readonly AISDKPromptMessage[]): LanguageModelV4Message[] {
  return prompt.map((message) =>
    message.role === 'user'
      ? {
          ...message,
          content: message.content.map((part) =>
            part.type === 'file' ? { ...part, data: toV4FileData(part.data) } : part,
          ),
        }
      : message,
  );
}

/** Input of {@link toAISDKCallOptions}. */
export interface ToAISDKCallOptionsInput {
  provider: string;
  request: GenerateRequest;
  abortSignal: AbortSignal | undefined;
  /** Receives a note for every request field the AI SDK call options cannot carry. */
  warnings: string[];
  /** The model's specification version; default `v3` (which v2 models read the same way). */
  specificationVersion?: 'v2' | 'v3' | 'v4';
}

/**
 * The AI SDK call options for a closedloop request. Mapped: messages, tools (with `strict` when a
 * tool asks), tool choice, `maxOutputTokens`, `temperature`, `stopSequences`, `seed`, JSON
 * `responseFormat`, and `providerOptions` unchanged (the AI SDK keys them by provider name too,
 * and each AI SDK provider validates its own). What the specification has no field for
 * (`serviceTier`, `verbosity`, `parallelToolCalls`, `logprobs`, and `reasoningEffort` before
 * specification v4) goes to `warnings`: pass it in the provider's own `providerOptions` instead.
 * For a v4 model (AI SDK 7) file data is V4's tagged union and `reasoningEffort` is `reasoning`;
 * v2 models read the v3 options.
 */
export function toAISDKCallOptions(
  options: ToAISDKCallOptionsInput & { specificationVersion: 'v4' },
): LanguageModelV4CallOptions;
export function toAISDKCallOptions(
  options: ToAISDKCallOptionsInput & { specificationVersion?: 'v2' | 'v3' },
): LanguageModelV3CallOptions;
export function toAISDKCallOptions(
  options: ToAISDKCallOptionsInput,
): LanguageModelV3CallOptions | LanguageModelV4CallOptions;
export function toAISDKCallOptions(
  options: ToAISDKCallOptionsInput,
): LanguageModelV3CallOptions | LanguageModelV4CallOptions {
  const { provider, request, abortSignal, warnings, specificationVersion = 'v3' } = options;
  if (!Array.isArray(request.messages) || request.messages.length === 0) {
    throw bad(provider, 'request.messages must be a non-empty array');
  }
  checkCallOptions({ provider, request });
  const prompt = toAISDKPrompt(request.messages, provider);
  const call: LanguageModelV3CallOptions = { prompt };
  if (abortSignal) call.abortSignal = abortSignal;
  if (request.maxOutputTokens !== undefined) call.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) call.temperature = request.temperature;
  if (request.stopSequences?.length) call.stopSequences = request.stopSequences;
  if (request.seed !== undefined) call.seed = request.seed;
  const tools = request.tools ?? [];
  if (tools.length > 0) {
    call.tools = tools.map((tool) => ({
      type: 'function' as const,
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as LanguageModelV3CallOptions['tools'] extends Array<infer T>
        ? T extends { inputSchema: infer S }
          ? S
          : never
        : never,
      ...(tool.strict !== undefined ? { strict: tool.strict } : {}),
    }));
    if (request.toolChoice !== undefined) call.toolChoice = toToolChoice(request.toolChoice);
  } else if (request.toolChoice !== undefined && request.toolChoice !== 'none') {
    throw bad(
      provider,
      `toolChoice ${JSON.stringify(request.toolChoice)} needs at least one tool in request.tools`,
    );
  }
  const format = request.responseFormat;
  if (format) {
    call.responseFormat = {
      type: 'json',
      ...(format.schema ? { schema: format.schema as JSONObject } : {}),
      ...(format.name ? { name: format.name } : {}),
      ...(format.description ? { description: format.description } : {}),
    };
  }
  if (request.providerOptions) call.providerOptions = request.providerOptions as SharedV3ProviderOptions;
  const unmapped: Array<keyof GenerateRequest> = ['serviceTier', 'verbosity', 'parallelToolCalls'];
  // Specification v4 carries the reasoning effort (`reasoning`); v2 and v3 have no field for it.
  if (specificationVersion !== 'v4') unmapped.unshift('reasoningEffort');
  for (const key of unmapped) {
    if (request[key] !== undefined) {
      warnings.push(
        `${key} has no AI SDK call option and was left out; set it in the provider's providerOptions`,
      );
    }
  }
  if (request.logprobs) warnings.push('logprobs have no AI SDK call option and were left out');
  if (specificationVersion !== 'v4') return call;
  const v4: LanguageModelV4CallOptions = { ...call, prompt: toV4Prompt(prompt) };
  if (request.reasoningEffort !== undefined) v4.reasoning = request.reasoningEffort;
  return v4;
}
