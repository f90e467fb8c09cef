type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The provider's error object from an error body in the shapes OpenAI-compatible servers use —
 * `{ "error": {…} }` (OpenAI), `{ "object": "error", "message", "type", "code" }` (vLLM, Mistral),
 * `{ "detail": "…" }` (FastAPI-based servers), `{ "error": "…" }` (Ollama), `[{ "error": {…} }]`
 * (Gemini) — or `undefined` when the body already has OpenAI's shape or is not JSON.
 */
export function unwrappedErrorBody(body: unknown): Record<string, unknown> | undefined {
  const first = Array.isArray(body) ? body[0] : body;
  if (!isRecord(first)) return undefined;
  if (isRecord(first.error)) return first === body ? undefined : first.error;
  if (typeof first.error === 'string') return { message: first.error };
  if (typeof first.message === 'string') return first;
  if (typeof first.detail === 'string') return { message: first.detail };
  if (Array.isArray(first.detail))
    return { message: JSON.stringify(first.detail), type: 'invalid_request_error' };
  return undefined;
}

/**
 * Wraps `fetch` so error responses (status >= 400) whose JSON body is not in OpenAI's
 * `{ "error": {…} }` shape reach the SDK in that shape: the SDK reads only `body.error`, so the
 * message, type and code of a vLLM, Mistral, Ollama, Gemini or FastAPI error would otherwise be
 * lost (and a context-length 400 could not be told from any other 400). Success responses pass
 * through untouched.
 */
export function withOpenAIErrorBodies(fetchImpl: Fetch): Fetch {
  return async (input, init) => {
    const response = await fetchImpl(input, init);
    if (response.status < 400 || !(response.headers.get('content-type') ?? '').includes('json'))
      return response;
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const error = unwrappedErrorBody(body);
    return new Response(error ? JSON.stringify({ error }) : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
