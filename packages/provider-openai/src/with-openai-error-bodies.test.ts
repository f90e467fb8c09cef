import { ModelError } from '@closedloop/model';
import { parseRecordedResponse, useLoopbackServer } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { createOpenAI } from './openai-provider';
import { unwrappedErrorBody } from './with-openai-error-bodies';

const server = useLoopbackServer();

const hi = { messages: [{ role: 'user' as const, content: 'hi' }] };

async function errorFor(status: number, body: unknown): Promise<ModelError> {
  server.script([
    {
      type: 'response',
      response: parseRecordedResponse(
        `HTTP/1.1 ${status} Error\ncontent-type: application/json\n\n${JSON.stringify(body)}`,
      ),
    },
  ]);
  const model = createOpenAI({ baseURL: `${server.url}/v1` })('served-model', { capabilities: {} });
  const error = await model.doGenerate(hi).catch((caught: unknown) => caught);
  if (!ModelError.isInstance(error)) throw new Error(`expected a ModelError, got ${String(error)}`);
  return error;
}

describe('error bodies of OpenAI-compatible servers', () => {
  it('keeps the message, type and code of bodies without an `error` wrapper', async () => {
    // Mistral: a context-length 400 told apart by its message.
    const mistral = await errorFor(400, {
      object: 'error',
      message:
        'Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length',
      type: 'invalid_request_error',
      param: null,
      code: null,
    });
    expect([mistral.code, mistral.isRetryable]).toEqual(['context-length', false]);
    expect(mistral.message).toContain('131072 maximum context length');
    // vLLM
    const vllm = await errorFor(400, {
      object: 'error',
      message: "This model's maximum context length is 4096 tokens.",
      type: 'BadRequestError',
      param: null,
      code: 400,
    });
    expect(vllm.code).toBe('context-length');
    // Ollama: a string error.
    const ollama = await errorFor(404, { error: "model 'llama9' not found, try pulling it first" });
    expect(ollama.code).toBe('bad-request');
    expect(ollama.message).toContain("model 'llama9' not found");
    // FastAPI-style detail, Gemini's array.
    expect((await errorFor(422, { detail: 'max_tokens: Input should be greater than 0' })).message).toContain(
      'Input should be greater than 0',
    );
    const gemini = await errorFor(400, [
      {
        error: {
          code: 400,
          message: 'The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).',
          status: 'INVALID_ARGUMENT',
        },
      },
    ]);
    expect(gemini.code).toBe('context-length');
  });

  it('leaves OpenAI-shaped bodies alone', () => {
    expect(unwrappedErrorBody({ error: { message: 'x' } })).toBeUndefined();
    expect(unwrappedErrorBody('not an object')).toBeUndefined();
    expect(unwrappedErrorBody({ object: 'error', message: 'm' })).toEqual({ object: 'error', message: 'm' });
  });
});

describe('an error inside a 200 response body', () => {
  it('is classified by its code, not reported as a malformed completion', async () => {
    server.script([
      {
        type: 'response',
        response: parseRecordedResponse(
          `HTTP/1.1 200 OK\ncontent-type: application/json\n\n${JSON.stringify({
            error: {
              message: 'Upstream rate limit exceeded, please retry.',
              type: 'rate_limit_error',
              code: 429,
            },
          })}`,
        ),
      },
    ]);
    const model = createOpenAI({ baseURL: `${server.url}/v1` })('served-model', { capabilities: {} });
    const error = await model.doGenerate(hi).catch((caught: unknown) => caught);
    expect(ModelError.isInstance(error) && [error.code, error.isRetryable]).toEqual(['rate-limited', true]);
  });
});
