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
  /**
   * The table, section or object the sentence puts the key under ("in the [server] table",
   * "under `database`"), outermost first; absent when none is named. A dotted key adds its own.
   */
  parents?: string[];
  /**
   * The request writes the value bare and it is a boolean, null or a whole number ("set strict
   * to true", "set port to 8080"): in a typed file (JSON, YAML, TOML) the quoted text `"true"`
   * or `"8080"` is not that value.
   */
  typed?: true;
}

const QUOTED_OR_BARE = (name: string) =>
  `(?:\`(?<${name}1>[^\`\\n]{1,80})\`|"(?<${name}2>[^"\\n]{1,80})"|'(?<${name}3>[^'\\n]{1,80})'|(?<${name}4>[A-Za-z0-9_$@./:+-]{1,80}))`;
/** "set KEY [setting] [in FILE] to VALUE" (also change, update, configure, bump, raise, lower…). */
const SET = new RegExp(
  `\\b(?:set|change|update|configure|bump|raise|increase|lower|decrease|reduce)\\s+(?:the\\s+)?(?:value\\s+of\\s+(?:the\\s+)?)?${QUOTED_OR_BARE('key')}(?:\\s+(?:setting|option|key|value|field|entry|property|variable))?(?:\\s+(?:in|of)\\s+(?:the\\s+)?\\S+?(?:\\s+file)?)?\\s+(?:to|=)\\s+${QUOTED_OR_BARE('value')}(?<after>\\s+\\S+)?`,
  'gi',
);
/** ", KEY to VALUE" / "and KEY to VALUE" after a set: one more setting of the same ask. */
const MORE = new RegExp(
  `^\\s*(?:,\\s*(?:and\\s+)?|\\s+and\\s+)(?:the\\s+)?${QUOTED_OR_BARE('key')}(?:\\s+(?:setting|option|key|value|field|entry|property|variable))?\\s+(?:to|=)\\s+${QUOTED_OR_BARE('value')}(?<after>\\s+\\S+)?`,
  'i',
);
/**
 * A value of a type of its own in JSON, YAML and TOML whose text means otherwise: a boolean or
 * null (the text "false" is truthy), or a plain number (`"8080"` is text to a program that adds
 * to it). Numbers with a dot are left out: `"3.8"` is as often a version as a number.
 */
const TYPED_VALUE = /^(?:true|false|null|-?\d+)$/;
/** Keys whose values are names or versions even when they look like numbers (`version: "3"`). */
const TEXT_KEY = /(?:version|name|tag|id|code|zip|postal|phone|pin|python|node|image|release)$/i;
/** Settings files whose values have types (a quoted `"true"` is text there, not a boolean). */
export const TYPED_SETTINGS_FILE = /\.(?:json|jsonc|json5|ya?ml|toml)$/i;
/** A value plainly meant for a file (a number, a boolean, a version, a quoted text): for a setting that follows a set without its own verb. */
const PLAIN_VALUE = /^(?:-?\d[\w.:-]*|true|false|yes|no|on|off|null|none)$/i;
/** "in the [server] table", "under the `database` section", "under server". */
const PARENT =
  /\b(?:(?:in|within|inside|of)\s+(?:the\s+)?(?:\[\s*(?<p1>[\w.-]+)\s*\]|`(?<p2>[\w.-]+)`|"(?<p3>[\w.-]+)"|(?<p4>[A-Za-z_][\w-]*))\s+(?:table|section|block|object|group|mapping)\b|under\s+(?:the\s+)?(?:\[\s*(?<p5>[\w.-]+)\s*\]|`(?<p6>[\w.-]+)`|"(?<p7>[\w.-]+)"|(?<p8>[A-Za-z_][\w-]*))(?:\s+(?:table|section|block|object|group|mapping|key))?)/i;
/** Words after "under" that name no parent ("under the hood"). */
const NOT_PARENT =
  /^(?:a|an|the|it|this|that|load|test|hood|version|control|review|windows|linux|node|any|some|which)$/i;
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
    const parentMatch = PARENT.exec(sentence)?.groups ?? {};
    const parent = [1, 2, 3, 4, 5, 6, 7, 8]
      .map((n) => parentMatch[`p${n}`])
      .find((name) => name !== undefined);
    const parents = parent === undefined || NOT_PARENT.test(parent) ? undefined : parent.split('.');
    const take = (groups: Record<string, string | undefined>, more: boolean): boolean => {
      const key = groups.key1 ?? groups.key2 ?? groups.key3 ?? groups.key4;
      const bareValue = groups.value4 !== undefined;
      let value = groups.value1 ?? groups.value2 ?? groups.value3 ?? groups.value4;
      if (key === undefined || value === undefined) return false;
      if (groups.key4 !== undefined && (NOT_KEY.test(key) || SETTINGS_FILE.test(key))) return false;
      if (bareValue) value = value.replace(/[.,:]+$/, '');
      if (value === '' || UNCLEAR_VALUE.test(value) || SETTINGS_FILE.test(value)) return false;
      if (more && bareValue && !PLAIN_VALUE.test(value)) return false;
      if (groups.after !== undefined && UNCLEAR_AFTER.test(groups.after)) return false;
      const typed =
        bareValue && TYPED_VALUE.test(value) && !(/\d$/.test(value) && TEXT_KEY.test(key))
          ? { typed: true as const }
          : {};
      found.push(
        parents === undefined ? { key, value, files, ...typed } : { key, value, files, parents, ...typed },
      );
      return true;
    };
    SET.lastIndex = 0;
    for (const match of sentence.matchAll(SET)) {
      if (!take(match.groups ?? {}, false)) continue;
      // "set timeout to 30 and retries to 5": every setting of the list is asked.
      let rest = sentence.slice((match.index ?? 0) + match[0].length - (match.groups?.after?.length ?? 0));
      for (let more = MORE.exec(rest); more !== null; more = MORE.exec(rest)) {
        if (!take(more.groups ?? {}, true)) break;
        rest = rest.slice(more[0].length - (more.groups?.after?.length ?? 0));
      }
    }
  }
  return found;
}

