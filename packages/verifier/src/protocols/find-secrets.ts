import { createRedactor, type Redactor } from '@closedloop/tools/internal';
import type { AddedLine } from './added-lines';

/** A secret found in a changed file. */
export interface SecretHit {
  file: string;
  /** 1-based line. */
  line: number;
  /** What it looks like: `private key`, `OPENAI_API_KEY value`, `key or token`. */
  kind: string;
  /** The line with the secret redacted (safe to show). */
  redacted: string;
}

/** Values that stand for a secret without being one (docs, templates, env lookups). */
const PLACEHOLDER =
  /^(?:\$\{?\w+\}?|\{\{.*\}\}|<[^>]*>|%\w+%|process\.env|os\.environ|os\.getenv|getenv|env\(|config\.|settings\.|self\.|this\.|your[-_]|example|changeme|dummy|placeholder|redacted|secret$|password$|none$|null$|undefined$|test$)/i;

/** The part of `original` that the redactor replaced (common prefix and suffix removed). */
function replacedPart(original: string, redacted: string): { value: string; token: string; after: string } {
  let start = 0;
  while (start < original.length && start < redacted.length && original[start] === redacted[start])
    start += 1;
  let end = 0;
  while (
    end < original.length - start &&
    end < redacted.length - start &&
    original[original.length - 1 - end] === redacted[redacted.length - 1 - end]
  )
    end += 1;
  return {
    value: original.slice(start, original.length - end),
    token: redacted.slice(start, redacted.length - end),
    after: original.slice(original.length - end),
  };
}

function looksLikePlaceholder(value: string, after: string): boolean {
  const trimmed = value.replace(/^["'`]|["'`]$/g, '');
  if (PLACEHOLDER.test(trimmed)) return true;
  // A name that is called or dereferenced: `get_api_key_from_vault(name)`, `vault.token`.
  if (/^[A-Za-z_$][\w$]*$/.test(trimmed) && /^\s*[(.[]/.test(after)) return true;
  // Code, not a literal: `os.environ["KEY"]`, `getSecret()`, `cfg[key]`.
  if (/[()[\]{}]/.test(trimmed) && !/^[A-Za-z0-9+/=_.-]+$/.test(trimmed)) return true;
  // `xxxxxxxx`, `********`, `sk-xxxxxxxxxxxxxxxx`: too few distinct characters to be a key.
  const distinct = new Set(trimmed.replace(/^[a-z]{2,4}[-_]/i, '')).size;
  return distinct < 5;
}

function kindOf(token: string): string {
  const named = /\[REDACTED:([^\]]+)\]/i.exec(token)?.[1];
  if (named === 'private-key') return 'private key';
  if (named !== undefined) return `${named} value`;
  return 'key, token or password';
}

let sharedRedactor: Redactor | undefined;

/**
 * Secrets in added lines, found with the product's redactor (`createRedactor` from
 * `@closedloop/tools`: the one source of secret patterns, plus the values of this process's
 * secret-looking environment variables): private keys, API keys and tokens (`sk-…`, `ghp_…`,
 * `AKIA…`, JWTs, `Bearer …`), passwords in URLs and `password=`/`api_key=` assignments.
 * Placeholders (`${TOKEN}`, `<your-key>`, `os.environ[...]`, `xxxxxxxx`) are not secrets.
 *
 * @example
 * findSecrets('config.js', [{ line: 'const key = "sk-live-4f9a8b7c6d5e4f3a2b1c";', number: 3 }]);
 * // [{ file: 'config.js', line: 3, kind: 'key, token or password', redacted: 'const key = "[REDACTED]";' }]
 */
export function findSecrets(file: string, lines: readonly AddedLine[], redactor?: Redactor): SecretHit[] {
  sharedRedactor ??= createRedactor();
  const active = redactor ?? sharedRedactor;
  const hits: SecretHit[] = [];
  for (const { line, number } of lines) {
    if (line.length > 5000) continue;
    const redacted = active.redact(line);
    if (redacted === line) continue;
    const { value, token, after } = replacedPart(line, redacted);
    const kind = kindOf(token);
    if (kind === 'key, token or password' && looksLikePlaceholder(value, after)) continue;
    hits.push({ file, line: number, kind, redacted: redacted.trim().slice(0, 200) });
  }
  // A private key spans lines: the redactor sees it only in the joined block.
  const beginIndex = lines.findIndex(({ line }) => /-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(line));
  if (beginIndex !== -1 && !hits.some((hit) => hit.kind === 'private key')) {
    const block = lines
      .slice(beginIndex)
      .map(({ line }) => line)
      .join('\n');
    if (/\[REDACTED:private-key\]/i.test(active.redact(block))) {
      hits.push({
        file,
        line: lines[beginIndex]?.number ?? 1,
        kind: 'private key',
        redacted: '[REDACTED:private-key]',
      });
    }
  }
  return hits;
}
