import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { abortedError } from './abortable-sleep';
import type { ModelCapabilities } from './capabilities';
import type { CallOptions, ChatModel, GenerateRequest, GenerateResult, StreamPart } from './chat-model';
import { ClosedloopError } from './closedloop-error';
import { ModelError, type ModelErrorCode } from './model-error';
import { resultToStream } from './stream-to-result';

const marker = Symbol.for('closedloop.model.cassette-error');

/** What went wrong with a cassette. */
export type CassetteErrorCode =
  | 'cassette-unreadable'
  | 'cassette-invalid'
  | 'cassette-mismatch'
  | 'cassette-exhausted';

/** A cassette could not be read, or a request does not match what was recorded. */
export class CassetteError extends ClosedloopError<CassetteErrorCode> {
  readonly [marker] = true;
  override readonly name = 'CassetteError';

  /** True for a `CassetteError` from any copy of this package. */
  static override isInstance(error: unknown): error is CassetteError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}

/** A recorded error. */
export interface CassetteErrorRecord {
  name: string;
  message: string;
  code?: ModelErrorCode;
  isRetryable?: boolean;
  retryAfterMs?: number;
  status?: number;
  requestId?: string;
  rawOutput?: string;
}

/** One line of a cassette file (JSONL). */
export interface CassetteEntry {
  version: 1;
  kind: 'generate' | 'stream';
  provider: string;
  modelId: string;
  capabilities: ModelCapabilities;
  /** sha256 of the request's canonical JSON (sorted keys). */
  hash: string;
  request: GenerateRequest;
  /** `generate`: the result. */
  result?: GenerateResult;
  /** `stream`: every part delivered, in order. */
  parts?: StreamPart[];
  error?: CassetteErrorRecord;
}

function canonicalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonicalize);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .map((key) => [key, canonicalize((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** sha256 (hex) of a request's canonical JSON: key order and `undefined` fields do not matter. */
export function hashRequest(request: GenerateRequest): string {
  return createHash('sha256')
    .update(JSON.stringify(canonicalize(request)))
    .digest('hex');
}

function toPlain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function errorRecord(error: unknown): CassetteErrorRecord {
  if (ModelError.isInstance(error)) {
    const record: CassetteErrorRecord = {
      name: error.name,
      message: error.message,
      code: error.code,
      isRetryable: error.isRetryable,
    };
    if (error.retryAfterMs !== undefined) record.retryAfterMs = error.retryAfterMs;
    if (error.status !== undefined) record.status = error.status;
    if (error.requestId !== undefined) record.requestId = error.requestId;
    if (error.rawOutput !== undefined) record.rawOutput = error.rawOutput;
    return record;
  }
  return {
    name: error instanceof Error ? error.name : 'Error',
    message: error instanceof Error ? error.message : String(error),
  };
}

function rebuildError(record: CassetteErrorRecord, provider: string): Error {
  if (record.code === undefined) return new Error(record.message);
  return new ModelError({
    code: record.code,
    message: record.message,
    isRetryable: record.isRetryable,
    retryAfterMs: record.retryAfterMs,
    status: record.status,
    requestId: record.requestId,
    rawOutput: record.rawOutput,
    provider,
  });
}

/** Options for {@link recordModel}. */
export interface RecordModelOptions {
  /** JSONL file to append to (created with its folder if missing). */
  path: string;
}

/**
 * Wraps `model` so every call is also appended to a JSONL cassette: one line per call with the
 * request, its hash, and the result, the stream parts, or the error. Each line is written before
 * the call resolves. Replay it with {@link replayModel}.
 */
export function recordModel(model: ChatModel, options: RecordModelOptions): ChatModel {
  const { path } = options;
  let ready: Promise<unknown> | undefined;
  const write = async (
    entry: Omit<CassetteEntry, 'version' | 'provider' | 'modelId' | 'capabilities' | 'hash'>,
  ) => {
    ready ??= mkdir(dirname(path), { recursive: true });
    await ready;
    const line: CassetteEntry = {
      version: 1,
      provider: model.provider,
      modelId: model.modelId,
      capabilities: model.capabilities,
      hash: hashRequest(entry.request),
      ...toPlain(entry),
    };
    await appendFile(path, `${JSON.stringify(line)}\n`, 'utf8');
  };
  return {
    specificationVersion: 'v1',
    provider: model.provider,
    modelId: model.modelId,
    capabilities: model.capabilities,
    async doGenerate(request: GenerateRequest, callOptions?: CallOptions) {
      const snapshot = toPlain(request);
      try {
        const result = await model.doGenerate(request, callOptions);
        await write({ kind: 'generate', request: snapshot, result });
        return result;
      } catch (error) {
        await write({ kind: 'generate', request: snapshot, error: errorRecord(error) });
        throw error;
      }
    },
    async *doStream(request: GenerateRequest, callOptions?: CallOptions): AsyncGenerator<StreamPart> {
      const snapshot = toPlain(request);
      const parts: StreamPart[] = [];
      let failure: unknown;
      let failed = false;
      try {
        for await (const part of model.doStream(request, callOptions)) {
          parts.push(part);
          yield part;
        }
      } catch (error) {
        failed = true;
        failure = error;
        throw error;
      } finally {
        await write({
          kind: 'stream',
          request: snapshot,
          parts,
          ...(failed ? { error: errorRecord(failure) } : {}),
        });
      }
    },
  };
}

/** Options for {@link replayModel}. */
export interface ReplayModelOptions {
  /** The JSONL cassette written by {@link recordModel}. */
  path: string;
  /**
   * `order` (default): the n-th call must equal the n-th recorded request. `hash`: any unused
   * entry with the same request hash answers, so call order may differ.
   */
  match?: 'order' | 'hash';
  /** Override what the replayed model reports (default: from the first entry). */
  provider?: string;
  modelId?: string;
  capabilities?: ModelCapabilities;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}

/** The first path where two JSON values differ, e.g. `messages[2].content: "a" vs "b"`. */
function firstDifference(expected: unknown, actual: unknown, path = 'request'): string | undefined {
  if (JSON.stringify(expected) === JSON.stringify(actual)) return undefined;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      const diff = firstDifference(expected[i], actual[i], `${path}[${i}]`);
      if (diff) return diff;
    }
  } else if (
    expected !== null &&
    actual !== null &&
    typeof expected === 'object' &&
    typeof actual === 'object' &&
    !Array.isArray(expected) &&
    !Array.isArray(actual)
  ) {
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    for (const key of [...keys].sort()) {
      const diff = firstDifference(
        (expected as Record<string, unknown>)[key],
        (actual as Record<string, unknown>)[key],
        `${path}.${key}`,
      );
      if (diff) return diff;
    }
  }
  return `${path}: recorded ${describe(expected)}, got ${describe(actual)}`;
}

function loadCassette(path: string): CassetteEntry[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CassetteError({
      code: 'cassette-unreadable',
      message: `cannot read cassette ${path}: ${error instanceof Error ? error.message : String(error)}. Record it first with recordModel(model, { path }).`,
      cause: error,
    });
  }
  const entries: CassetteEntry[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch (error) {
      throw new CassetteError({
        code: 'cassette-invalid',
        message: `cassette ${path}, line ${index + 1}: not JSON`,
        cause: error,
      });
    }
    const candidate = entry as Partial<CassetteEntry> | null;
    if (
      candidate === null ||
      typeof candidate !== 'object' ||
      candidate.version !== 1 ||
      (candidate.kind !== 'generate' && candidate.kind !== 'stream') ||
      typeof candidate.hash !== 'string' ||
      typeof candidate.request !== 'object'
    ) {
      throw new CassetteError({
        code: 'cassette-invalid',
        message: `cassette ${path}, line ${index + 1}: not a version-1 cassette entry`,
      });
    }
    entries.push(candidate as CassetteEntry);
  }
  if (entries.length === 0) {
    throw new CassetteError({ code: 'cassette-invalid', message: `cassette ${path} has no entries` });
  }
  return entries;
}

/**
 * A `ChatModel` that answers from a cassette recorded by {@link recordModel}, in order or by
 * request hash. A request that differs from the recording throws `CassetteError`
 * (`cassette-mismatch`, naming the first differing field); running past the end throws
 * `cassette-exhausted`. Recorded errors are thrown again (as `ModelError` when they were one).
 */
export function replayModel(options: ReplayModelOptions): ChatModel & { readonly remaining: number } {
  const { path, match = 'order' } = options;
  const entries = loadCassette(path);
  const used = new Set<number>();
  let cursor = 0;
  const first = entries[0]!;
  const provider = options.provider ?? first.provider;

  const take = (request: GenerateRequest): CassetteEntry => {
    const hash = hashRequest(toPlain(request));
    if (match === 'hash') {
      const index = entries.findIndex((entry, i) => !used.has(i) && entry.hash === hash);
      if (index === -1) {
        throw new CassetteError({
          code: 'cassette-mismatch',
          message: `cassette ${path}: no unused recorded request has hash ${hash.slice(0, 12)} (${entries.length - used.size} unused of ${entries.length}). Last message: ${describe(request.messages.at(-1))}. Re-record the cassette if the prompts changed.`,
        });
      }
      used.add(index);
      return entries[index]!;
    }
    const index = cursor;
    const entry = entries[index];
    if (!entry) {
      throw new CassetteError({
        code: 'cassette-exhausted',
        message: `cassette ${path}: call #${index + 1} but only ${entries.length} call(s) were recorded. Last message: ${describe(request.messages.at(-1))}.`,
      });
    }
    if (entry.hash !== hash) {
      throw new CassetteError({
        code: 'cassette-mismatch',
        message: `cassette ${path}: call #${index + 1} differs from the recording at ${firstDifference(
          entry.request,
          toPlain(request),
        )}. Re-record the cassette if the prompts changed.`,
      });
    }
    cursor++;
    used.add(index);
    return entry;
  };

  return {
    specificationVersion: 'v1',
    provider,
    modelId: options.modelId ?? first.modelId,
    capabilities: options.capabilities ?? first.capabilities,
    get remaining() {
      return entries.length - used.size;
    },
    async doGenerate(request: GenerateRequest, callOptions: CallOptions = {}) {
      if (callOptions.signal?.aborted) throw abortedError(callOptions.signal, provider);
      const entry = take(request);
      if (entry.kind === 'stream') {
        const finish = entry.parts?.find((part) => part.type === 'finish');
        if (finish?.type === 'finish') return finish.result;
      } else if (entry.result) {
        return entry.result;
      }
      if (entry.error) throw rebuildError(entry.error, provider);
      throw new CassetteError({
        code: 'cassette-invalid',
        message: `cassette ${path}: entry ${entry.hash.slice(0, 12)} has no result`,
      });
    },
    async *doStream(request: GenerateRequest, callOptions: CallOptions = {}): AsyncGenerator<StreamPart> {
      const { signal } = callOptions;
      if (signal?.aborted) throw abortedError(signal, provider);
      const entry = take(request);
      const parts = entry.kind === 'stream' ? (entry.parts ?? []) : [];
      if (entry.kind === 'generate' && entry.result) {
        for await (const part of resultToStream(entry.result)) parts.push(part);
      }
      for (const part of parts) {
        if (signal?.aborted) throw abortedError(signal, provider);
        yield part;
      }
      if (entry.error) throw rebuildError(entry.error, provider);
    },
  };
}