const normalKey = (key: string) => key.toLowerCase().replace(/[-_\s]/g, '');
const unquote = (text: string) => text.replace(/^(["'`])(.*)\1$/, '$2');
const squash = (text: string) => text.replace(/\s+/g, '');

/** The names of the tables, sections and objects a scope lies in, outermost first (list items left out). */
function scopeNames(file: string, scope: string): string[] {
  const parts = /\.(?:ini|cfg|conf|toml)$/i.test(file)
    ? scope.replace(/#\d+$/, '').split('.')
    : scope.split('/').map((part) => part.replace(/#\d+$/, ''));
  return parts.filter((part) => part !== '' && !/^(?:\[\d+\]|-\d+|doc\d+|#\d+)$/.test(part)).map(normalKey);
}

/** A setting's value where a reader takes it, see {@link settingValue}. */
export interface SettingValue {
  value: string;
  /** 1-based line of the entry. */
  line: number;
  /**
   * Set when parents were asked and no entry of the key lies under them: where the entry taken
   * lies instead (dotted names, `''` for the top level).
   */
  elsewhere?: string;
  /** The file writes the value in quotes (a string, in a typed file). */
  quoted?: true;
}

/**
 * What `file` sets `key` to, as a reader takes it: the last entry of that key (its last dotted
 * segment; spelled exactly when the file has it so, else compared without case, spaces, `-` or
 * `_`) at the shallowest level the key appears; `null` when no entry has the key, undefined when
 * the file's kind is not read. With `parents` (or a dotted key such as `database.pool`), only
 * entries under those tables, sections or objects count; when the key lies only elsewhere, the
 * entry taken says where (`elsewhere`). A flat key spelled with its dots (`log.level=debug` in a
 * properties file) is taken as it is.
 */
export async function settingValue(
  file: string,
  text: string,
  key: string,
  parents: readonly string[] = [],
): Promise<SettingValue | null | undefined> {
  if (!SETTINGS_FILE.test(file)) return undefined;
  const entries = await settingEntries(file, text);
  if (entries === undefined) return undefined;
  const segments = key.split('.');
  const leaf = segments.at(-1) ?? key;
  const wanted = normalKey(leaf);
  const depth = (scope: string) => scope.split('/').length;
  const flat = segments.length > 1 ? entries.filter((entry) => entry.key === key) : [];
  // The key as written wins over look-alikes (`"port "`, `Port`, `log-level` for `log_level`).
  const exact = entries.filter((entry) => entry.key === leaf);
  let candidates =
    flat.length > 0
      ? flat
      : exact.length > 0
        ? exact
        : entries.filter((entry) => normalKey(entry.key) === wanted);
  if (candidates.length === 0) return null;
  const path = flat.length > 0 ? [...parents] : [...parents, ...segments.slice(0, -1)];
  let elsewhere = false;
  if (path.length > 0) {
    const asked = path.map(normalKey);
    const under = candidates.filter((entry) => {
      const names = scopeNames(file, entry.scope);
      return (
        names.length >= asked.length &&
        asked.every((name, i) => names[names.length - asked.length + i] === name)
      );
    });
    if (under.length > 0) candidates = under;
    else elsewhere = true;
  }
  const shallowest = Math.min(...candidates.map((entry) => depth(entry.scope)));
  const entry = candidates.filter((candidate) => depth(candidate.scope) === shallowest).at(-1);
  if (entry === undefined) return null;
  const separator = /^(?:export)?(["']?)[^"':=]*\1[:=]/.exec(entry.text);
  const raw = separator === null ? entry.text : entry.text.slice(separator[0].length);
  const written = raw.replace(/,$/, '').trim();
  const value = unquote(written);
  const quoted = /^(["'`]).*\1$/.test(written) ? { quoted: true as const } : {};
  return elsewhere
    ? { value, line: entry.line, elsewhere: scopeNames(file, entry.scope).join('.'), ...quoted }
    : { value, line: entry.line, ...quoted };
}

/**
 * Whether any entry of `file` has a key that contains `key`'s last segment or is contained in
 * it (`TIMEOUT_SECONDS` for `timeout`): a key the file may spell otherwise. Undefined when the
 * file's kind is not read.
 */
export async function mentionsKey(file: string, text: string, key: string): Promise<boolean | undefined> {
  if (!SETTINGS_FILE.test(file)) return undefined;
  const entries = await settingEntries(file, text);
  if (entries === undefined) return undefined;
  const wanted = normalKey(key.split('.').at(-1) ?? key);
  return entries.some((entry) => {
    const have = normalKey(entry.key.split('.').at(-1) ?? entry.key);
    return have.includes(wanted) || (have.length >= 3 && wanted.includes(have));
  });
}

/** Whether a setting's value (as {@link settingValue} reads it) is the asked one. */
export function isAskedValue(actual: string, asked: string): boolean {
  return squash(unquote(actual)).toLowerCase() === squash(unquote(asked)).toLowerCase();
}
