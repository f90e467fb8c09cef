import { abortableSleep, abortedError, raceAbort } from './abortable-sleep';
import type { ModelCapabilities } from './capabilities';
import type {
  CallOptions,
  ChatModel,
  FinishReason,
  GenerateRequest,
  GenerateResult,
  ReasoningPart,
  StreamPart,
  ToolCall,
  Usage,
} from './chat-model';
import { ModelError } from './model-error';
import { resultToStream } from './stream-to-result';

/** A tool call in a script: `arguments` as a value; `id` and `rawArguments` are filled in. */
export interface ScriptedToolCall {
  id?: string;
  name: string;
  arguments?: unknown;
  /** Raw argument text; default `JSON.stringify(arguments ?? {})`. Set it to script malformed JSON. */
  rawArguments?: string;
}

/** A scripted answer: a partial `GenerateResult`. Missing fields get deterministic defaults. */
export interface ScriptedResponse {
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Default `tool-calls` when there are tool calls, else `stop`. */
  finishReason?: FinishReason;
  rawFinishReason?: string;
  /** Default: about one token per 4 characters of input and output. */
  usage?: Partial<Usage>;
  reasoning?: ReasoningPart[];
  confidence?: number;
  response?: GenerateResult['response'];
}

/** A scripted failure: the call throws `error`. */
export interface ScriptedError {
  error: Error;
}

/** Context passed to a function turn. */
export interface ScriptedTurnContext {
  /** 0-based index of this call on the model. */
  callIndex: number;
}

/** One scripted step: an answer, a failure, or a function of the request returning either. */
export type ScriptedTurn =
  | ScriptedResponse
  | ScriptedError
  | ((
      request: GenerateRequest,
      context: ScriptedTurnContext,
    ) => ScriptedResponse | ScriptedError | Promise<ScriptedResponse | ScriptedError>);

/** A rule checked before the ordered turns: when `match(request)` holds, answer with `respond`. */
export interface ScriptedMatcher {
  match: (request: GenerateRequest) => boolean;
  respond: ScriptedTurn;
  /** How many times the rule may answer. Default unlimited. */
  times?: number;
}

/** Options of {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  /** Default `scripted-model`. */
  modelId?: string;
  /** Merged over the scripted defaults (everything on except logprobs, reasoning and vision). */
  capabilities?: Partial<ModelCapabilities>;
  /** Delay before each answer, fixed or per request. Aborting during it rejects at once. */
  latencyMs?: number | ((request: GenerateRequest) => number);
  /** Answers in order. */
  turns?: ScriptedTurn[];
  /** Rules checked before `turns`, first match wins. */
  matchers?: ScriptedMatcher[];
  /** Characters per delta in `doStream`. Default 8. */
  streamChunkSize?: number;
  /**
   * Keep a deep copy of every request in `requests`/`calls` (default `true`). Turn it off for
   * long runs and benchmarks: copying a growing conversation on every call is quadratic.
   */
  recordRequests?: boolean;
}

/** A record of one call on a {@link ScriptedModel}. */
export interface ScriptedCall {
  request: GenerateRequest;
  result?: GenerateResult;
  error?: Error;
}

const defaultCapabilities: ModelCapabilities = {
  toolCalling: true,
  parallelToolCalls: true,
  streaming: true,
  structuredOutput: true,
  logprobs: false,
  reasoning: false,
  vision: false,
  contextWindow: 128_000,
  maxOutputTokens: 16_384,
};

/** Deterministic token estimate: one token per 4 characters, rounded up. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

const none: readonly never[] = [];

/** The length of `String(value)`: a string's own length, no copy. */
function lengthOf(value: unknown): number {
  return typeof value === 'string' ? value.length : String(value).length;
}

/**
 * The length of everything the request says (messages, tool calls, tools, response schema): the
 * input the token estimate counts, summed without building the text.
 */
function requestLength(request: GenerateRequest): number {
  let length = 0;
  for (const message of request.messages) {
    length += lengthOf(message.content);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls ?? none) length += lengthOf(call.name + call.rawArguments);
    }
  }
  for (const tool of request.tools ?? none)
    length += tool.name.length + lengthOf(tool.description) + schemaLength(tool.inputSchema);
  if (request.responseFormat?.schema) length += schemaLength(request.responseFormat.schema);
  return length;
}

