/** Removes secrets from text before it reaches the model, the ledger or a log. */
export interface Redactor {
  redact(text: string): string;
  /** How many distinct secret values it knows from the environment and `extra`. */
  readonly knownSecretCount: number;
}

/** Options of {@link createRedactor}. */
export interface RedactorOptions {
  /** Environment whose secret-looking variables are redacted. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** More literal values to redact (each at least `minLength` characters). */
  extra?: readonly string[];
  /** Shorter values are ignored: redacting `"1"` would shred every text. Default 8. */
  minLength?: number;
}

/**
 * Variable names that hold secrets: `*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, `*_PASS`,
 * `*_CREDENTIALS`, `*_AUTH`, `*_PRIVATE_KEY`, `*APIKEY*`, `*_SESSION`, `*_COOKIE`, `*_DSN`.
 */
const secretNamePattern =
  /(^|_)(KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PASSPHRASE|PWD_SECRET|CREDENTIAL|CREDENTIALS|AUTH|APIKEY|SESSION|COOKIE|DSN|PRIVATE)($|_)|PASSWORD|APIKEY|API_KEY|SECRET|TOKEN/i;

/** Names that match the pattern but are known not to hold secrets. */
const notSecretNames: ReadonlySet<string> = new Set([
  'PWD',
  'OLDPWD',
  'TERM_SESSION_ID',
  'XDG_SESSION_ID',
  'XDG_SESSION_TYPE',
  'XDG_SESSION_CLASS',
  'XDG_SESSION_DESKTOP',
  'GPG_KEY_ID',
]);

/** Key-shaped strings redacted wherever they appear, known or not. */
const keyPatterns: readonly { pattern: RegExp; replace: (match: string, ...groups: string[]) => string }[] = [
  // PEM private keys.
  {
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
    replace: () => '[REDACTED:private-key]',
  },
  // Authorization headers and bearer tokens.
  {
    pattern: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/g,
    replace: (_m, scheme = '') => `${scheme} [REDACTED]`,
  },
  // OpenAI / Anthropic / OpenRouter style `sk-…`, `sk-ant-…`, `sk-proj-…`.
  { pattern: /\bsk-[A-Za-z0-9_-]{16,}/g, replace: () => '[REDACTED]' },
  // GitHub tokens.
  { pattern: /\b(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g, replace: () => '[REDACTED]' },
  // Slack tokens.
  { pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: () => '[REDACTED]' },
  // AWS access key ids.
  { pattern: /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: () => '[REDACTED]' },
  // Google API keys.
  { pattern: /\bAIza[0-9A-Za-z_-]{35}/g, replace: () => '[REDACTED]' },
  // Stripe / npm / HuggingFace / GitLab.
  {
    pattern:
      /\b(sk_live_[0-9A-Za-z]{16,}|rk_live_[0-9A-Za-z]{16,}|npm_[A-Za-z0-9]{30,}|hf_[A-Za-z0-9]{30,}|glpat-[A-Za-z0-9_-]{20,})/g,
    replace: () => '[REDACTED]',
  },
  // JSON web tokens.
  {
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    replace: () => '[REDACTED]',
  },
  // Passwords in URLs: scheme://user:password@host.
  {
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)([^\s@/]{1,})@/gi,
    replace: (_m, prefix = '') => `${prefix}[REDACTED]@`,
  },
  // `api_key=…`, `"apiKey": "…"`, `x-api-key: …`, `password=…`.
  {
    pattern:
      /\b(x-api-key|api[-_]?key|apikey|access[-_]?token|auth[-_]?token|client[-_]?secret|password|passwd|secret)(["']?\s*[:=]\s*["']?)(?!\[REDACTED)[^\s"',;&]{8,}/gi,
    replace: (_m, key = '', separator = '') => `${key}${separator}[REDACTED]`,
  },
];

/** True when an environment variable name looks like it holds a secret. */
export function isSecretEnvName(name: string): boolean {
  if (notSecretNames.has(name.toUpperCase())) return false;
  return secretNamePattern.test(name);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Builds a {@link Redactor}. It replaces the values of secret-looking environment variables
 * (`OPENAI_API_KEY`, `GITHUB_TOKEN`, `DB_PASSWORD`, … at least `minLength` characters) with
 * `[REDACTED:NAME]`, every `extra` value with `[REDACTED]`, and key-shaped strings (`sk-…`,
 * `ghp_…`, `AKIA…`, JWTs, PEM private keys, `Bearer …`, `user:pass@` in URLs) wherever they
 * appear. The registry runs every result and error message through one.
 *
 * @example
 * ```ts
 * const redactor = createRedactor({ env: { OPENAI_API_KEY: 'sk-test-1234567890abcdef' } });
 * redactor.redact('key is sk-test-1234567890abcdef'); // 'key is [REDACTED:OPENAI_API_KEY]'
 * ```
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const env = options.env ?? process.env;
  const minLength = options.minLength ?? 8;
  const labels = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < minLength || !isSecretEnvName(name)) continue;
    if (!labels.has(value)) labels.set(value, `[REDACTED:${name}]`);
  }
  for (const value of options.extra ?? []) {
    if (typeof value === 'string' && value.length >= minLength && !labels.has(value))
      labels.set(value, '[REDACTED]');
  }
  // Longest first, so a secret that contains another is replaced whole.
  const values = [...labels.keys()].sort((a, b) => b.length - a.length);
  const literal = values.length > 0 ? new RegExp(values.map(escapeRegExp).join('|'), 'g') : undefined;

  return {
    knownSecretCount: values.length,
    redact(text: string): string {
      if (typeof text !== 'string' || text === '') return text;
      let out = literal ? text.replace(literal, (match) => labels.get(match) ?? '[REDACTED]') : text;
      for (const { pattern, replace } of keyPatterns) {
        out = out.replace(pattern, replace as (match: string, ...rest: unknown[]) => string);
      }
      return out;
    },
  };
}
