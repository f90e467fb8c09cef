import { childrenOf, descendants, parseSource, type SourceTree } from './code-parser';

/**
 * Settings a step wrote that a later setting of the same key in the same place overrides: a
 * `"port": 5432` added above the `"port": 5433` a JSON object already had, a second `PORT=` line
 * in `.env` before the old one, `port: 5432` in a JS object literal followed by the old `port:
 * 5433`. Every reader (JSON.parse, YAML and INI loaders, dotenv, the JS engine) keeps the last
 * one, so the file names the asked value and the program still runs on the old one.
 */

/** One `key = value` entry of a settings file or object literal. */
interface Entry {
  /** Where the key lives: one object, section or list item (comparable within one text only). */
  scope: string;
  key: string;
  /** The entry's source, whitespace removed (compared with the entries before the change). */
  text: string;
  /** 1-based line. */
  line: number;
}

/** A setting the change added that a later one overrides. */
export interface ShadowedSetting {
  key: string;
  /** The added entry, as written. */
  added: string;
  /** The later entry that wins. */
  winner: string;
  line: number;
}

const squash = (text: string) => text.replace(/\s+/g, '');
const JSON_FILE = /\.(?:json|jsonc|json5)$|(?:^|\/)\.[\w-]*rc$/i;
const YAML_FILE = /\.ya?ml$/i;
const ENV_FILE = /(?:^|\/)\.env(?:\.[\w-]+)?$|\.env$|\.properties$/i;
const INI_FILE = /\.(?:ini|cfg|conf|toml|editorconfig)$|(?:^|\/)\.(?:editorconfig|npmrc|gitconfig)$/i;
const CODE_FILE = /\.[cm]?[jt]sx?$/;

/** Whether {@link shadowedSettings} reads this kind of file. */
export function readsSettingsOf(file: string): boolean {
  return [JSON_FILE, YAML_FILE, ENV_FILE, INI_FILE, CODE_FILE].some((pattern) => pattern.test(file));
}

/** Object entries of JSON text, scoped by their object's path (a tolerant scanner: comments allowed). */
function jsonEntries(text: string): Entry[] {
  const entries: Entry[] = [];
  // Each open container: its scope id and, for objects, whether a key is expected next.
  const stack: { scope: string; object: boolean; index: number }[] = [];
  let line = 1;
  let pendingKey: { key: string; line: number; start: number } | undefined;
  let lastString: { value: string; line: number; start: number } | undefined;
  let containers = 0;
  const close = (end: number) => {
    if (pendingKey !== undefined) {
      const top = stack[stack.length - 1];
      if (top?.object)
        entries.push({
          scope: top.scope,
          key: pendingKey.key,
          text: squash(text.slice(pendingKey.start, end)),
          line: pendingKey.line,
        });
      pendingKey = undefined;
    }
  };
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '\n') line++;
    else if (char === '"' || char === "'") {
      const start = index;
      let value = '';
      for (index++; index < text.length && text[index] !== char; index++) {
        if (text[index] === '\\') index++;
        else if (text[index] === '\n') line++;
        value += text[index] ?? '';
      }
      lastString = { value, line, start };
    } else if (char === '/' && text[index + 1] === '/') {
      while (index < text.length && text[index] !== '\n') index++;
      index--;
    } else if (char === '/' && text[index + 1] === '*') {
      const end = text.indexOf('*/', index + 2);
      const skipped = text.slice(index, end === -1 ? text.length : end + 2);
      line += skipped.split('\n').length - 1;
      index = end === -1 ? text.length : end + 1;
    } else if (char === ':') {
      if (lastString !== undefined && stack[stack.length - 1]?.object)
        pendingKey = { key: lastString.value, line: lastString.line, start: lastString.start };
      lastString = undefined;
    } else if (char === '{' || char === '[') {
      const parent = stack[stack.length - 1];
      const name =
        pendingKey?.key ?? (parent !== undefined && !parent.object ? `[${parent.index}]` : `#${containers}`);
      containers++;
      stack.push({ scope: `${parent?.scope ?? ''}/${name}#${containers}`, object: char === '{', index: 0 });
      // The key stays pending on the parent: its entry ends where this container closes.
      if (pendingKey !== undefined) (stack[stack.length - 1] as { pending?: unknown }).pending = pendingKey;
      pendingKey = undefined;
    } else if (char === '}' || char === ']') {
      close(index);
      const done = stack.pop() as { pending?: { key: string; line: number; start: number } } | undefined;
      if (done?.pending !== undefined) pendingKey = done.pending;
    } else if (char === ',') {
      close(index);
      const top = stack[stack.length - 1];
      if (top !== undefined && !top.object) top.index++;
      lastString = undefined;
    }
  }
  close(text.length);
  return entries;
}