/**
 * `JSON.stringify(schema).length`, once per schema object: a run's requests share their tool specs
 * (the executor builds them once per registry), so every turn would stringify the same schemas.
 * A schema changed in place after its first use keeps its first length — it is a token estimate.
 */
const schemaLengths = new WeakMap<object, number>();
function schemaLength(schema: unknown): number {
  if (schema === null || typeof schema !== 'object') return lengthOf(JSON.stringify(schema));
  let length = schemaLengths.get(schema);
  if (length === undefined) {
    length = lengthOf(JSON.stringify(schema));
    schemaLengths.set(schema, length);
  }
  return length;
}

function cloneRequest(request: GenerateRequest): GenerateRequest {
  try {
    return structuredClone(request);
  } catch {
    return { ...request, messages: request.messages.map((message) => ({ ...message })) };
  }
}

function describeRequest(request: GenerateRequest): string {
  const last = request.messages.at(-1);
  const lastText = last
    ? `last message (${last.role}): ${JSON.stringify(last.content.slice(0, 160))}`
    : 'no messages';
  const tools = request.tools?.length ? `, tools: ${request.tools.map((tool) => tool.name).join(', ')}` : '';
  return `${request.messages.length} message(s), ${lastText}${tools}`;
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function isScriptedError(value: ScriptedResponse | ScriptedError): value is ScriptedError {
  return 'error' in value && value.error instanceof Error;
}

/** Builds a turn that answers with one tool call. */
export function toolCallTurn(name: string, args: unknown = {}, id?: string): ScriptedResponse {
  return { toolCalls: [{ name, arguments: args, ...(id !== undefined ? { id } : {}) }] };
}

/** Builds a turn that answers with text. */
export function textTurn(text: string): ScriptedResponse {
  return { text };
}

/** Builds a turn that throws `error` (e.g. a `ModelError` with code `rate-limited`). */
export function errorTurn(error: Error): ScriptedError {
  return { error };
}

/**
 * A deterministic `ChatModel` for tests and offline demos. Answers from matchers (first match),
 * then ordered turns; records every request; honours `signal`; streams by chunking its answers.
 * Running out of turns throws a `ModelError('invalid-response')` that names the request.
 *
 * @example
 * const model = new ScriptedModel({ turns: [toolCallTurn('read_file', { path: 'a.ts' }), textTurn('done')] });
 */
export class ScriptedModel implements ChatModel {
  readonly specificationVersion = 'v1' as const;
  readonly provider = 'scripted';
  readonly modelId: string;
  readonly capabilities: ModelCapabilities;
  /** Every request received, in order (deep copies). */
  readonly requests: GenerateRequest[] = [];
  /** Every call with its result or error, in order. */
  readonly calls: ScriptedCall[] = [];
  private readonly turns: ScriptedTurn[];
  private readonly matchers: Array<ScriptedMatcher & { used: number }>;
  private readonly latencyMs: ScriptedModelOptions['latencyMs'];
  private readonly streamChunkSize: number;
  private readonly recordRequests: boolean;
  private callCount = 0;
  private nextCallId = 1;

  constructor(options: ScriptedModelOptions = {}) {
    this.modelId = options.modelId ?? 'scripted-model';
    this.capabilities = { ...defaultCapabilities, ...options.capabilities };
    this.turns = [...(options.turns ?? [])];
    this.matchers = (options.matchers ?? []).map((matcher) => ({ ...matcher, used: 0 }));
    this.latencyMs = options.latencyMs;
    this.streamChunkSize = options.streamChunkSize ?? 8;
    this.recordRequests = options.recordRequests ?? true;
  }

  /** Ordered turns not used yet. */
  get remainingTurns(): number {
    return this.turns.length;
  }

  /** Appends turns to the script. */
  addTurns(...turns: ScriptedTurn[]): void {
    this.turns.push(...turns);
  }

  /** Answers the next scripted turn. */
  doGenerate(request: GenerateRequest, options: CallOptions = {}): Promise<GenerateResult> {
    // `answer` is async (it never throws synchronously): its promise is returned as is.
    return this.answer(request, options.signal);
  }

  /** Streams the next scripted turn as text / tool-call deltas and one `finish` part. */
  async *doStream(request: GenerateRequest, options: CallOptions = {}): AsyncGenerator<StreamPart> {
    const { signal } = options;
    const result = await this.answer(request, signal);
    for await (const part of resultToStream(result, { chunkSize: this.streamChunkSize })) {
      if (signal?.aborted) throw abortedError(signal, this.provider);
      yield part;
    }
  }

  private async answer(request: GenerateRequest, signal: AbortSignal | undefined): Promise<GenerateResult> {
    const callIndex = this.callCount++;
    const call: ScriptedCall = { request };
    if (this.recordRequests) {
      call.request = cloneRequest(request);
      this.requests.push(call.request);
      this.calls.push(call);
    }
    try {
      if (signal?.aborted) throw abortedError(signal, this.provider);
      const turn = this.nextTurn(request, callIndex);
      const latency = typeof this.latencyMs === 'function' ? this.latencyMs(request) : (this.latencyMs ?? 0);
      if (latency > 0) await abortableSleep(latency, signal);
      let answer: ScriptedResponse | ScriptedError;
      if (typeof turn === 'function') {
        // A synchronous answer needs no race (nothing to wait for); a promised one is raced.
        const produced = turn(request, { callIndex });
        answer = isThenable(produced) ? await raceAbort(Promise.resolve(produced), signal) : produced;
      } else answer = turn;
      if (signal?.aborted) throw abortedError(signal, this.provider);
      if (isScriptedError(answer)) throw answer.error;
      call.result = this.toResult(request, answer);
      return call.result;
    } catch (error) {
      call.error = error instanceof Error ? error : new Error(String(error));
      throw error;
    }
  }

  private nextTurn(request: GenerateRequest, callIndex: number): ScriptedTurn {
    for (const matcher of this.matchers) {
      if (matcher.used >= (matcher.times ?? Number.POSITIVE_INFINITY)) continue;
      if (matcher.match(request)) {
        matcher.used++;
        return matcher.respond;
      }
    }
    const turn = this.turns.shift();
    if (turn === undefined) {
      throw new ModelError({
        code: 'invalid-response',
        message: `ScriptedModel(${this.modelId}): no scripted turn left for call #${callIndex + 1} (${describeRequest(
          request,
        )}). Add turns or a matcher for it.`,
        isRetryable: false,
        provider: this.provider,
      });
    }
    return turn;
  }

  private toResult(request: GenerateRequest, answer: ScriptedResponse): GenerateResult {
    const text = answer.text ?? '';
    const toolCalls: ToolCall[] = (answer.toolCalls ?? []).map((call) => {
      const rawArguments = call.rawArguments ?? JSON.stringify(call.arguments ?? {});
      let args: unknown = call.arguments;
      if (args === undefined) {
        try {
          args = JSON.parse(rawArguments);
        } catch {
          args = rawArguments;
        }
      }
      return { id: call.id ?? `call_${this.nextCallId++}`, name: call.name, arguments: args, rawArguments };
    });
    // The length of text + reasoning + tool calls, summed without building the text.
    let outputLength = lengthOf(text);
    for (const part of answer.reasoning ?? none) if (part.text != null) outputLength += lengthOf(part.text);
    for (const call of toolCalls) outputLength += lengthOf(call.name + call.rawArguments);
    const inputTokens = answer.usage?.inputTokens ?? Math.ceil(requestLength(request) / 4);
    const outputTokens = answer.usage?.outputTokens ?? Math.ceil(outputLength / 4);
    const usage: Usage = {
      ...answer.usage,
      inputTokens,
      outputTokens,
      totalTokens: answer.usage?.totalTokens ?? inputTokens + outputTokens,
    };
    const result: GenerateResult = {
      text,
      toolCalls,
      finishReason: answer.finishReason ?? (toolCalls.length > 0 ? 'tool-calls' : 'stop'),
      usage,
      response: answer.response ?? { id: `scripted-${this.callCount}`, modelId: this.modelId },
    };
    if (answer.rawFinishReason !== undefined) result.rawFinishReason = answer.rawFinishReason;
    if (answer.reasoning !== undefined) result.reasoning = answer.reasoning;
    if (answer.confidence !== undefined) result.confidence = answer.confidence;
    return result;
  }
}
