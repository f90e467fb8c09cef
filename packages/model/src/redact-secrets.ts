import { createRedactor } from './create-redactor';

/** Options for {@link redactSecrets}. */
export interface RedactSecretsOptions {
  /**
   * Literal secrets (the configured API key) removed wherever they appear, whatever their shape.
   * Values shorter than 4 characters are ignored (they would shred ordinary text).
   */
  secrets?: readonly string[];
}

/**
 * {@link createRedactor}'s redaction for one text, with `[redacted]` as the marker: removes the
 * given literal `secrets` (and their encoded and partial forms), secrets registered with
 * `registerSecret`, and every key shape the redactor knows (`sk-…`, `sk-ant-…`, `Bearer …`,
 * `x-api-key: …`, private keys, secret-named assignments). Adapters run every error message they
 * build through it. It does not read `process.env` (use `createRedactor()` for that).
 *
 * @example
 * redactSecrets('401 for key sk-ant-api03-abcdefghijklmnop') // '401 for key [redacted]'
 * redactSecrets('bad key my-local-key-123', { secrets: ['my-local-key-123'] }) // 'bad key [redacted]'
 */
export function redactSecrets(text: string, options: RedactSecretsOptions = {}): string {
  return createRedactor({
    env: {},
    secrets: options.secrets ?? [],
    minLength: 4,
    placeholder: '[redacted]',
  }).redact(text);
}
