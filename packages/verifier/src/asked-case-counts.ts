import { escapeRegExp } from './escape-reg-exp';
import { impliedCases } from './implied-case-counts';
import { countOf } from './number-words';

/**
 * Lookup tables and switches asked to cover a number of cases ("map each of the 7 weekday numbers
 * 0-6", "the status codes 200, 201, 400, 404 and 500", "all 12 month names", "every key in
 * locales/en.json") that the step filled with fewer — typically only the request's example.
 * Read from the text of any language: object, dict, map and array literals, `case` labels,
 * `match` arms, and the keys of a JSON/YAML file the step wrote.
 */

/** The request is about a table of cases (a mapping, a lookup, a switch, a dict…). */
const TABLE_ASKED =
  /\b(?:maps?|mapping|mapped|lookups?|look-up|tables?|switch|switches|match\s+statement|dict(?:ionary|ionaries|s)?|enums?|translat\w*)\b/i;

/** Counted things that are not cases of a table ("all 3 files", "the 2 tests", "30 seconds"). */
const NOT_CASES =
  /^(?:files?|tests?|specs?|times|seconds|minutes|hours|days\s+ago|milliseconds|ms|bytes|kb|mb|gb|lines|characters|chars|steps|retries|attempts|workers|threads|spaces|tabs|commits|branches|packages|dependencies|modules|folders|directories|services|configs?|replicas|instances|columns|tables|migrations|decimals?|digits|places)$/i;

/** A count the request asks to cover, and the literals it names (its examples). */
export interface AskedCases {
  /** How many cases the table must hold. */
  count: number;
  /** Why (for messages): `7 weekday numbers`, `0-6`, `200, 201, 400, 404 and 500`, `every key of locales/en.json`. */
  why: string;
}

/**
 * The number of cases a request asks a table to cover: an explicit count of plural things ("each
 * of the 7 weekday numbers", "all twelve months"), a numeric range ("0-6", "1 to 12"), a listed run
 * of three or more literals ("200, 201, 400, 404 and 500"), or the keys of a JSON file it is to
 * mirror ("every key in locales/en.json"). Undefined when the request names none.
 */