/** `key: value` entries of YAML, scoped by their parent keys and list items (indentation). */
function yamlEntries(text: string): Entry[] {
  const entries: Entry[] = [];
  const stack: { indent: number; scope: string }[] = [];
  let blockIndent: number | undefined;
  for (const [index, raw] of text.split('\n').entries()) {
    const content = raw.replace(/\s+#.*$/, '');
    if (content.trim() === '' || content.trim().startsWith('#')) continue;
    if (/^(?:---|\.\.\.)\s*$/.test(content)) {
      stack.length = 0;
      stack.push({ indent: -1, scope: `doc${index}` });
      continue;
    }
    let indent = content.length - content.trimStart().length;
    if (blockIndent !== undefined && indent > blockIndent) continue;
    blockIndent = undefined;
    let rest = content.trimStart();
    // `- key: value` opens a list item: a scope of its own at the item's indentation.
    while (rest.startsWith('- ') || rest === '-') {
      while (stack.length > 0 && (stack[stack.length - 1]?.indent ?? -1) >= indent) stack.pop();
      stack.push({ indent, scope: `${stack[stack.length - 1]?.scope ?? ''}/-${index}` });
      const after = rest.slice(1);
      indent += 1 + (after.length - after.trimStart().length);
      rest = after.trimStart();
    }
    const match = /^(["']?)([^"'#:{}[\],]+?)\1\s*:(?:\s+(.*)|$)/.exec(rest);
    if (match === null) continue;
    while (stack.length > 0 && (stack[stack.length - 1]?.indent ?? -1) >= indent) stack.pop();
    const scope = stack[stack.length - 1]?.scope ?? '';
    const key = (match[2] ?? '').trim();
    const value = (match[3] ?? '').trim();
    entries.push({ scope, key, text: squash(rest), line: index + 1 });
    if (/^[|>][-+\d]*$/.test(value)) blockIndent = indent;
    stack.push({ indent, scope: `${scope}/${key}#${index}` });
  }
  return entries;
}

/** `KEY=value` lines (`.env`, `.properties`), or `key = value` under `[section]` headers (INI, TOML). */
function lineEntries(text: string, sections: boolean): Entry[] {
  const entries: Entry[] = [];
  let scope = '';
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = sections ? /^\[(\[?)\s*([^\]]+?)\s*\]\]?$/.exec(line) : null;
    if (header !== null) {
      // `[[table]]` (TOML arrays of tables) opens a new item every time.
      scope = header[1] === '[' ? `${header[2]}#${index}` : (header[2] ?? '');
      continue;
    }
    const match = /^(?:export\s+)?(["']?)([\w.-]+)\1\s*[=:]/.exec(line);
    if (match === null) continue;
    entries.push({ scope, key: match[2] ?? '', text: squash(line), line: index + 1 });
  }
  return entries;
}

/** Plain `key: value` properties of JS/TS object literals (no spreads, computed keys or accessors). */
function objectEntries(source: SourceTree): Entry[] {
  const entries: Entry[] = [];
  for (const object of descendants(source.root, 'ObjectExpression')) {
    const properties = childrenOf(object).filter((node) => node.name === 'Property');
    // A spread may override the entries before it: such an object is left alone.
    if (properties.some((property) => childrenOf(property).some((part) => part.name === 'Spread'))) continue;
    for (const property of properties) {
      const parts = childrenOf(property);
      if (parts.some((part) => part.name === '[' || part.name === 'get' || part.name === 'set')) continue;
      const name = parts[0];
      if (name === undefined || !['PropertyDefinition', 'String', 'Number'].includes(name.name)) continue;
      const key = source.textOf(name).replace(/^(["'])(.*)\1$/, '$2');
      entries.push({
        scope: `${object.from}`,
        key,
        text: squash(source.textOf(property)),
        line: source.lineOf(property),
      });
    }
  }
  return entries;
}

/**
 * The `key = value` entries of a settings file or a JS/TS module (comments left out), each with
 * the scope it lives in and its source without whitespace; undefined for a file of another kind.
 */
export async function settingEntries(
  file: string,
  text: string,
): Promise<{ scope: string; key: string; text: string; line: number }[] | undefined> {
  return entriesOf(file, text);
}

async function entriesOf(file: string, text: string): Promise<Entry[] | undefined> {
  if (JSON_FILE.test(file)) return jsonEntries(text);
  if (YAML_FILE.test(file)) return yamlEntries(text);
  if (ENV_FILE.test(file)) return lineEntries(text, false);
  if (INI_FILE.test(file)) return lineEntries(text, true);
  if (CODE_FILE.test(file)) {
    const source = await parseSource(file, text);
    return source === undefined ? undefined : objectEntries(source);
  }
  return undefined;
}

/**
 * The entries a change added to `file` (`before` undefined for a new file) that a later entry
 * of the same key in the same object, section or list item overrides. Entries the file already
 * had are not reported: only what this change wrote and cannot take effect.
 */
export async function shadowedSettings(
  file: string,
  before: string | undefined,
  after: string,
): Promise<ShadowedSetting[]> {
  const now = await entriesOf(file, after);
  if (now === undefined || now.length < 2) return [];
  const was = before === undefined ? [] : ((await entriesOf(file, before)) ?? []);
  const old = new Set(was.map((entry) => `${entry.key}\u0000${entry.text}`));
  const found: ShadowedSetting[] = [];
  for (const [index, entry] of now.entries()) {
    if (old.has(`${entry.key}\u0000${entry.text}`)) continue;
    const winner = now
      .slice(index + 1)
      .find((later) => later.scope === entry.scope && later.key === entry.key);
    if (winner === undefined || winner.text === entry.text) continue;
    found.push({ key: entry.key, added: entry.text, winner: winner.text, line: entry.line });
  }
  return found;
}
