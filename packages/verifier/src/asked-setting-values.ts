import { findPaths } from './find-paths';
import { settingEntries } from './shadowed-settings';

/**
 * A setting a description asks to give a value — "Set timeout to 30 in config.yaml", "Change
 * `port` to `8080` in config/app.json", "In .env, set LOG_LEVEL to debug" — holds that value
 * afterwards only when the entry a reader takes has it: not a copy in a comment (`# timeout: 30`),
 * not the same key nested somewhere else while the one the program reads keeps the old value.
 */

/** One setting the description asks to set, in the files named with it. */
export interface AskedSettingValue {
  /** The key as written (`timeout`, `server.port`). */
  key: string;
  /** The value as written, quotes removed. */
  value: string;
  /** Settings files named in the same sentence (none: whichever the step changed). */
  files: string[];
}

const QUOTED_OR_BARE = (name: string) =>
  `(?:\`(?<${name}1>[^\`\\n]{1,80})\`|"(?<${name}2>[^"\\n]{1,80})"|'(?<${name}3>[^'\\n]{1,80})'|(?<${name}4>[A-Za-z0-9_$@./:+-]{1,80}))`;
/** "set KEY [setting] [in FILE] to VALUE" (also change, update, configure, bump, raise, lower…). */
const SET = new RegExp(
  `\\b(?:set|change|update|configure|bump|raise|increase|lower|decrease|reduce)\\s+(?:the\\s+)?(?:value\\s+of\\s+(?:the\\s+)?)?${QUOTED_OR_BARE('key')}(?:\\s+(?:setting|option|key|value|field|entry|property|variable))?(?:\\s+(?:in|of)\\s+(?:the\\s+)?\\S+?(?:\\s+file)?)?\\s+(?:to|=)\\s+${QUOTED_OR_BARE('value')}(?<after>\\s+\\S+)?`,
  'gi',
);
/** Words that are not a key ("set up", "set it to"). */
const NOT_KEY = /^(?:up|it|this|that|these|those|them|everything|all|each|both|one|its|their|things?)$/i;
/** A value followed by a unit or an article: which text the file should hold is not clear. */
const UNCLEAR_AFTER =
  /^\s+(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|days?|weeks?|bytes?|[kmg]i?b|kilobytes?|megabytes?|gigabytes?|%|percent|times|or|instead|of|plus|minus|\*|x)\b/i;
const UNCLEAR_VALUE = /^(?:the|a|an|match|use|whatever|something|its|their|point|be|true\/false)$/i;
/** Files whose entries a reader takes by key. */
const SETTINGS_FILE = /\.(?:json|jsonc|ya?ml|toml|ini|cfg|conf|properties)$|(?:^|\/)\.env(?:\.[\w-]+)?$/i;

/** The settings the description asks to set to a value. */
export function askedSettingValues(description: string): AskedSettingValue[] {
  const found: AskedSettingValue[] = [];
  for (const sentence of description.split(/[.;!?\n](?:\s|$)/)) {
    const files = findPaths(sentence)
      .map((path) => path.file)
      .filter((file) => SETTINGS_FILE.test(file));
    SET.lastIndex = 0;
    for (const match of sentence.matchAll(SET)) {
      const groups = match.groups ?? {};
      const key = groups.key1 ?? groups.key2 ?? groups.key3 ?? groups.key4;
      const bareValue = groups.value4 !== undefined;
      let value = groups.value1 ?? groups.value2 ?? groups.value3 ?? groups.value4;
      if (key === undefined || value === undefined) continue;
      if (groups.key4 !== undefined && (NOT_KEY.test(key) || SETTINGS_FILE.test(key))) continue;
      if (bareValue) value = value.replace(/[.,:]+$/, '');
      if (value === '' || UNCLEAR_VALUE.test(value) || SETTINGS_FILE.test(value)) continue;
      if (groups.after !== undefined && UNCLEAR_AFTER.test(groups.after)) continue;
      found.push({ key, value, files });
    }
  }
  return found;
}

const normalKey = (key: string) => key.toLowerCase().replace(/[-_\s]/g, '');
const unquote = (text: string) => text.replace(/^(["'`])(.*)\1$/, '$2');
const squash = (text: string) => text.replace(/\s+/g, '');

/**
 * What `file` sets `key` to, as a reader takes it: the last entry of that key (its last dotted
 * segment; spelled exactly when the file has it so, else compared without case, spaces, `-` or
 * `_`) at the shallowest level the key appears; `null` when no entry has the key, undefined when
 * the file's kind is not read.
 */
export async function settingValue(
  file: string,
  text: string,
  key: string,
): Promise<{ value: string; line: number } | null | undefined> {
  if (!SETTINGS_FILE.test(file)) return undefined;
  const entries = await settingEntries(file, text);
  if (entries === undefined) return undefined;
  const leaf = key.split('.').at(-1) ?? key;
  const wanted = normalKey(leaf);
  const depth = (scope: string) => scope.split('/').length;
  // The key as written wins over look-alikes (`"port "`, `Port`, `log-level` for `log_level`).
  const exact = entries.filter((entry) => entry.key === leaf);
  const candidates = exact.length > 0 ? exact : entries.filter((entry) => normalKey(entry.key) === wanted);
  if (candidates.length === 0) return null;
  const shallowest = Math.min(...candidates.map((entry) => depth(entry.scope)));
  const entry = candidates.filter((candidate) => depth(candidate.scope) === shallowest).at(-1);
  if (entry === undefined) return null;
  const separator = /^(?:export)?(["']?)[^"':=]*\1[:=]/.exec(entry.text);
  const raw = separator === null ? entry.text : entry.text.slice(separator[0].length);
  return { value: unquote(raw.replace(/,$/, '')), line: entry.line };
}

/** Whether a setting's value (as {@link settingValue} reads it) is the asked one. */
export function isAskedValue(actual: string, asked: string): boolean {
  return squash(unquote(actual)).toLowerCase() === squash(unquote(asked)).toLowerCase();
}
