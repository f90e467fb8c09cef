const secretPatterns: readonly RegExp[] = [
  // Authorization headers and bearer tokens.
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  // OpenAI (`sk-…`, `sk-proj-…`), Anthropic (`sk-ant-…`) and similar prefixed keys.
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  // Header / query / JSON forms: `x-api-key: …`, `api_key=…`, `"apiKey": "…"`.
  /\b(x-api-key|api[-_]?key|apikey|access[-_]?token|authorization)(["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"',;&]{8,}/gi,
];

/**
 * Removes API-key-shaped strings (`sk-…`, `sk-ant-…`, `Bearer …`, `x-api-key: …`) from a text.
 * Used on every error message built from provider or transport errors.
 *
 * @example
 * redactSecrets('401 for key sk-ant-api03-abcdefgh') // '401 for key [redacted]'
 */
export function redactSecrets(text: string): string {
  let out = text;
  out = out.replace(secretPatterns[0]!, (_match, scheme: string) => `${scheme} [redacted]`);
  out = out.replace(secretPatterns[1]!, '[redacted]');
  out = out.replace(
    secretPatterns[2]!,
    (_match, key: string, separator: string) => `${key}${separator}[redacted]`,
  );
  return out;
}
