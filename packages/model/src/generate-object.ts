import { z } from 'zod';
import type {
  ChatMessage,
  ChatModel,
  GenerateRequest,
  GenerateResult,
  JsonSchema,
  Usage,
} from './chat-model';
import { extractJson } from './extract-json';
import { generate } from './generate';
import { ModelError } from './model-error';
import { toJsonSchema } from './to-tool-spec';
import { addUsage } from './usage';
import type { RetryOptions } from './with-retry';

/** Options for {@link generateObject} (pass a plain string instead for a one-message prompt). */
export interface GenerateObjectOptions {
  /** A single user message. Use this or `messages`. */
  prompt?: string;
  /** The conversation. Use this or `prompt`. */
  messages?: ChatMessage[];
  /** System prompt; merged into a leading system message if `messages` has one. */
  system?: string;
  signal?: AbortSignal;
  /** Retry policy for each model call (transport errors), or `false`. */
  retry?: Omit<RetryOptions, 'signal'> | false;
  /** Name of the answer format, sent with native structured output. `[a-zA-Z0-9_-]`, default `response`. */
  name?: string;
  description?: string;
  /**
   * `auto` (default): native structured output when `model.capabilities.structuredOutput`, else
   * JSON in text. `native` / `text` force one.
   */
  mode?: 'auto' | 'native' | 'text';
  /** One repair turn after a parse or schema failure. Default true. */
  repair?: boolean;
  temperature?: number;
  maxOutputTokens?: number;
  providerOptions?: GenerateRequest['providerOptions'];
}

/** What {@link generateObject} resolves with. */
export interface GenerateObjectResult<T> {
  /** The parsed, schema-validated value. */
  object: T;
  /** The model result whose text parsed (the last call). */
  result: GenerateResult;
  /** Usage summed over all calls (first answer and repair). */
  usage: Usage;
  /** Model calls made: 1, or 2 when the repair turn was needed. */
  attempts: number;
  /** How the answer was requested. */
  mode: 'native' | 'text';
}

const namePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** The instruction added to the system prompt on the JSON-in-text path. */
export function jsonInstruction(schema: JsonSchema): string {
  return [
    'Answer with a single JSON value that conforms to this JSON Schema:',
    '```json',
    JSON.stringify(schema, null, 2),
    '```',
    'Reply with the JSON only: no explanation, no Markdown code fence.',
  ].join('\n');
}

function withSystem(messages: ChatMessage[], system: string | undefined): ChatMessage[] {
  if (system === undefined || system === '') return messages;
  const [first, ...rest] = messages;
  if (first?.role === 'system')
    return [{ role: 'system', content: `${first.content}\n\n${system}` }, ...rest];
  return [{ role: 'system', content: system }, ...messages];
}

function responseSchema(schema: z.ZodType): JsonSchema {
  // Output mode gives providers' strict mode what it wants (all keys required,
  // additionalProperties: false); schemas with transforms only convert in input mode.
  try {
    return toJsonSchema(schema, { io: 'output' });
  } catch {
    return toJsonSchema(schema, { io: 'input' });
  }
}

type Check<T> = { ok: true; value: T } | { ok: false; problem: string; cause: unknown };

function check<S extends z.ZodType>(schema: S, text: string): Check<z.output<S>> {
  const extracted = extractJson(text);
  if (!extracted.ok) {
    return {
      ok: false,
      problem: `The answer is not valid JSON: ${extracted.error}.`,
      cause: new SyntaxError(extracted.error),
    };
  }
  const parsed = schema.safeParse(extracted.value);
  if (!parsed.success) {
    return {
      ok: false,
      problem: `The JSON does not match the schema:\n${z.prettifyError(parsed.error)}`,
      cause: parsed.error,
    };
  }
  return { ok: true, value: parsed.data };
}