export function askedCases(
  description: string,
  read: (file: string) => string | undefined,
): AskedCases | undefined {
  if (!TABLE_ASKED.test(description)) return undefined;
  const found: AskedCases[] = [];
  const counted =
    /\b(?:each\s+of\s+(?:the\s+)?|all\s+(?:of\s+the\s+|the\s+)?|every\s+one\s+of\s+the\s+|the\s+|covers?\s+(?:the\s+)?|covering\s+(?:the\s+)?|for\s+(?:the\s+)?|maps?\s+(?:the\s+)?)(\d{1,3}|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|twenty)\s+((?:[a-z-]+\s+){0,2}[a-z-]+s)\b/gi;
  for (const match of description.matchAll(counted)) {
    const raw = (match[1] ?? '').toLowerCase();
    const count = countOf(raw) ?? Number.NaN;
    const noun = (match[2] ?? '').split(/\s+/).pop() ?? '';
    if (count >= 2 && count <= 200 && !NOT_CASES.test(noun))
      found.push({ count, why: `${match[1]} ${match[2]}` });
  }
  for (const match of description.matchAll(
    /\b(?:numbers?|codes?|values?|levels?|indexes|indices|ids?|keys?|digits?|from)\s+(\d{1,3})\s*(?:-|–|\.\.|to|through)\s*(\d{1,3})\b/gi,
  )) {
    const low = Number(match[1]);
    const high = Number(match[2]);
    if (high > low && high - low < 200) found.push({ count: high - low + 1, why: `${match[1]}-${match[2]}` });
  }
  const literal = String.raw`(?:-?\d+(?:\.\d+)?|"[^"\n]{1,40}"|'[^'\n]{1,40}'|\x60[^\x60\n]{1,40}\x60)`;
  for (const match of description.matchAll(
    new RegExp(String.raw`${literal}(?:\s*,\s*${literal}){1,}\s*,?\s*(?:and|or)\s+${literal}`, 'g'),
  )) {
    const items = match[0]
      .split(/\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+/)
      .filter((item) => item.trim() !== '');
    if (items.length >= 3) found.push({ count: items.length, why: match[0] });
  }
  for (const match of description.matchAll(
    /\b(?:every|each|all(?:\s+the)?)\s+(?:of\s+the\s+)?(?:keys?|entries|strings|messages|labels)\s+(?:in|of|from)\s+[`'"]?([\w./-]+\.json)\b/gi,
  )) {
    const file = match[1] ?? '';
    const keys = jsonLeafKeys(read(file));
    if (keys !== undefined && keys.length >= 2)
      found.push({ count: keys.length, why: `every key of ${file}` });
  }
  if (found.length === 0) return undefined;
  return found.reduce((best, item) => (item.count > best.count ? item : best));
}

/** The leaf keys of a JSON object (`a.b` for nested ones), or undefined when it is not one. */
function jsonLeafKeys(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const keys: string[] = [];
  const walk = (node: Record<string, unknown>, prefix: string) => {
    for (const [key, child] of Object.entries(node)) {
      if (typeof child === 'object' && child !== null && !Array.isArray(child))
        walk(child as Record<string, unknown>, `${prefix}${key}.`);
      else keys.push(`${prefix}${key}`);
    }
  };
  walk(value as Record<string, unknown>, '');
  return keys;
}

/** Files of `key: value` / `key = value` lines. */
const SETTINGS_FILE = /\.(?:ya?ml|toml|ini|properties|env)$/i;

/** The keys given a value in a YAML, TOML, INI or properties file (`debug: 10`, `port = 80`). */
function settingKeys(text: string): string[] {
  return [...text.matchAll(/^\s*(?:-\s+)?(['"]?[\w.-]+['"]?)\s*[:=]\s*[^\s#;]/gm)].map(
    (match) => match[1] ?? '',
  );
}

/** A table found in a file: its size and its keys (or elements). */
export interface FoundTable {
  size: number;
  keys: string[];
  /** The values of a `key: value` table (its keys are then identifiers, numbers or strings). */
  values?: string[];
  /** 1-based line where it starts. */
  line: number;
  /** The `case` labels of a switch / match (which may well have a default for the rest). */
  cases?: true;
}

const STRING = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/y;

/** Splits the inside of a bracket pair into its top-level items (strings and nested brackets kept whole). */
function topLevelItems(inner: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let at = 0; at < inner.length; at++) {
    const char = inner[at] ?? '';
    if (char === '"' || char === "'" || char === '`') {
      STRING.lastIndex = at;
      const match = STRING.exec(inner);
      if (match) at += match[0].length - 1;
      continue;
    }
    if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) depth--;
    else if (depth === 0 && (char === ',' || char === '\n')) {
      items.push(inner.slice(start, at));
      start = at + 1;
    }
  }
  items.push(inner.slice(start));
  return items.map((item) => item.trim()).filter((item) => item !== '' && !/^(?:\/\/|#)/.test(item));
}

const KEY = /^(?:"[^"]*"|'[^']*'|-?\d+|\[[^\]]+\]|[A-Za-z_$][\w$]*)\s*(?::|=>|=(?!=))\s*\S/;
const ELEMENT = /^(?:"[^"]*"|'[^']*'|`[^`]*`|-?\d+(?:\.\d+)?|true|false|null|None|nil)$/;

/**
 * The tables of a source file: object / dict / map literals whose items are all `key: value`
 * (`key => value`, `[k] = v`), array literals of two or more literals, and the `case` labels of
 * each `switch` / `match` (C-like `case X:`, Python `case X:`, Rust `X =>`), counted per block.
 */
export function tablesIn(text: string): FoundTable[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"])\/\/[^\n]*/g, '$1');
  const tables: FoundTable[] = [];
  const lineOf = (index: number) => code.slice(0, index).split('\n').length;
  const stack: number[] = [];
  for (let at = 0; at < code.length; at++) {
    const char = code[at] ?? '';
    if (char === '"' || char === "'" || char === '`') {
      STRING.lastIndex = at;
      const match = STRING.exec(code);
      if (match) at += match[0].length - 1;
      continue;
    }
    if (char === '{' || char === '[') stack.push(at);
    else if (char === '}' || char === ']') {
      const open = stack.pop();
      if (open === undefined) continue;
      const inner = code.slice(open + 1, at);
      const items = topLevelItems(inner);
      if (items.length === 0) continue;
      if (code[open] === '{' && items.every((item) => KEY.test(item)) && !/;\s*$/.test(inner.trim())) {
        const pairs = items.map((item) => /^(\S+?)\s*(?::|=>|=)\s*([\s\S]*)$/.exec(item));
        tables.push({
          size: items.length,
          keys: pairs.map((pair, index) => (pair?.[1] ?? items[index] ?? '').replace(/^\[|\]$/g, '')),
          values: pairs.map((pair) => (pair?.[2] ?? '').trim()),
          line: lineOf(open),
        });
      } else if (code[open] === '[' && items.length >= 2 && items.every((item) => ELEMENT.test(item)))
        tables.push({ size: items.length, keys: items, line: lineOf(open) });
      // Case labels directly in this block.
      if (code[open] === '{' || code[open] === '[') {
        const flat = inner.replace(/\{[^{}]*\}/g, ' ');
        const labels = [
          ...flat.matchAll(/(?:^|[\s;{:])case\s+((?:[^:\n]|::)+?)\s*:(?!:)/g),
          ...flat.matchAll(
            /(?:^|[{,])\s*((?:"[^"\n]*"|'[^'\n]*'|-?\d+|[A-Z]\w*(?:::\w+)?)(?:\s*\|\s*(?:"[^"\n]*"|'[^'\n]*'|-?\d+|[A-Z]\w*(?:::\w+)?))*)\s*=>/gm,
          ),
        ].flatMap((match) => (match[1] ?? '').split(/\s*[,|]\s*/));
        if (labels.length > 0)
          tables.push({ size: labels.length, keys: labels, line: lineOf(open), cases: true });
      }
    }
  }
  // Python `match` statements: indentation, no braces.
  for (const match of text.matchAll(/^([ \t]*)match\s+[^\n]+:\n((?:\1[ \t]+[^\n]*\n?|\s*\n)+)/gm)) {
    const labels = [...(match[2] ?? '').matchAll(/^\s*case\s+([^:\n]+):/gm)]
      .map((item) => item[1] ?? '')
      .filter((label) => label.trim() !== '_');
    if (labels.length > 0)
      tables.push({ size: labels.length, keys: labels, line: lineOf(match.index ?? 0), cases: true });
  }
  return tables;
}

/** A table a step wrote that holds fewer cases than the request asks for. */
export interface ShortTable {
  file: string;
  table: FoundTable;
  asked: AskedCases;
}

/**
 * The table of the files a step wrote that falls short of the cases the request asks it to cover:
 * the largest table of those files holds fewer entries than asked, and only literals the request
 * itself shows (its example) or a single entry. Files of data (`.json`) count by their leaf keys.
 * A request that names a well-known set instead of a count ("every weekday", "the HTTP status
 * codes") asks for at least that set's size ({@link impliedCases}), whatever the entries.
 */
export function shortTable(
  description: string,
  files: readonly { file: string; text: string }[],
  read: (file: string) => string | undefined,
): ShortTable | undefined {
  if (!TABLE_ASKED.test(description)) return undefined;
  const counted = askedCases(description, read);
  const implied = counted === undefined ? impliedCases(description) : undefined;
  const asked = counted ?? implied;
  if (asked === undefined || files.length === 0) return undefined;
  const bare = (key: string) => key.replace(/^(['"`])([\s\S]*)\1$/, '$2').trim();
  // A well-known set: only a table of its members, not a switch (its default may cover the rest).
  const judged = (table: FoundTable) =>
    implied === undefined ||
    (table.cases === undefined &&
      [...table.keys, ...(table.values ?? [])].some((item) => implied.member.test(bare(item))));
  let largest: { file: string; table: FoundTable } | undefined;
  for (const { file, text } of files) {
    const tables = /\.json$/i.test(file)
      ? (() => {
          const keys = jsonLeafKeys(text);
          return keys === undefined ? [] : [{ size: keys.length, keys, line: 1 }];
        })()
      : SETTINGS_FILE.test(file)
        ? (() => {
            const keys = settingKeys(text);
            return keys.length === 0 ? [] : [{ size: keys.length, keys, line: 1 }];
          })()
        : tablesIn(text);
    for (const table of tables)
      if (judged(table) && (largest === undefined || table.size > largest.table.size))
        largest = { file, table };
  }
  if (largest === undefined || largest.table.size >= asked.count) return undefined;
  const said = (text: string) => {
    const words = bare(text);
    return words !== '' && new RegExp(`(?<![\\w])${escapeRegExp(words)}(?![\\w])`).test(description);
  };
  // Only the request's example: every key is one the request shows, and an identifier key (`{
  // weekday: 'long' }`, an option bag) counts only when its value is shown too.
  const { keys, values } = largest.table;
  const shown = keys.every(
    (key, index) =>
      said(key) && (/^(?:-?\d|['"`])/.test(key) || values === undefined || said(values[index] ?? '')),
  );
  // A well-known set (every weekday, the months) needs no example to judge: its size is known.
  if (!shown && !asked.why.startsWith('every key of') && implied === undefined) return undefined;
  return { ...largest, asked };
}
