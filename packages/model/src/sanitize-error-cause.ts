import { redactSecrets } from './redact-secrets';

/** Options for {@link sanitizeErrorCause}. */
export interface SanitizeErrorCauseOptions {
  /** Literal secrets (the API key) to remove from the message and stack. */
  secrets?: readonly string[];
}

const keptFields = ['code', 'status', 'type', 'errno', 'syscall'] as const;

/**
 * A copy of a thrown value that is safe to keep as a `ModelError`'s `cause`: the same name
 * (the SDK class name when there is one), message and stack with secrets redacted, and the
 * primitive `code` / `status` / `type` / `errno` / `syscall` fields — but no response headers,
 * bodies or request options (where API keys hide). One level of inner `cause` is kept the same
 * way (name, redacted message, `code`).
 *
 * @example
 * new ModelError({ code: 'auth', message, cause: sanitizeErrorCause(sdkError, { secrets: [apiKey] }) });
 */
export function sanitizeErrorCause(error: unknown, options: SanitizeErrorCauseOptions = {}): Error {
  const redact = (text: string) => redactSecrets(text, options);
  if (!(error instanceof Error)) return new Error(redact(String(error)));
  const copy = new Error(redact(error.message));
  copy.name =
    error.constructor?.name && error.constructor.name !== 'Error' ? error.constructor.name : error.name;
  copy.stack = redact(error.stack ?? '');
  const fields = copy as unknown as Record<string, unknown>;
  const source = error as unknown as Record<string, unknown>;
  for (const key of keptFields) {
    const value = source[key];
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  const inner = source.cause;
  if (inner instanceof Error) {
    const innerCode = (inner as unknown as Record<string, unknown>).code;
    fields.cause = Object.assign(new Error(redact(inner.message)), {
      name: inner.name,
      ...(typeof innerCode === 'string' ? { code: innerCode } : {}),
    });
  }
  return copy;
}
