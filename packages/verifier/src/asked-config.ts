import { codeOnly, codeWithoutStrings } from './asked-literals';
import { escapeRegExp } from './escape-reg-exp';
import { SETTINGS_NAME, TEST_FILE } from './workspace-snapshot';

/**
 * A value asked to be made configurable — "Make the timeout configurable via config.json", "read
 * the port from the `APP_PORT` environment variable" — is configurable only when code reads the
 * setting: a key written to a config file that no code reads (or code that reads another key), an
 * env var documented in `.env.example` while the code reads a different one, a read into a
 * variable nothing uses, all leave the old hard-coded value in charge.
 */

/** Words that ask for a setting the program reads. */
const CONFIG_ASKED =
  /\bconfigurable\b|\bmake\s+(?:it|them|this|that|the\s+[\w\s-]{1,30}?)\s+(?:configurable|overridable|settable)\b|\b(?:read|load|take|pull|get|fetch)\w*\s+(?:[\w./-]+\s+){0,6}?from\s+(?:an?\s+|the\s+)?(?:[`'"]?[A-Z][A-Z0-9_]{2,}[`'"]?\s+)?(?:config\w*|env(?:ironment)?\b|settings?|options\s+file|\.env|[\w./-]+\.(?:json|ya?ml|toml|ini|env|cfg|conf))|\boverrid\w+\s+(?:\S+\s+){0,5}?(?:by|via|with|from|through|using)\b|\benv(?:ironment)?\s+var(?:iable)?s?\b|\bconfig(?:uration)?\s+(?:key|option|setting|entry|value)\b|\b(?:set|controlled|driven)\s+(?:via|through|from|by)\s+(?:an?\s+|the\s+)?(?:[`'"]?[A-Z][A-Z0-9_]{2,}[`'"]?|config|env|settings)|\b(?:via|through|from|using|with|by)\s+(?:an?\s+|the\s+)?(?:[`'"]?[A-Z][A-Z0-9_]{2,}[`'"]?\s+)?(?:env(?:ironment)?\s+var(?:iable)?s?|config(?:uration)?\s+(?:file|key|option|setting|entry)|settings?\s+(?:file|key))\b|可配置|設定可能/iu;
/** Words that ask for a setting the program already reads (docs, a sample), not for reading it. */
const NO_READ_ASKED =
  /\b(?:document|describe|example|sample|template|placeholder)\w*\b|\bonly\s+(?:the\s+)?(?:config|settings|\.env)\b|\bwithout\s+(?:changing|touching)\s+(?:the\s+)?code\b/i;
/** An env var named in a description: UPPER_SNAKE (with an underscore), or any upper-case word in backticks. */
const ENV_NAME = /`([A-Z][A-Z0-9_]{1,60})`|(?<![\w$.-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(?![\w$-])/g;
/** A key named in backticks as a key, setting, option or field. */
const KEY_NAME =
  /`([A-Za-z_][\w.-]{1,60})`\s+(?:config(?:uration)?\s+)?(?:key|setting|option|field|entry|property|value)\b|\b(?:key|setting|option|field|entry|property)\s+`([A-Za-z_][\w.-]{1,60})`/gi;

/** Files that hold settings (data, not code). */
const DATA_FILE = /\.(?:json|jsonc|ya?ml|toml|ini|cfg|conf|properties)$|(?:^|\/)\.env(?:\.[\w-]+)?$/i;
/** Data files that are a tool's or package manager's, not the program's settings. */
const TOOL_DATA =
  /(?:^|\/)(?:package(?:-lock)?\.json|[jt]sconfig[\w.-]*\.json|composer\.json|pnpm-[\w-]+\.ya?ml|yarn\.lock|Cargo\.toml|pyproject\.toml|\.[\w-]+rc(?:\.json|\.ya?ml)?|docker-compose[\w.-]*\.ya?ml|\.github\/.*|biome\.json|turbo\.json|renovate\.json|deno\.jsonc?|mkdocs\.ya?ml)$/i;
/** Prose: docs, not code. */
const PROSE_FILE = /\.(?:md|mdx|markdown|txt|rst|adoc)$/i;
/** Code a program runs (by extension). */
const CODE_FILE =
  /\.(?:[cm]?[jt]sx?|py|rb|go|rs|java|kt|cs|php|swift|scala|sh|bash|ex|exs|lua|pl|vue|svelte)$/i;

/** What a step was asked to make configurable, when it was. */
export interface AskedConfig {
  /** Env vars the description names. */
  envVars: string[];
  /** Config keys the description names (`timeoutMs` key). */
  keys: string[];
}

/** The settings a description asks the code to read, or undefined when it asks for none. */
export function askedConfig(description: string): AskedConfig | undefined {
  if (!CONFIG_ASKED.test(description) || NO_READ_ASKED.test(description)) return undefined;
  const envVars = new Set<string>();
  const envWords = /\benv(?:ironment)?\b|\$[A-Z]/i.test(description);
  for (const match of description.matchAll(ENV_NAME)) {
    const name = match[1] ?? match[2];
    if (name === undefined) continue;
    // A backticked upper-case word is an env var only where the description talks of env vars.
    if (match[1] !== undefined && !name.includes('_') && !envWords) continue;
    envVars.add(name);
  }
  const keys = new Set<string>();
  for (const match of description.matchAll(KEY_NAME)) {
    const name = match[1] ?? match[2];
    if (name !== undefined && !envVars.has(name)) keys.add(name.split('.').at(-1) ?? name);
  }
  return { envVars: [...envVars], keys: [...keys] };
}

/** Whether a changed file is the program's settings (not code, docs, a tool's config or a test's). */
export function isSettingsFile(file: string, named: readonly string[]): boolean {
  if (!DATA_FILE.test(file) || TOOL_DATA.test(file) || TEST_FILE.test(file)) return false;
  return named.includes(file) || SETTINGS_NAME.test(file);
}

/** Leaf keys of a settings file's text (JSON by structure, others line by line). */
function settingKeys(file: string, text: string): Set<string> {
  const keys = new Set<string>();
  if (/\.jsonc?$/i.test(file)) {
    let data: unknown;
    try {
      data = JSON.parse(text.replace(/^\s*\/\/.*$/gm, ''));
    } catch {
      return keys;
    }
    const walk = (value: unknown, depth: number): void => {
      if (depth > 8 || value === null || typeof value !== 'object' || Array.isArray(value)) return;
      for (const [key, inner] of Object.entries(value)) {
        if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) walk(inner, depth + 1);
        else if (!key.startsWith('$')) keys.add(key);
      }
    };
    walk(data, 0);
    return keys;
  }
  for (const line of text.split('\n')) {
    // `key: value`, `key = value`, `export KEY=value` — a line that opens a section holds no value.
    const match = /^\s*(?:export\s+)?([A-Za-z_][\w.-]*)\s*[:=]\s*(\S.*)?$/.exec(line);
    if (match?.[1] === undefined || match[2] === undefined || /^[|>]?\s*(?:#.*)?$/.test(match[2])) continue;
    keys.add(match[1].split('.').at(-1) ?? match[1]);
  }
  return keys;
}

/** The leaf keys a step added to a settings file (all of them for a new file). */
export function addedSettingKeys(file: string, before: string | undefined, after: string): string[] {
  const old = before === undefined ? new Set<string>() : settingKeys(file, before);
  return [...settingKeys(file, after)].filter((key) => !old.has(key));
}

/** A declaration that binds the value read on a line: `const timeout = …`, `timeout = …` (Python). */
const BINDING =
  /^\s*(?:(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)|([A-Za-z_][\w]*)\s*(?::\s*[\w[\]|. ]+)?=(?!=))/;

/**
 * How code reads a setting: `read` when some code (comments do not count) names it and uses what
 * it read; `dead` when every read binds a local variable nothing else in its file refers to;
 * `absent` when no code names it.
 */
export async function settingRead(
  name: string,
  code: readonly { file: string; text: string }[],
): Promise<'read' | 'dead' | 'absent'> {
  const word = new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`);
  let seen = false;
  for (const { file, text } of code) {
    if (!word.test(text)) continue;
    const program = await codeOnly(file, text);
    if (!word.test(program)) continue;
    seen = true;
    const bare = await codeWithoutStrings(file, text);
    const lines = program.split('\n');
    for (const line of lines) {
      if (!word.test(line)) continue;
      const binding = BINDING.exec(line);
      const local = binding?.[1] ?? binding?.[2];
      // Not bound to a local (passed on, returned, exported, a default in an object): a use.
      if (local === undefined || local === name || /^\s*export\b/.test(line)) return 'read';
      const uses = bare.match(new RegExp(`(?<![\\w$.])${escapeRegExp(local)}(?![\\w$])`, 'g'))?.length ?? 0;
      if (uses > 1) return 'read';
    }
  }
  return seen ? 'dead' : 'absent';
}

/** Whether a file is code the program runs (not docs, data or tests). */
export function isProgramFile(file: string): boolean {
  return CODE_FILE.test(file) && !PROSE_FILE.test(file) && !TEST_FILE.test(file);
}
