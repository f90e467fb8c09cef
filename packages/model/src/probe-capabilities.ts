import type { ModelCapabilities } from './capabilities';
import type { ChatModel, GenerateRequest } from './chat-model';
import { extractJson } from './extract-json';
import { generate } from './generate';
import { ModelError } from './model-error';
import type { RetryOptions } from './with-retry';

/** The outcome of one canary request. */
export interface ProbeOutcome {
  supported: boolean;
  /** Why it is unsupported: the error message or what was wrong with the answer. */
  detail?: string;
}

/** What {@link probeCapabilities} found out. */
export interface ProbeResult {
  provider: string;
  modelId: string;
  /** A trivial tool call with `toolChoice: 'required'`. */
  toolCalling: ProbeOutcome;
  /**
   * A tiny answer through `responseFormat` with a JSON schema whose key the prompt never names.
   * A model whose capabilities say no native structured output is asked too, but its adapter
   * does not send the schema, so this is `unsupported` — create the model with
   * `capabilities: { structuredOutput: true }` to find out whether the server really has it.
   */
  structuredOutput: ProbeOutcome;
  /** A request with `logprobs: true` that must come back with a `confidence`. */
  logprobs: ProbeOutcome;
  /** `model.capabilities` with the three probed flags replaced by what was observed. */
  capabilities: ModelCapabilities;
  /** Epoch ms of the probe. */
  probedAt: number;
}

/** Options for {@link probeCapabilities}. */
export interface ProbeCapabilitiesOptions {
  signal?: AbortSignal;
  /** Ignore the cache and probe again. */
  force?: boolean;
  /** Retry policy for the canary calls. */
  retry?: Omit<RetryOptions, 'signal'> | false;
}

const cache = new Map<string, Promise<ProbeResult>>();

/** Forgets cached probe results: all of them, or one provider + model id. */
export function clearProbeCache(model?: { provider: string; modelId: string }): void {
  if (model) cache.delete(cacheKey(model));
  else cache.clear();
}

function cacheKey(model: { provider: string; modelId: string }): string {
  return `${model.provider}\u0000${model.modelId}`;
}

/** Errors that answer the question "is it supported?" with "no". Others are inconclusive. */
function isUnsupported(error: unknown): error is ModelError {
  return ModelError.isInstance(error) && (error.code === 'bad-request' || error.code === 'invalid-response');
}

async function canary(
  model: ChatModel,
  request: GenerateRequest,
  options: ProbeCapabilitiesOptions,
  judge: (result: Awaited<ReturnType<typeof generate>>) => ProbeOutcome,
): Promise<ProbeOutcome> {
  const limited: GenerateRequest = model.capabilities.reasoning
    ? request
    : { ...request, maxOutputTokens: 64 };
  try {
    return judge(await generate(model, limited, { signal: options.signal, retry: options.retry }));
  } catch (error) {
    if (isUnsupported(error)) return { supported: false, detail: error.message };
    throw error;
  }
}

async function runProbe(model: ChatModel, options: ProbeCapabilitiesOptions): Promise<ProbeResult> {
  const toolCalling = await canary(
    model,
    {
      messages: [{ role: 'user', content: 'Call the tool `canary_echo` with value "ok".' }],
      tools: [
        {
          name: 'canary_echo',
          description: 'Echoes a value back.',
          inputSchema: {
            type: 'object',
            properties: { value: { type: 'string' } },
            required: ['value'],
            additionalProperties: false,
          },
        },
      ],
      toolChoice: 'required',
    },
    options,
    (result) =>
      result.toolCalls.some((call) => call.name === 'canary_echo')
        ? { supported: true }
        : {
            supported: false,
            detail: `no canary_echo call in the answer (text: ${JSON.stringify(result.text.slice(0, 80))})`,
          },
  );

  const structuredOutput = await canary(
    model,
    {
      // Neither JSON nor the key is mentioned: only a schema that reached the model (native
      // structured output) yields {"answer": 5}. A server that drops or downgrades it (plain JSON
      // mode) answers in prose or rejects the request, and the probe says "unsupported".
      messages: [{ role: 'user', content: 'What is 2 + 3?' }],
      responseFormat: {
        type: 'json',
        name: 'canary_sum',
        schema: {
          type: 'object',
          properties: { answer: { type: 'integer' } },
          required: ['answer'],
          additionalProperties: false,
        },
      },
    },
    options,
    (result) => {
      const parsed = extractJson(result.text);
      const answer = parsed.ok ? (parsed.value as { answer?: unknown } | null)?.answer : undefined;
      return typeof answer === 'number'
        ? { supported: true }
        : {
            supported: false,
            detail: `answer is not {"answer": <integer>}: ${JSON.stringify(result.text.slice(0, 80))}`,
          };
    },
  );

  const logprobs = await canary(
    model,
    { messages: [{ role: 'user', content: 'Reply with the single word: yes' }], logprobs: true },
    options,
    (result) =>
      typeof result.confidence === 'number'
        ? { supported: true }
        : { supported: false, detail: 'the result carried no confidence (no logprobs returned)' },
  );

  return {
    provider: model.provider,
    modelId: model.modelId,
    toolCalling,
    structuredOutput,
    logprobs,
    capabilities: {
      ...model.capabilities,
      toolCalling: toolCalling.supported,
      parallelToolCalls: toolCalling.supported && model.capabilities.parallelToolCalls,
      structuredOutput: structuredOutput.supported,
      logprobs: logprobs.supported,
    },
    probedAt: Date.now(),
  };
}

/**
 * Finds out what a model really supports by sending three tiny canary requests (a forced tool
 * call, a JSON-schema answer, a logprobs request). A `bad-request` or `invalid-response` answer
 * means "unsupported"; other failures (auth, rate limits after retries, abort) reject and are not
 * cached. Results are cached in memory per provider + model id; concurrent probes share one run.
 * See {@link clearProbeCache}.
 */
export function probeCapabilities(
  model: ChatModel,
  options: ProbeCapabilitiesOptions = {},
): Promise<ProbeResult> {
  const key = cacheKey(model);
  const cached = cache.get(key);
  if (cached && !options.force) return cached;
  const pending = runProbe(model, options);
  cache.set(key, pending);
  pending.catch(() => {
    if (cache.get(key) === pending) cache.delete(key);
  });
  return pending;
}
