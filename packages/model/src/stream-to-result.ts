import type { GenerateResult, StreamPart } from './chat-model';
import { ModelError } from './model-error';

/** Options for {@link streamToResult}. */
export interface StreamToResultOptions {
  /** Called with every part, in order, before the result resolves (the `finish` part included). */
  onPart?: (part: StreamPart) => void;
  /** Provider name used in error messages. */
  provider?: string;
}

/**
 * Consumes a `doStream` iterable and resolves with the final `GenerateResult` carried by its
 * `finish` part. A stream that ends without a `finish` part, or has parts after it, rejects with
 * `ModelError('invalid-response')`; errors thrown by the stream propagate unchanged.
 */
export async function streamToResult(
  stream: AsyncIterable<StreamPart>,
  options: StreamToResultOptions = {},
): Promise<GenerateResult> {
  const { onPart, provider } = options;
  let result: GenerateResult | undefined;
  for await (const part of stream) {
    if (result !== undefined) {
      throw new ModelError({
        code: 'invalid-response',
        message: `${provider ?? 'model'} stream sent a '${part.type}' part after its 'finish' part`,
        provider,
      });
    }
    onPart?.(part);
    if (part.type === 'finish') result = part.result;
  }
  if (result === undefined) {
    throw new ModelError({
      code: 'invalid-response',
      message: `${provider ?? 'model'} stream ended without a 'finish' part`,
      provider,
    });
  }
  return result;
}

/** Options for {@link resultToStream}. */
export interface ResultToStreamOptions {
  /** Characters per text/reasoning/argument delta. Default 16. */
  chunkSize?: number;
}

function chunk(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/**
 * Replays a finished `GenerateResult` as stream parts: reasoning deltas, text deltas, then per
 * tool call its `tool-call-delta` chunks and a complete `tool-call` part, then one `finish` part.
 * For adapters and fakes that cannot stream natively.
 */
export async function* resultToStream(
  result: GenerateResult,
  options: ResultToStreamOptions = {},
): AsyncGenerator<StreamPart, void, undefined> {
  const size = Math.max(1, options.chunkSize ?? 16);
  for (const part of result.reasoning ?? []) {
    for (const delta of chunk(part.text, size)) yield { type: 'reasoning-delta', delta };
  }
  for (const delta of chunk(result.text, size)) yield { type: 'text-delta', delta };
  for (const [index, toolCall] of result.toolCalls.entries()) {
    const deltas = chunk(toolCall.rawArguments, size);
    if (deltas.length === 0) deltas.push('');
    for (const [i, argumentsDelta] of deltas.entries()) {
      yield i === 0
        ? { type: 'tool-call-delta', index, id: toolCall.id, name: toolCall.name, argumentsDelta }
        : { type: 'tool-call-delta', index, argumentsDelta };
    }
    yield { type: 'tool-call', toolCall };
  }
  yield { type: 'finish', result };
}
