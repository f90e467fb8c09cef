/**
 * "Replace every X with Y" asks that no X is left. A step that swaps the first one (`var a` →
 * `const a`, and `var b`, `var c` stay) left the work half done. Read from code with comments and
 * strings blanked.
 */
import { escapeRegExp } from './escape-reg-exp';

/** A token asked to be replaced everywhere, and the files it is asked in (none: the files the step changed). */
export interface AskedReplacement {
  token: string;
  files: string[];
}

const TOKEN = '(?:`([^`\\n]{1,60})`|([A-Za-z_$][\\w$.]*))';

/**
 * The tokens a request asks to replace in full ("Replace every `var` declaration in src/app.js
 * with let or const", "replace all uses of moment with dayjs in src/").
 */
export function askedReplacements(description: string, paths: readonly string[]): AskedReplacement[] {
  const found: AskedReplacement[] = [];
  const pattern = new RegExp(
    `\\breplace\\s+(?:every|all|each|any)\\s+(?:(?:the|of\\s+the)\\s+)?(?:(?:uses?|usages?|occurrences?|instances?|calls?)\\s+(?:of|to)\\s+(?:the\\s+)?)?${TOKEN}(?:\\s+(?:declarations?|keywords?|calls?|uses?|usages?|statements?|imports?|occurrences?|instances?))?([^;\\n]*?)\\s+with\\b`,
    'gi',
  );
  for (const match of description.matchAll(pattern)) {
    const token = (match[1] ?? match[2] ?? '').trim();
    if (token === '' || /\s/.test(token) || /^(?:the|a|an|it|them|those|these)$/i.test(token)) continue;
    const where = match[3] ?? '';
    found.push({ token, files: paths.filter((file) => where.includes(file)) });
  }
  return found;
}

const JS_NOISE = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g;
const HASH_NOISE = /#[^\n]*|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g;

/** The 1-based lines of `text` where `token` is still used as code. */
export function remainingUses(fileName: string, text: string, token: string): number[] {
  const code = text.replace(/\.(?:py|rb|sh|ya?ml|toml)$/i.test(fileName) ? HASH_NOISE : JS_NOISE, (noise) =>
    noise.replace(/[^\n]/g, ' '),
  );
  const escaped = escapeRegExp(token);
  const word = new RegExp(`(?<![\\w$.])${escaped}(?![\\w$])`);
  return code.split('\n').flatMap((line, index) => (word.test(line) ? [index + 1] : []));
}
