const secretPatterns: readonly RegExp[] = [
  // Authorization headers and bearer tokens.
  /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  // OpenAI (`sk-…`, `sk-proj-…`), Anthropic (`sk-ant-…`) and similar prefixed keys.
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  // Header / query / JSON forms: `x-api-key: …`, `api_key=…`, `"apiKey": "…"`.
  /\b(x-api-key|api[-_]?key|apikey|access[-_]?token|authorization)(["']?\s*[:=]\s*["']?)(?!\[redacted\])[^\s"',;&]{8,}/gi,
];

/** Options for {@link redactSecrets}. */
export interface RedactSecretsOptions {
  /**
   * Literal secrets (the configured API key) removed wherever they appear, whatever their shape.
   * Values shorter than 4 characters are ignored (they would shred ordinary text).
   */
  secrets?: readonly string[];
}

/**
 * Removes API-key-shaped strings (`sk-…`, `sk-ant-…`, `Bearer …`, `x-api-key: …`) and the given
 * literal `secrets` from a text. Adapters run every error message they build through it.
 *
 * @example
 * redactSecrets('401 for key sk-ant-api03-abcdefgh') // '401 for key [redacted]'
 * redactSecrets('bad key my-local-key-123', { secrets: ['my-local-key-123'] }) // 'bad key [redacted]'
 */
export function redactSecrets(text: string, options: RedactSecretsOptions = {}): string {
  let out = text;
  for (const secret of options.secrets ?? []) {
    if (secret.length >= 4) out = out.replaceAll(secret, '[redacted]');
  }
  out = out.replace(secretPatterns[0]!, (_match, scheme: string) => `${scheme} [redacted]`);
  out = out.replace(secretPatterns[1]!, '[redacted]');
  out = out.replace(
    secretPatterns[2]!,
    (_match, key: string, separator: string) => `${key}${separator}[redacted]`,
  );
  return out;
}