/**
 * Asks `model` for a value matching a zod schema and returns it parsed.
 *
 * Uses native structured output (`responseFormat` with the schema's JSON Schema) when the model
 * supports it, otherwise instructions in the system prompt plus extraction of the JSON from the
 * text (code fences and surrounding prose are tolerated). If the answer does not parse or
 * validate, the model gets one repair turn showing its previous output and the zod issues; if
 * that fails too, throws `ModelError('invalid-response')` with `rawOutput` (last answer),
 * `rawOutputs` (all answers) and the last `ZodError`/`SyntaxError` as `cause`.
 *
 * @example
 * const { object } = await generateObject(model, z.object({ city: z.string() }), 'Capital of France?');
 */
export async function generateObject<S extends z.ZodType>(
  model: ChatModel,
  schema: S,
  promptOrOptions: string | GenerateObjectOptions,
): Promise<GenerateObjectResult<z.output<S>>> {
  const options: GenerateObjectOptions =
    typeof promptOrOptions === 'string' ? { prompt: promptOrOptions } : promptOrOptions;
  const { signal, retry, description, repair = true, mode: requestedMode = 'auto' } = options;
  const name = options.name ?? 'response';
  if (!namePattern.test(name)) {
    throw new ModelError({
      code: 'bad-request',
      message: `generateObject: name ${JSON.stringify(name)} is invalid: use 1-64 characters of [a-zA-Z0-9_-]`,
    });
  }
  const baseMessages: ChatMessage[] | undefined =
    options.messages ??
    (options.prompt !== undefined ? [{ role: 'user', content: options.prompt }] : undefined);
  if (!baseMessages || baseMessages.length === 0) {
    throw new ModelError({
      code: 'bad-request',
      message: 'generateObject: pass a prompt string, or options with `prompt` or non-empty `messages`',
    });
  }

  const mode: 'native' | 'text' =
    requestedMode === 'auto' ? (model.capabilities.structuredOutput ? 'native' : 'text') : requestedMode;
  const jsonSchema = responseSchema(schema);
  const system =
    mode === 'text'
      ? [options.system, jsonInstruction(jsonSchema)].filter(Boolean).join('\n\n')
      : options.system;
  let messages = withSystem(baseMessages, system);

  const baseRequest: Omit<GenerateRequest, 'messages'> = {
    ...(mode === 'native' ? { responseFormat: { type: 'json', schema: jsonSchema, name, description } } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.maxOutputTokens !== undefined ? { maxOutputTokens: options.maxOutputTokens } : {}),
    ...(options.providerOptions !== undefined ? { providerOptions: options.providerOptions } : {}),
  };

  const maxAttempts = repair ? 2 : 1;
  const rawOutputs: string[] = [];
  let usage: Usage | undefined;
  let lastProblem = '';
  let lastCause: unknown;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const result = await generate(model, { ...baseRequest, messages }, { signal, retry });
    usage = usage ? addUsage(usage, result.usage) : result.usage;
    rawOutputs.push(result.text);
    if (result.finishReason === 'refusal' || result.finishReason === 'content-filter') {
      throw new ModelError({
        code: 'invalid-response',
        message: `generateObject(${name}): the model declined to answer (finish reason ${result.finishReason}): ${result.text.slice(0, 200)}`,
        isRetryable: false,
        provider: model.provider,
        rawOutput: result.text,
        rawOutputs: [...rawOutputs],
      });
    }
    const outcome = check(schema, result.text);
    if (outcome.ok) return { object: outcome.value, result, usage, attempts: attempt, mode };
    lastProblem = outcome.problem;
    lastCause = outcome.cause;
    messages = [
      ...messages,
      { role: 'assistant', content: result.text },
      {
        role: 'user',
        content: `${outcome.problem}\n\nReply again with only the corrected JSON value that conforms to the schema.`,
      },
    ];
  }
  throw new ModelError({
    code: 'invalid-response',
    message: `generateObject(${name}): ${model.provider}:${model.modelId} gave no valid answer after ${maxAttempts} attempt(s). ${lastProblem}`,
    isRetryable: false,
    provider: model.provider,
    rawOutput: rawOutputs.at(-1),
    rawOutputs,
    cause: lastCause,
  });
}
