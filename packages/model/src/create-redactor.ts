import { gunzipSync, inflateSync, constants as zlibConstants } from 'node:zlib';

/**
 * The one secret redactor of closedloop. Providers, tools, the verifier and cortex's journal all
 * use it, so a secret is removed the same way wherever text leaves the process: tool results,
 * error messages, findings, events, the journal, the CLI, the web UI.
 */
export interface Redactor {
  /**
   * Returns `text` with every secret it recognises replaced by a `[REDACTED…]` marker. Cheap on
   * repeated texts: each redactor remembers its recent answers (bounded, forgotten when a secret
   * is registered).
   */
  redact(text: string): string;
  /**
   * Redacts every string inside a JSON-like value (plain objects and arrays; errors become new
   * errors with redacted message and stack; other objects are kept as they are; anything nested
   * deeper than 256 levels is replaced by a marker). A string field with a secret name
   * (`{ password: '…' }`, `{ 'x-api-key': '…' }`) is replaced whole, as `"password": "…"` is in a
   * text. Returns a new value with the input's shape
   * (an object referenced twice, or in a cycle, is one redacted copy referenced twice); the input
   * is not changed.
   */
  redactValue<T>(value: T): T;
  /** How many distinct secret values it knows by value (environment, `secrets`, registered). */
  readonly knownSecretCount: number;
}

/** Options of {@link createRedactor}. */
export interface RedactorOptions {
  /** Environment whose secret-named variables are redacted by value. Default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** More literal secrets to redact by value (the configured API key, a password…). */
  secrets?: readonly string[];
  /** @deprecated Use `secrets`. */
  extra?: readonly string[];
  /** Known values shorter than this are ignored (redacting `"1"` would shred every text). Default 8. */
  minLength?: number;
  /**
   * Also redact the secrets given to {@link registerSecret} (configured API keys of providers).
   * Default true.
   */
  registered?: boolean;
  /**
   * The replacement text. Default `[REDACTED]`, or `[REDACTED:NAME]` for a value known from the
   * environment variable `NAME`.
   */
  placeholder?: string;
}

/** Shared through `globalThis`, so two copies of this package still redact the same secrets. */
interface SecretRegistry {
  values: Set<string>;
  version: number;
}
const registryKey = Symbol.for('closedloop.model.registered-secrets');
function secretRegistry(): SecretRegistry {
  const holder = globalThis as { [registryKey]?: SecretRegistry };
  holder[registryKey] ??= { values: new Set(), version: 0 };
  return holder[registryKey];
}

/**
 * Tells every redactor of this process about a secret it must remove by value (a configured API
 * key, a token read from a file). Provider adapters call it with their API key. Values shorter
 * than 8 characters are ignored.
 *
 * @example
 * ```ts
 * registerSecret(apiKey);
 * createRedactor().redact(`key ${apiKey}`); // 'key [REDACTED]'
 * ```
 */
export function registerSecret(value: string | undefined): void {
  const registry = secretRegistry();
  if (typeof value !== 'string' || value.length < 8 || registry.values.has(value)) return;
  registry.values.add(value);
  registry.version++;
}

// ---------------------------------------------------------------------------------------------
// Names that hold secrets
// ---------------------------------------------------------------------------------------------

/** Words that make a variable, key or option name secret wherever they appear in it. */
const secretWords = [
  'PASSWORD',
  'PASSWD',
  'PASSPHRASE',
  'SECRET',
  'APIKEY',
  'API_KEY',
  'ACCESS_KEY',
  'ACCESSKEY',
  'PRIVATE_KEY',
  'PRIVATEKEY',
  'SECRET_KEY',
  'SIGNING_KEY',
  'ENCRYPTION_KEY',
  'MASTER_KEY',
  'ACCOUNT_KEY',
  'ACCOUNTKEY',
  'CLIENT_KEY',
  'SESSION_KEY',
  'LICENSE_KEY',
  'CREDENTIAL',
  'AUTHORIZATION',
  'AUTHTOKEN',
  'CONNECTION_STRING',
  'CONNECTIONSTRING',
];

/** Name parts (between `_`) that make a name secret on their own: `GITHUB_TOKEN`, `DB_PASS`. */
const secretParts: ReadonlySet<string> = new Set([
  'TOKEN',
  'PASS',
  'PWD',
  'PW',
  'AUTH',
  'DSN',
  'COOKIE',
  'CREDENTIALS',
  'CREDS',
  'KEY',
]);

/** Parts that, before `KEY`, name something that is not a secret (`SORT_KEY`, `PRIMARY_KEY`). */
const harmlessKeyPrefixes: ReadonlySet<string> = new Set([
  'SORT',
  'CACHE',
  'PRIMARY',
  'FOREIGN',
  'PARTITION',
  'UNIQUE',
  'INDEX',
  'LOOKUP',
  'HOT',
  'MAP',
  'OBJECT',
  'ROW',
  'SHORTCUT',
  'HASH',
  'GROUP',
  'ROUTING',
  'IDEMPOTENCY',
  'DEDUP',
  'PUBLIC',
  'PUBLISHABLE',
  'SSH_PUBLIC',
  'GPG',
]);

/** Names that look secret but are not. */
const notSecretNames: ReadonlySet<string> = new Set([
  'PWD',
  'OLDPWD',
  'SSH_AUTH_SOCK',
  'GPG_AGENT_INFO',
  'GPG_KEY_ID',
  'TERM_SESSION_ID',
  'XDG_SESSION_ID',
  'XDG_SESSION_TYPE',
  'XDG_SESSION_CLASS',
  'XDG_SESSION_DESKTOP',
  'KEY',
  'KEYS',
  'TOKENS',
  'MAX_TOKENS',
  'MAX_OUTPUT_TOKENS',
  'MAX_COMPLETION_TOKENS',
  'TOKEN_TYPE',
  'AUTH_TYPE',
  'AUTH_URL',
  'TOKEN_URL',
  'AUTH_METHOD',
  'PASS_THROUGH',
  'PASSTHROUGH',
  'COOKIE_NAME',
  'COOKIE_PATH',
  'COOKIE_DOMAIN',
  'KEY_ID',
  'KEY_NAME',
  'SECRET_NAME',
  'SECRET_ID',
  'SECRETS_PATH',
  'PASSWORD_LENGTH',
  'PASSWORD_MIN_LENGTH',
  'PASSWORD_POLICY',
]);

/** `dbPassword` → `DB_PASSWORD`, `x-api-key` → `X_API_KEY`, `_authToken` → `AUTH_TOKEN`. */
function normalizeName(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
}

/**
 * True when a variable, key or option name looks like it holds a secret: `OPENAI_API_KEY`,
 * `GITHUB_TOKEN`, `DB_PASS`, `dbPassword`, `_authToken`, `x-api-key`, `JWT_SECRET`,
 * `AWS_SECRET_ACCESS_KEY`, `GITLAB_AUTH_TOKEN`… — but not `PWD`, `SORT_KEY` or `MAX_TOKENS`.
 */
export function isSecretName(name: string): boolean {
  // A pure function of the name, and assignment scans ask about the same few names over and over
  // (`value`, `timeout`, `https`…): remember the answers (bounded; cleared when full).
  if (!redactorShortcuts.enabled || name.length > 128) return decideSecretName(name);
  const known = secretNameAnswers.get(name);
  if (known !== undefined) return known;
  const answer = decideSecretName(name);
  if (secretNameAnswers.size >= secretNameAnswerLimit) secretNameAnswers.clear();
  secretNameAnswers.set(name, answer);
  return answer;
}

const secretNameAnswers = new Map<string, boolean>();
const secretNameAnswerLimit = 4096;

function decideSecretName(name: string): boolean {
  const normalized = normalizeName(name);
  if (normalized === '' || notSecretNames.has(normalized)) return false;
  const lastPart = normalized.split('_').at(-1) ?? '';
  if (
    /(?:^|_)(?:ID|URL|URI|PATH|FILE|DIR|TYPE|NAME|LENGTH|SIZE|COUNT|HEADER|FIELD|PARAM)$/.test(normalized)
  ) {
    // `GOOGLE_APPLICATION_CREDENTIALS` names a file; `*_KEY_FILE`, `*_TOKEN_URL` are not secrets.
    if (lastPart !== 'ID' || !/SECRET|PASSWORD/.test(normalized)) return false;
  }
  const squashed = normalized.replace(/_/g, '');
  for (const word of secretWords) {
    if (normalized.includes(word) || squashed.includes(word.replace(/_/g, ''))) return true;
  }
  const parts = normalized.split('_');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] ?? '';
    if (!secretParts.has(part)) continue;
    if (part === 'KEY') {
      if (i === 0) continue; // `KEY_…` alone says little
      const before = parts.slice(0, i).join('_');
      if (harmlessKeyPrefixes.has(parts[i - 1] ?? '') || harmlessKeyPrefixes.has(before)) continue;
    }
    return true;
  }
  return false;
}

/**
 * True when an environment variable name looks like it holds a secret (see {@link isSecretName}).
 *
 * @deprecated The same test as {@link isSecretName}, which names any key (an environment
 * variable, a JSON field, a header); use that. Kept for existing callers; removed in the next major.
 */
export function isSecretEnvName(name: string): boolean {
  return isSecretName(name);
}

// ---------------------------------------------------------------------------------------------
// Known values (and their encoded and partial forms)
// ---------------------------------------------------------------------------------------------

/** Fragments of a known secret at least this long are redacted (partial reads, split output). */
const fragmentLength = 12;

function base64Variants(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const variants = new Set<string>();
  // A secret inside a longer encoded text starts at one of three byte offsets; the encoding of
  // its middle is the same whatever surrounds it (this is how CI systems mask encoded secrets).
  for (let offset = 0; offset < 3; offset++) {
    const total = offset + bytes.length;
    let encoded = Buffer.concat([Buffer.alloc(offset), bytes])
      .toString('base64')
      .replace(/=+$/, '');
    // The last character of a partial group depends on the bytes that follow.
    if (total % 3 !== 0) encoded = encoded.slice(0, -1);
    // The first characters mix in the bytes that precede the secret.
    encoded = encoded.slice(Math.ceil((offset * 4) / 3));
    if (encoded.length >= fragmentLength) {
      variants.add(encoded);
      variants.add(encoded.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return [...variants];
}

function encodedVariants(value: string): string[] {
  const variants = new Set<string>([value]);
  variants.add(encodeURIComponent(value));
  variants.add(encodeURIComponent(encodeURIComponent(value)));
  variants.add(JSON.stringify(value).slice(1, -1));
  const bytes = [...Buffer.from(value, 'utf8')];
  const hex = bytes.map((byte) => byte.toString(16).padStart(2, '0'));
  // Hex and percent-encoding are case-insensitive: tools print either case, and some
  // percent-encode every byte.
  variants.add(hex.join(''));
  variants.add(hex.join('').toUpperCase());
  variants.add(encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (sequence) => sequence.toLowerCase()));
  variants.add(hex.map((pair) => `%${pair}`).join(''));
  variants.add(hex.map((pair) => `%${pair.toUpperCase()}`).join(''));
  for (const encoded of base64Variants(value)) variants.add(encoded);
  // As `od -c` prints it: any line of such a dump of a value of 8 or more characters holds four
  // of them, a window, so a text without a window holds no such dump (see `redactKnown`).
  variants.add([...value].join('   '));
  return [...variants].filter((variant) => variant.length >= Math.min(fragmentLength, value.length));
}

/**
 * More encoded forms of a value, looked for by their windows only (not in the pattern of full
 * forms, which V8 scans many times slower past about 20 KB): uuencode, Ascii85 and base85,
 * rot47, HTML-escaped, quoted-printable, shell-escaped (of a value too short for windows, in the
 * pattern too). Forms shorter than a window are left out: they hold fewer than 12 bytes of it.
 */
function windowedVariants(value: string): string[] {
  const bytes = [...Buffer.from(value, 'utf8')];
  const variants = [
    ...blockVariants(bytes, uuAlphabet, 3),
    ...base85Alphabets.flatMap((alphabet) => base85Variants(bytes, alphabet)),
    // What `tr '!-~' 'P-~!-O'`, `html.escape`, `quopri` and bash's `printf %q` make of it (base32,
    // `rev` and rot13 keep a value's letters and digits: the skeleton scan looks for those).
    value.replace(/[!-~]/g, (c) => rotate(c, 33, 94, 47)),
    value.replace(
      /[&<>"']/g,
      (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] ?? '&#x27;',
    ),
    bytes
      .map((byte) =>
        byte === 61 || byte > 126 ? `=${byte.toString(16).toUpperCase()}` : String.fromCharCode(byte),
      )
      .join(''),
    value.replace(/[ \t\n'"\\|&;()<>!{}*[?\]^$`]|^[~#]/g, '\\$&'),
  ];
  return variants.filter((variant) => variant.length >= fragmentLength && variant !== value);
}

function rotate(char: string, base: number, size: number, by: number): string {
  return String.fromCharCode(((char.charCodeAt(0) - base + by) % size) + base);
}

const base64Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const base32Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
/**
 * uuencode's characters, `` ` `` for zero as GNU uuencode prints it (Python's `b2a_uu` prints a
 * space: the windows around a zero sextet differ, the others match).
 */
const uuAlphabet = `\`${Array.from({ length: 63 }, (_, i) => String.fromCharCode(33 + i)).join('')}`;

/** Ascii85 (`base64.a85encode`, PostScript, PDF) and base85 (`base64.b85encode`, git). */
const base85Alphabets = [
  Array.from({ length: 85 }, (_, i) => String.fromCharCode(33 + i)).join(''),
  '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~',
];

/**
 * The base-85 encodings of `bytes` (four bytes to five characters) at each byte offset inside a
 * longer encoded text: the groups wholly inside the value.
 */
function base85Variants(bytes: readonly number[], alphabet: string): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < 4; offset++) {
    let encoded = '';
    for (let start = (4 - offset) % 4; start + 4 <= bytes.length; start += 4) {
      let group = 0;
      for (let i = start; i < start + 4; i++) group = group * 256 + (bytes[i] as number);
      let chars = '';
      for (let i = 0; i < 5; i++) {
        chars = (alphabet[group % 85] as string) + chars;
        group = Math.floor(group / 85);
      }
      encoded += chars;
    }
    if (encoded.length >= fragmentLength) out.push(encoded);
  }
  return out;
}

/**
 * The encodings of `bytes` in a base of `alphabet` (32 or 64 characters) whose blocks hold
 * `block` bytes, at each byte offset inside a longer encoded text, without the characters that
 * mix in the bytes before and after (as {@link base64Variants} does for base64).
 */
function blockVariants(bytes: readonly number[], alphabet: string, block: number): string[] {
  const bitsPerChar = Math.log2(alphabet.length);
  const out: string[] = [];
  for (let offset = 0; offset < block; offset++) {
    let encoded = '';
    let value = 0;
    let bits = 0;
    // Encode the value after `offset` zero bytes, then drop the characters that hold any of them.
    const stream = [...new Array<number>(offset).fill(0), ...bytes];
    for (const byte of stream) {
      value = ((value << 8) | byte) & 0xffff;
      bits += 8;
      while (bits >= bitsPerChar) {
        encoded += alphabet[(value >>> (bits - bitsPerChar)) & (alphabet.length - 1)];
        bits -= bitsPerChar;
      }
    }
    const skip = Math.ceil((offset * 8) / bitsPerChar);
    const middle = encoded.slice(skip);
    if (middle.length >= fragmentLength) out.push(middle);
  }
  return out;
}

/**
 * The forms of a value the skeleton scan looks for (their squeezed, lower-case text: see
 * {@link skeleton}): the value, reversed (`rev`), in rot13, in hex (also reversed), base64 and
 * base32 (whose case a command may change, or which it may wrap over lines); decimal numbers run
 * together (`[115, 107]` → `115107`, a partial array of char codes); base64 of its UTF-16LE and
 * of its base64; and little-endian words of 2 and 4 bytes at each alignment (`hexdump`,
 * `od -tx2`/`-tx4`, `xxd -e`): the words wholly inside the value. (`0x73` and `\\u0073` are the
 * byte-dump scan's; `\\U00000073`, `\\u{73}` and `&#x0073;` are decoded first, see
 * {@link redactRareEscapes}.)
 */
function skeletonVariants(value: string): string[] {
  const bytes = [...Buffer.from(value, 'utf8')];
  const hex = bytes.map((byte) => byte.toString(16).padStart(2, '0'));
  const out = [
    value,
    [...value].reverse().join(''),
    value.replace(/[A-Za-z]/g, (c) => rotate(c, c <= 'Z' ? 65 : 97, 26, 13)),
    hex.join(''),
    // `xxd -p | rev`, and the bytes in reverse order (`rev | xxd -p`, `fold -w2 | tac`).
    [...hex.join('')].reverse().join(''),
    [...hex].reverse().join(''),
    ...base64Variants(value),
    ...blockVariants(bytes, base32Alphabet, 5),
    bytes.join(''),
    // PowerShell's `-EncodedCommand` and `[Convert]::ToBase64String([Text.Encoding]::Unicode…)`.
    ...blockVariants([...Buffer.from(value, 'utf16le')], base64Alphabet, 3),
    // Encoded twice: `base64 | base64`.
    ...blockVariants([...Buffer.from(Buffer.from(value, 'utf8').toString('base64'))], base64Alphabet, 3),
  ];
  for (const width of [2, 4]) {
    for (let alignment = 0; alignment < width; alignment++) {
      let words = '';
      // The first whole word starts where the value's bytes reach a multiple of `width`.
      for (let start = (width - alignment) % width; start + width <= bytes.length; start += width)
        words += hex
          .slice(start, start + width)
          .reverse()
          .join('');
      out.push(words);
    }
  }
  return out;
}

/** True for values that are not worth treating as secrets (paths, booleans, plain numbers). */
function isTrivialValue(value: string): boolean {
  return (
    /^(?:true|false|null|none|undefined|yes|no|on|off)$/i.test(value) ||
    /^\/[^\s:@]*$/.test(value) || // an absolute path
    /^\d{1,9}$/.test(value) ||
    /^[a-z][a-z0-9+.-]*:\/\/[^:@\s]*$/i.test(value) // a URL without credentials
  );
}

/** Windows of known values and the bit set that finds them (see {@link windowStarts}). */
interface WindowSet {
  /** Every `fragmentLength`-character window of every value → its label. */
  windows: Map<string, string>;
  /**
   * A Bloom filter (two bits a gram) over every `gramLength`-character gram of every window. A
   * window always holds a gram that starts at a multiple of `gramStride` of the text, so the scan
   * hashes only those grams, and slices and looks up windows only around the rare grams whose
   * bits are both set (no false negatives: the same hash of the same characters).
   */
  gramBits: Uint32Array;
  /** `gramBits` has `2 ** (32 - gramShift)` bits. */
  gramShift: number;
}

interface KnownIndex extends WindowSet {
  /** Full values and encodings, longest first, with their labels. */
  values: Map<string, string>;
  pattern: RegExp | undefined;
  /**
   * The windows of the skeletons of the forms of every value the skeleton scan looks for
   * ({@link skeletonVariants}), and for each window the length of the shortest run of skeleton
   * it may be part of to be replaced.
   */
  skeletons: WindowSet & { needs: Map<string, number> };
  /** The full forms too short to have windows (a text without a window can only hold these). */
  shortPattern: RegExp | undefined;
  /** The shortest text `redactKnown` can change (the shortest value or encoding, or a window). */
  shortest: number;
  /**
   * The first piece of any numeric byte dump of any value (see {@link dumpSources}), longest value
   * first, in patterns of at most {@link dumpPatternLimit} characters each.
   */
  dumps: RegExp[];
  /** The same for `od -c` dumps (case-sensitive), looked for only in a text holding a window. */
  charDumps: RegExp[];
  /** The dump forms of each value, longest first: which one starts where `dumps` matched, how far. */
  dumpOf: { label: string; forms: DumpForm[] }[];
  /** No text shorter than this holds a dump (one character per byte, a separator between). */
  shortestDump: number;
}

/** The length of the grams `gramBits` is built from. */
const gramLength = 6;
/** Every `fragmentLength` window of a text holds a gram starting at a multiple of this. */
const gramStride = fragmentLength - gramLength + 1;

/** The second bit of a gram whose hash is `hash` (the first is `Math.imul(hash, 0x9e3779b1) >>> shift`). */
function secondBit(hash: number, shift: number): number {
  return Math.imul(hash ^ (hash >>> 15), 0x85ebca6b) >>> shift;
}

/**
 * The hash of the gram of `text` at `start` (its two bits are mixed from it). {@link scanText}
 * hashes the grams of a skeleton the same way without making the skeleton.
 */
function gramHash(text: string, start: number): number {
  let hash = 0;
  for (let i = start; i < start + gramLength; i++)
    hash = (Math.imul(hash, gramBase) + text.charCodeAt(i)) | 0;
  return hash;
}

const gramBase = 0x01000193;

function hasBit(bits: Uint32Array, bit: number): boolean {
  return ((bits[bit >>> 5] as number) & (1 << (bit & 31))) !== 0;
}

/** True when both bits of the gram whose hash is `hash` are set. */
function hasGram(bits: Uint32Array, hash: number, shift: number): boolean {
  return hasBit(bits, Math.imul(hash, 0x9e3779b1) >>> shift) && hasBit(bits, secondBit(hash, shift));
}

/**
 * The starts of the windows of known values in `text`, ascending. With the shortcuts it looks
 * only at the window starts near a gram whose bit is set; without, at every start.
 */
function windowStarts(text: string, index: WindowSet, shortcuts: boolean): number[] {
  const starts: number[] = [];
  const last = text.length - fragmentLength;
  if (!shortcuts) {
    for (let i = 0; i <= last; i++) if (index.windows.has(text.slice(i, i + fragmentLength))) starts.push(i);
    return starts;
  }
  const { gramBits, gramShift } = index;
  for (let p = 0; p + gramLength <= text.length; p += gramStride) {
    if (!hasGram(gramBits, gramHash(text, p), gramShift)) continue;
    // The windows that hold this gram at one of the first `gramStride` offsets (the others hold
    // the gram at the next multiple of the stride).
    for (let i = Math.max(0, p - gramStride + 1); i <= p && i <= last; i++)
      if (index.windows.has(text.slice(i, i + fragmentLength))) starts.push(i);
  }
  return starts;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The Bloom filter over the grams of `windows` (about 64 bits a window, between 2¹⁰ and 2²²
 * bits), hashed from `sources`, the texts the windows were cut from.
 */
function windowSet(windows: Map<string, string>, sources: readonly string[]): WindowSet {
  let bitsLog = 10;
  while (bitsLog < 22 && 2 ** bitsLog < windows.size * 64) bitsLog++;
  const gramShift = 32 - bitsLog;
  const gramBits = new Uint32Array(2 ** (bitsLog - 5));
  // Every gram of every window is a gram of the text it was cut from (and each is hashed once,
  // not once for each of the windows that hold it).
  for (const source of sources) {
    for (let j = 0; j + gramLength <= source.length; j++) {
      const hash = gramHash(source, j);
      const first = Math.imul(hash, 0x9e3779b1) >>> gramShift;
      const second = secondBit(hash, gramShift);
      gramBits[first >>> 5] = (gramBits[first >>> 5] as number) | (1 << (first & 31));
      gramBits[second >>> 5] = (gramBits[second >>> 5] as number) | (1 << (second & 31));
    }
  }
  return { windows, gramBits, gramShift };
}

/**
 * The skeleton of a text: its ASCII letters and digits, lower-case, everything else dropped. A
 * value whose characters a command spreads out (`sed 's/./& /g'`, one per line, zero-width
 * spaces between, cut over lines), escapes (`printf %q`, `\x73`, `&#x0073;`) or changes the case
 * of (`tr a-z A-Z`, upper-case hex, base32 in lower case) keeps its skeleton.
 */
function skeleton(text: string): string {
  return withoutFullwidth(text)
    .replace(/[^A-Za-z0-9]+/g, '')
    .toLowerCase();
}

/** Fullwidth forms (`Ｚｑ８`, U+FF01–U+FF5E) are their ASCII characters to the skeleton scan. */
const fullwidthOffset = 0xfee0;

/** `text` with its fullwidth forms as ASCII (the same length: one code unit each). */
function withoutFullwidth(text: string): string {
  return /[\uff01-\uff5e]/.test(text)
    ? text.replace(/[\uff01-\uff5e]/g, (char) => String.fromCharCode(char.charCodeAt(0) - fullwidthOffset))
    : text;
}

/**
 * A window of a skeleton with fewer different characters than this is not looked for (`000000000000`
 * is in every dump's offsets; a skeleton window of a random value has eight or more).
 */
const skeletonMinimumVariety = 5;

/** How many different characters a skeleton window (`[a-z0-9]` only) holds. */
function variety(window: string): number {
  let letters = 0;
  let digits = 0;
  for (let i = 0; i < window.length; i++) {
    const c = window.charCodeAt(i);
    if (c >= 97) letters |= 1 << (c - 97);
    else digits |= 1 << (c - 48);
  }
  return bitCount(letters) + bitCount(digits);
}

function bitCount(bits: number): number {
  let count = 0;
  for (let rest = bits; rest !== 0; rest &= rest - 1) count++;
  return count;
}

function buildKnownIndex(entries: ReadonlyMap<string, string>): KnownIndex {
  const values = new Map<string, string>();
  const windows = new Map<string, string>();
  const skeletonWindows = new Map<string, string>();
  const skeletonNeeds = new Map<string, number>();
  const windowSources: string[] = [];
  const skeletonSources: string[] = [];
  const addSkeleton = (variant: string, label: string, characters: number): void => {
    const squeezed = skeleton(variant);
    if (squeezed.length >= fragmentLength) skeletonSources.push(squeezed);
    // A run must stand for `fragmentLength` characters of the value (or all of it): 24 hex
    // digits, 16 base64 characters, 12 letters and digits of the value itself.
    const need = Math.min(squeezed.length, Math.ceil((fragmentLength * squeezed.length) / characters));
    for (let i = 0; i + fragmentLength <= squeezed.length; i++) {
      const window = squeezed.slice(i, i + fragmentLength);
      const known = skeletonNeeds.get(window);
      if (known !== undefined) {
        if (need < known) skeletonNeeds.set(window, need);
      } else if (variety(window) >= skeletonMinimumVariety) {
        skeletonWindows.set(window, label);
        skeletonNeeds.set(window, need);
      }
    }
  };
  for (const [value, label] of entries) {
    const full = encodedVariants(value);
    const windowed = windowedVariants(value);
    // A value too short for windows puts every text through the pattern anyway: its other
    // forms go there too (they are as short).
    if (value.length < fragmentLength + 4) full.push(...windowed);
    for (const variant of full) if (!values.has(variant)) values.set(variant, label);
    for (const variant of [...full, ...windowed]) {
      if (variant.length < fragmentLength + 4) continue;
      windowSources.push(variant);
      for (let i = 0; i + fragmentLength <= variant.length; i++) {
        const window = variant.slice(i, i + fragmentLength);
        if (!windows.has(window)) windows.set(window, label);
      }
    }
    const characters = [...value].length;
    for (const variant of skeletonVariants(value)) addSkeleton(variant, label, characters);
  }
  const sorted = [...values.keys()].sort((a, b) => b.length - a.length);
  const short = sorted.filter((value) => value.length < fragmentLength + 4);
  let shortest = windows.size > 0 || skeletonWindows.size > 0 ? fragmentLength : Number.POSITIVE_INFINITY;
  for (const value of values.keys()) shortest = Math.min(shortest, value.length);
  return {
    values,
    ...windowSet(windows, windowSources),
    skeletons: { ...windowSet(skeletonWindows, skeletonSources), needs: skeletonNeeds },
    shortPattern: short.length > 0 ? new RegExp(short.map(escapeRegExp).join('|'), 'g') : undefined,
    shortest,
    pattern: sorted.length > 0 ? new RegExp(sorted.map(escapeRegExp).join('|'), 'g') : undefined,
    ...buildDumps(entries),
  };
}

/**
 * Replaces compressed blobs holding a known value, byte dumps of known values, full values, any
 * run of text made of fragments of one, then any run whose skeleton is made of fragments of the
 * skeleton of one (see {@link redactSkeletons}).
 */
function redactKnown(input: string, index: KnownIndex, nested = false): string {
  const shortcuts = redactorShortcuts.enabled;
  const scanned = shortcuts ? scanText(input, index.skeletons) : mayHoldSkeletonWindow | mayHoldBase64Run;
  let text = nested || (scanned & mayHoldBase64Run) === 0 ? input : redactCompressed(input, index);
  if (!nested) text = redactRareEscapes(text, index);
  // First, while a dump's ASCII column still holds the pieces of the value its bytes spell.
  const mayHoldDump = index.dumps.length > 0 && text.length >= index.shortestDump;
  if (mayHoldDump) for (const dumps of index.dumps) text = redactDumps(text, index, dumps);
  // A value with windows in the text would start a window there: without a window, only the
  // values too short for windows can be in it (a short password among long keys: their pattern
  // is small, the pattern of every form of every value is not).
  if (shortcuts && (text.length < fragmentLength || windowStarts(text, index, true).length === 0)) {
    if (index.shortPattern !== undefined)
      text = text.replace(index.shortPattern, (match) => index.values.get(match) ?? marker);
    return redactSkeletons(text, index, text === input ? scanned : undefined);
  }
  // An `od -c` dump holds a window: looked for only now (its pattern starts with three spaces,
  // scanning every text for it cost as much as all the numeric forms together).
  if (mayHoldDump) for (const dumps of index.charDumps) text = redactDumps(text, index, dumps);
  let out = index.pattern
    ? text.replace(index.pattern, (match) => index.values.get(match) ?? '[REDACTED]')
    : text;
  if (index.windows.size === 0 || out.length < fragmentLength)
    return redactSkeletons(out, index, out === input ? scanned : undefined);
  const ranges: [number, number, string][] = [];
  for (const i of windowStarts(out, index, shortcuts)) {
    const label = index.windows.get(out.slice(i, i + fragmentLength)) as string;
    const last = ranges.at(-1);
    if (last && i <= last[1]) last[1] = i + fragmentLength;
    else ranges.push([i, i + fragmentLength, label]);
  }
  for (let r = ranges.length - 1; r >= 0; r--) {
    const [start, end, label] = ranges[r] as [number, number, string];
    out = out.slice(0, start) + label + out.slice(end);
  }
  return redactSkeletons(out, index, out === input ? scanned : undefined);
}

/** `\U0000XXXX` (Python), `\u{X…}` (JavaScript, Rust), `&#x00XX;` (zero-padded HTML). */
const rareEscapePattern = /\\U0000([0-9a-f]{4})|\\u\{([0-9a-f]{1,6})\}|&#x0+([0-9a-f]{1,6});?/gi;

/**
 * Escapes too rare, or too long, for the byte-dump scan (whose pattern must stay small): when a
 * text holds one, it is decoded (every such escape becomes its character) and looked at again;
 * if a known value comes out, the decoded, redacted text is the answer.
 */
function redactRareEscapes(text: string, index: KnownIndex): string {
  if (!text.includes('\\U0000') && !text.includes('\\u{') && !text.includes('&#x0')) return text;
  const decoded = text.replace(rareEscapePattern, (sequence, a?: string, b?: string, c?: string) => {
    const point = Number.parseInt(a ?? b ?? c ?? '', 16);
    return point <= 0x10ffff ? String.fromCodePoint(point) : sequence;
  });
  if (decoded === text) return text;
  const redacted = redactKnown(decoded, index, true);
  return redacted === decoded ? text : redacted;
}

/** {@link scanText}: the skeleton of the text holds a gram of a skeleton window. */
const mayHoldSkeletonWindow = 1;
/** {@link scanText}: the text holds a run of 16 or more base64 characters (a compressed blob may). */
const mayHoldBase64Run = 2;

/**
 * One pass over `text` that tells what the rarer scans could find: whether its skeleton (see
 * {@link skeleton}) holds a gram whose bit is set in `set` — the grams {@link windowStarts} would
 * hash in the skeleton, hashed the same way without making the skeleton — and whether it holds
 * a run of base64 long enough for a compressed blob. Most texts hold neither.
 */
function scanText(text: string, set: WindowSet): number {
  const { gramBits, gramShift } = set;
  const ring = scanRing;
  let found = 0;
  let slot = 0;
  let untilGram = gramLength;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xff01 && c <= 0xff5e) c -= fullwidthOffset;
    if (c >= 65 && c <= 90) c |= 32;
    else if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57))) {
      // `+` and `/` go on a base64 run; anything else ends it.
      run = c === 43 || c === 47 ? run + 1 : 0;
      continue;
    }
    if (++run >= 16) found |= mayHoldBase64Run;
    ring[slot] = c;
    slot = slot === gramLength - 1 ? 0 : slot + 1;
    if (--untilGram === 0) {
      untilGram = gramStride;
      // The last `gramLength` letters and digits, oldest first (from `slot`), hashed as `gramHash` does.
      let hash = 0;
      for (let j = 0, k = slot; j < gramLength; j++, k = k === gramLength - 1 ? 0 : k + 1)
        hash = (Math.imul(hash, gramBase) + (ring[k] as number)) | 0;
      if (hasGram(gramBits, hash, gramShift)) {
        found |= mayHoldSkeletonWindow;
        if (found === (mayHoldSkeletonWindow | mayHoldBase64Run)) break;
      }
    }
  }
  return found;
}

const scanRing = new Int32Array(gramLength);

/** True for an ASCII letter or digit (what a {@link skeleton} keeps). */
function isAlphanumeric(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/**
 * Replaces every run of the text whose skeleton (see {@link skeleton}) is made of windows of the
 * skeleton of a known value or encoding, from its first to its last letter or digit: the value
 * spread out, cut over lines, escaped or in another case. A run inside a line of a hex dump
 * (`hexdump`, `od -tx2`, `xxd -e`…: an offset column, words of hex digits, an ASCII column)
 * takes the whole line and the dump lines right before and after it, which hold the value's
 * first and last bytes (in words shared with other bytes) and its characters in the ASCII column.
 */
function redactSkeletons(text: string, index: KnownIndex, scanned?: number): string {
  const set = index.skeletons;
  if (set.windows.size === 0 || text.length < fragmentLength) return text;
  const shortcuts = redactorShortcuts.enabled;
  if (shortcuts && ((scanned ?? scanText(text, set)) & mayHoldSkeletonWindow) === 0) return text;
  let squeezed = skeleton(text);
  if (squeezed.length < fragmentLength) return text;
  let starts = windowStarts(squeezed, set, shortcuts);
  if (starts.length === 0) return text;
  // A dump's offset column and ASCII column cut the run of its bytes at every line: read past them.
  let source = withoutFullwidth(text);
  const masked = maskDumpColumns(source);
  if (masked !== source) {
    source = masked;
    squeezed = skeleton(masked);
    starts = windowStarts(squeezed, set, shortcuts);
  }
  // Runs of windows in the skeleton, each with the shortest run its windows must be part of.
  const runs: [number, number, string, number][] = [];
  for (const i of starts) {
    const window = squeezed.slice(i, i + fragmentLength);
    const need = set.needs.get(window) as number;
    const last = runs.at(-1);
    if (last && i <= last[1]) {
      last[1] = i + fragmentLength;
      last[3] = Math.min(last[3], need);
    } else runs.push([i, i + fragmentLength, set.windows.get(window) as string, need]);
  }
  const ranges: [number, number, string][] = [];
  let positions: Int32Array | undefined;
  for (const [start, end, label, need] of runs) {
    if (end - start < need) continue;
    if (positions === undefined) {
      // Where each character of the skeleton is in the text.
      positions = new Int32Array(squeezed.length);
      for (let i = 0, k = 0; i < source.length; i++)
        if (isAlphanumeric(source.charCodeAt(i))) positions[k++] = i;
    }
    const range: [number, number, string] = [
      positions[start] as number,
      (positions[end - 1] as number) + 1,
      label,
    ];
    widenToDumpLines(text, range);
    ranges.push(range);
  }
  if (ranges.length === 0) return text;
  let out = '';
  let copied = 0;
  for (const [start, end, label] of ranges) {
    if (end <= copied) continue;
    out += text.slice(copied, Math.max(copied, start)) + label;
    copied = end;
  }
  return out + text.slice(copied);
}

/**
 * A line of a hex dump with its offset column (`00000010:`, `0000020`, at the start of the line)
 * and its ASCII column (after two spaces, or `|…|`; not more words: `hexdump -x` puts four spaces
 * between them): 1 offset, 2 words (at most 64: a dump line has 32 at most; the bound keeps a
 * long line that is not one from costing more than linear time), 3 ASCII column.
 */
const dumpColumnsPattern =
  /^((?:0x)?[0-9a-f]{7,8}:?[\t ]+)((?:[0-9a-f]{2}){1,32}(?:[\t ]{1,4}(?:[0-9a-f]{2}){1,32}){0,63})([\t ]{2,}(?![0-9a-f \t]*$)[^\n]*|[\t ]*)$/gim;

/** `text` with the offset and ASCII columns of its hex dump lines blanked out (same length). */
function maskDumpColumns(text: string): string {
  if (!text.includes('\n')) return text;
  return text.replace(
    dumpColumnsPattern,
    (_line, offset: string, words: string, ascii: string) =>
      `${' '.repeat(offset.length)}${words}${' '.repeat(ascii.length)}`,
  );
}

/** One line of a hex dump: an optional offset column, words of hex digits, an optional ASCII column. */
const dumpLinePattern =
  /^[\t ]*(?:(?:0x)?[0-9a-f]{4,16}:?[\t ]+)?(?=[^\n]*[0-9])[0-9a-f]{2,64}(?:[\t ]{1,3}[0-9a-f]{2,64})*(?:[\t ]*|[\t ]{2,}[^\n]*)$/i;

/** Widens `range` to whole dump lines, and the dump lines next to them, when it starts in one. */
function widenToDumpLines(text: string, range: [number, number, string]): void {
  const lineStart = (at: number) => text.lastIndexOf('\n', at - 1) + 1;
  const lineEnd = (at: number) => {
    const end = text.indexOf('\n', at);
    return end === -1 ? text.length : end;
  };
  const isDumpLine = (start: number) => dumpLinePattern.test(text.slice(start, lineEnd(start)));
  let start = lineStart(range[0]);
  if (!isDumpLine(start)) return;
  if (start > 0 && isDumpLine(lineStart(start - 1))) start = lineStart(start - 1);
  let end = lineEnd(Math.max(range[1] - 1, range[0]));
  if (end < text.length && isDumpLine(end + 1)) end = lineEnd(end + 1);
  range[0] = start;
  range[1] = end;
}

/**
 * A base64 run that starts as gzip (`H4sI`) or zlib data (`eJ…`, `eN…`, `eA…`, `eF…`) does.
 * The gate before it ({@link mayHoldCompressed}) keeps the scan off texts without one.
 */
const compressedPattern = /(?:H4sI|eJ[wxyz]|eN[opqr]|eA[EFGH]|eF[4-7])[A-Za-z0-9+/]{12,}={0,2}/g;

function mayHoldCompressed(text: string): boolean {
  return (
    text.includes('H4sI') ||
    text.includes('eJ') ||
    text.includes('eN') ||
    text.includes('eA') ||
    text.includes('eF')
  );
}

/** A compressed blob is inflated up to this many bytes (the rest of a larger one is not looked at). */
const inflateLimit = 1 << 20;
/** The bytes all the compressed blobs of one text may inflate to, together. */
const inflateBudget = 4 << 20;

/**
 * The start of what `bytes` (gzip or zlib data, whole or cut) inflate to, at most `limit` bytes:
 * a blob that inflates to more is inflated from fewer of its bytes (halved until it fits), so
 * padding after a value does not hide it. Undefined for data that is not compressed.
 */
function inflateStart(bytes: Buffer, gzip: boolean, limit: number): Buffer | undefined {
  for (let length = bytes.length; length >= 16; length = Math.floor(length / 2)) {
    try {
      const options = { maxOutputLength: limit, finishFlush: zlibConstants.Z_SYNC_FLUSH };
      const part = bytes.subarray(0, length);
      return gzip ? gunzipSync(part, options) : inflateSync(part, options);
    } catch (error) {
      if ((error as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') return undefined;
    }
  }
  return undefined;
}

/**
 * Replaces each base64 blob of gzip or zlib data (`gzip | base64`, `zlib.compress`, a
 * `Content-Encoding: gzip` body) whose inflated text holds a known value (or a window of one)
 * with that value's label: compression turns a value into bits that depend on everything around
 * it, so there is no encoded form to look for, but inflating the blob gives the text back.
 */
function redactCompressed(text: string, index: KnownIndex): string {
  if (!mayHoldCompressed(text)) return text;
  // A text of many small blobs that each inflate to a lot (zip bombs) costs at most this much.
  let budget = inflateBudget;
  return text.replace(compressedPattern, (blob) => {
    if (budget <= 0) return blob;
    const inflated = inflateStart(
      Buffer.from(blob, 'base64'),
      blob.startsWith('H4sI'),
      Math.min(inflateLimit, budget),
    );
    budget -= Math.max(inflated?.length ?? 0, 1024);
    if (inflated === undefined) return blob;
    for (const inner of [inflated.toString('utf8'), inflated.toString('latin1')]) {
      const redacted = redactKnown(inner, index, true);
      if (redacted !== inner) return /\[REDACTED[^\]]*\]/.exec(redacted)?.[0] ?? marker;
    }
    return blob;
  });
}

// ---------------------------------------------------------------------------------------------
// Byte dumps of known values (one token per byte, between separators)
// ---------------------------------------------------------------------------------------------

/**
 * What may stand between two bytes of a dump on one line: up to four separator characters
 * (`73:6b`, `73 6b`, `73-6b`, `0x73, 0x6b`, `'73', '6b'`, hexdump -C's double space) or nothing
 * (`\x73\x6b`, `%73%6b`, xxd's groups `736b 2d6c`).
 */
const dumpSeparator = String.raw`[\t ,:;.'"-]{0,4}`;
/**
 * …or the end of one line of a dump and the start of the next: the end of the line (a trailing
 * `,`, or two spaces and the ASCII column of xxd and `hexdump -C`), the line break, indentation
 * and an offset column (xxd's `00000010:`, hexdump's `00000010  `, od's `0000020 `). The ASCII
 * column must follow two spaces: a pattern that looked past any text to the line's end would
 * do so wherever a text holds the number of a secret's first byte, several times slower.
 */
const dumpLineBreak = String.raw`(?:[\t ,]*|  [^\n]{1,80})\n[\t ]*(?:(?:0x)?[0-9a-f]{4,16}:?[\t ]+)?`;
const dumpGap = `(?:${dumpSeparator}|${dumpLineBreak})`;
/**
 * Before the number of a byte: `0x73`, `\x73`, `\u0073`, `%73`, `&#x73;`, `&#115;`, `\163`. (Each
 * alternative is repeated for every byte of every head: the union of the heads of 20 values must
 * stay under the 20 KB past which V8 no longer compiles a pattern to machine code, 10× slower.
 * Rarer forms, `\u{73}` and `&#x0073;`, are left to the skeleton scan.)
 */
const bytePrefix = String.raw`(?:0x|\\x|\\u00|%|&#x?|\\)?`;
/** The prefix of the first byte of a dump, which the scan leaves out (see {@link byteNumber}). */
const firstBytePrefix = /(?:0x|\\x|\\u00|%|&#x?|\\)$/i;
/**
 * `od -c` and `hexdump -c` print a byte in four columns: three spaces before a printable one;
 * a line break and an offset column between two lines.
 */
const charGap = String.raw`(?: {3}|\n[0-9a-f]* {3})`;
/**
 * A dump is looked for by the dump of the first this many bytes (or characters) of a value, and
 * followed piece by piece after that: the pattern that scans every text must stay small (with
 * a 32-byte first piece and 20 known values, redacting a 2 KB text of code took 3.4 times as
 * long; with 8, 1.25 times), and one pattern of a whole long value would be too large for V8 to
 * compile at all (a stack overflow at 4 KB).
 */
const dumpPieceLength = 8;
/** A dump is replaced when it holds the whole value, or at least this many of its first bytes. */
const dumpMinimum = 32;

/**
 * One byte as a dump prints it: hex (either case, the patterns are `i`), decimal or octal, after
 * a prefix — but the first byte of a dump without (a pattern that starts with a digit is scanned
 * for faster than one that starts with an optional prefix; {@link redactDumps} adds it back).
 */
function byteNumber(byte: number, first: boolean): string {
  const forms = new Set([
    String(byte),
    byte.toString(8).padStart(3, '0'),
    byte.toString(16).padStart(2, '0'),
  ]);
  return `${first ? '' : bytePrefix}(?:${[...forms].sort((a, b) => b.length - a.length).join('|')})`;
}

/** The pattern sources of one way of printing a value one token per byte. */
interface DumpSources {
  head: string;
  rest: string[];
}

/** One way of printing a value one token per byte: its first piece, then the others in turn. */
interface DumpForm {
  /** The pattern of the first piece (sticky). */
  head: RegExp;
  /** The pattern of each next piece, with the gap before it (sticky). */
  rest: RegExp[];
  /** How many pieces must follow each other for a dump: the whole value, or `dumpMinimum` bytes. */
  needed: number;
}

/** The first `dumpPieceLength` items of `items`, then the next ones, and so on. */
function pieces<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += dumpPieceLength) out.push(items.slice(i, i + dumpPieceLength));
  return out;
}

/**
 * The pattern sources of every byte dump of `value` (case-insensitive), first piece and the
 * others: its UTF-8 bytes, each as a number in hex, decimal or octal with an optional prefix
 * (`73:6b:2d`, `73 6B 2D`, `\x73\x6b`, `0x73, 0x6b`, `[115,107,45]`, `od -b`'s `163 153 055`), a
 * separator or the line break of a line-wrapped dump between two bytes (xxd, `hexdump -C`,
 * `od -An -tx1`, `xxd -i`); and its characters one by one, three spaces apart (`od -c`, in the
 * value's case).
 */
function dumpSources(value: string): [DumpSources, DumpSources] {
  const bytes = pieces([...Buffer.from(value, 'utf8')]);
  const numbers = bytes.map((piece, p) =>
    piece.map((byte, i) => byteNumber(byte, p === 0 && i === 0)).join(dumpGap),
  );
  const chars = pieces([...value]).map((piece) => piece.map(escapeRegExp).join(charGap));
  return [
    { head: numbers[0] as string, rest: numbers.slice(1).map((source) => dumpGap + source) },
    { head: ` {3}${chars[0] as string}`, rest: chars.slice(1).map((source) => charGap + source) },
  ];
}

/**
 * The largest pattern of dump heads, in characters. Past about 20 KB V8 scans with a pattern
 * many times slower (measured on 2 KB texts: 4 µs with the heads of 22 random keys, 20.3 KB;
 * 27 µs with 24, 22.2 KB; 60 µs with 30): more values make more patterns, each scanned on its own
 * (two patterns for 30 values: 8 µs). Up to about 20 values fit in one.
 */
const dumpPatternLimit = 19_000;

function buildDumps(
  entries: ReadonlyMap<string, string>,
): Pick<KnownIndex, 'dumps' | 'charDumps' | 'dumpOf' | 'shortestDump'> {
  const dumpOf: KnownIndex['dumpOf'] = [];
  const heads: string[] = [];
  const charHeads: string[] = [];
  let shortestDump = Number.POSITIVE_INFINITY;
  for (const [value, label] of [...entries].sort(([a], [b]) => b.length - a.length)) {
    const [numbers, chars] = dumpSources(value);
    const needed = (pieceCount: number) => Math.min(pieceCount, dumpMinimum / dumpPieceLength);
    dumpOf.push({
      label,
      forms: [
        {
          head: new RegExp(numbers.head, 'iy'),
          rest: numbers.rest.map((source) => new RegExp(source, 'iy')),
          needed: needed(numbers.rest.length + 1),
        },
        {
          head: new RegExp(chars.head, 'y'),
          rest: chars.rest.map((source) => new RegExp(source, 'y')),
          needed: needed(chars.rest.length + 1),
        },
      ],
    });
    heads.push(numbers.head);
    charHeads.push(chars.head);
    shortestDump = Math.min(shortestDump, 2 * [...value].length - 1);
  }
  const union = (sources: string[], flags: string): RegExp[] => {
    const patterns: RegExp[] = [];
    let chunk: string[] = [];
    let size = 0;
    for (const source of sources) {
      if (chunk.length > 0 && size + source.length + 5 > dumpPatternLimit) {
        patterns.push(new RegExp(chunk.join('|'), flags));
        chunk = [];
        size = 0;
      }
      chunk.push(`(?:${source})`);
      size += source.length + 5;
    }
    if (chunk.length > 0) patterns.push(new RegExp(chunk.join('|'), flags));
    return patterns;
  };
  return {
    dumps: union(heads, 'gi'),
    charDumps: union(charHeads, 'g'),
    dumpOf,
    shortestDump,
  };
}

/**
 * Replaces every byte dump of a known value (the whole value, or its first `dumpMinimum` bytes)
 * that `dumps` finds the start of with its label. A dump wrapped over lines is replaced
 * from its first byte to the end of its last line, so neither its bytes nor the ASCII columns
 * (which hold the value cut into pieces, one per line) are left.
 */
function redactDumps(text: string, index: KnownIndex, dumps: RegExp): string {
  dumps.lastIndex = 0;
  let match = dumps.exec(text);
  if (match === null) return text;
  let out = '';
  let copied = 0;
  for (; match !== null; match = dumps.exec(text)) {
    let start = match.index;
    let label: string | undefined;
    let longest = 0;
    // Which value's dump starts here, and how far it goes (the longest one).
    for (const dump of index.dumpOf) {
      for (const form of dump.forms) {
        form.head.lastIndex = start;
        const head = form.head.exec(text);
        if (head === null) continue;
        let reached = start + head[0].length;
        let pieces = 1;
        for (const piece of form.rest) {
          piece.lastIndex = reached;
          const next = piece.exec(text);
          if (next === null) break;
          reached += next[0].length;
          pieces++;
        }
        if (pieces >= form.needed && reached - start > longest) {
          longest = reached - start;
          label = dump.label;
        }
      }
    }
    if (label === undefined) {
      // The first bytes of a value, not a dump of it: go on after them.
      dumps.lastIndex = start + 1;
      continue;
    }
    let end = start + longest;
    const before = firstBytePrefix.exec(text.slice(Math.max(copied, start - 4), start));
    if (before !== null) start -= before[0].length;
    if (text.slice(start, end).includes('\n')) {
      const lineEnd = text.indexOf('\n', end);
      end = lineEnd === -1 ? text.length : lineEnd;
    }
    out += text.slice(copied, start) + label;
    copied = end;
    dumps.lastIndex = end;
  }
  return out + text.slice(copied);
}

// ---------------------------------------------------------------------------------------------
// Shapes of secrets nobody told us about
// ---------------------------------------------------------------------------------------------

type Replacer = (match: string, ...groups: string[]) => string;
const marker = '[REDACTED]';

/**
 * The shortcuts of the redactor (the memo of `redact`, the skip of short texts, the cheap checks
 * before each shape pattern, the window bit set and the memo of {@link isSecretName}); each one
 * only avoids work that cannot change the text.
 *
 * @internal Tests turn them off to compare the fast path with the full one; nothing else should.
 */
export const redactorShortcuts = { enabled: true };

/**
 * No text shorter than this is changed by a shape pattern or an assignment rule: the shortest is
 * an assignment to the two-letter secret name `PW` of a three-character value (`pw=abc`; shorter
 * values are never redacted); then `a://b:c@` (8), `cookie:abcd` (11), `<pw>abc</pw>` (12),
 * `xoxa-` + 10 (15); key blocks and tokens are longer. The `[REDACTED]` marker (10) is longer too.
 */
const shortestShape = 6;

/**
 * No text shorter than this made only of word characters (`[A-Za-z0-9_-]`: an id, a type, a
 * status — `call_7`, `tool-call-started`) is changed by a shape pattern or an assignment rule.
 * Every rule but the token shapes needs another character: white space (key blocks, `bearer …`),
 * `:` or `=` (headers, assignments, `://`), `<` (tags), `.` (JWTs, `SG.…`, `ya29.…`). The shortest
 * token shape is `xoxa-` + 10 characters (15); `sk-…` is 19, `AKIA…` 20, `ghp_…` 24. A known value
 * is skipped separately: it needs a text at least `index.shortest` long.
 */
const shortestWord = 15;

/** True when `text` holds only `[A-Za-z0-9_-]`. */
function isWord(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45))
      return false;
  }
  return true;
}

/**
 * Lower-case needles of which every secret name (see {@link isSecretName}) contains one once its
 * `-`, `_` and `.` are removed: each secret part and each secret word (without `_`) contains one.
 */
const secretNameNeedles = /pass|secret|key|cred|auth|connectionstring|token|pw|dsn|cookie/;

function isNameChar(c: number): boolean {
  return (
    (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45
  );
}

/**
 * A necessary condition for `redactAssignments` to change `text`: some `:` or `=` is preceded
 * (past quotes, `\\`, `]` and white space, which names never hold) by a run of name characters
 * that holds a secret-name needle. The name of an assignment is the end of such a run (at most
 * 102 characters), so its needle is in the run's last 128 characters.
 */
function mayAssignSecret(text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c !== 58 && c !== 61) continue;
    let end = k;
    for (; end > 0; end--) {
      const before = text.charCodeAt(end - 1);
      if (
        before !== 92 &&
        before !== 34 &&
        before !== 39 &&
        before !== 96 &&
        before !== 93 &&
        !/\s/.test(text[end - 1] as string)
      )
        break;
    }
    let start = end;
    while (start > 0 && end - start < 128 && isNameChar(text.charCodeAt(start - 1))) start--;
    if (
      end - start >= 2 &&
      secretNameNeedles.test(text.slice(start, end).toLowerCase().replace(/[-_.]/g, ''))
    )
      return true;
  }
  return false;
}

/** True when `text` has a line of exactly 64 or 70 base64 characters followed by a newline. */
function hasKeyBodyLine(text: string): boolean {
  for (let start = 0; ; ) {
    const end = text.indexOf('\n', start);
    if (end === -1) return false;
    let length = end - start;
    if (length > 0 && text.charCodeAt(end - 1) === 13) length--;
    if (length === 64 || length === 70) {
      let i = start;
      for (; i < start + length; i++) {
        const c = text.charCodeAt(i);
        const base64 =
          (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
        if (!base64) break;
      }
      if (i === start + length) return true;
    }
    start = end + 1;
  }
}

/** Key-shaped strings, blocks and headers redacted wherever they appear. */
interface ShapePattern {
  pattern: RegExp;
  replace: Replacer;
  /**
   * A cheap necessary condition (`lower` is `text.toLowerCase()`): false only when `pattern`
   * cannot match. The `i` patterns match only ASCII letters to ASCII needles (without the `u`
   * flag no other character folds to one), so a needle of theirs is always in `lower`.
   */
  mayMatch?: (text: string, lower: string) => boolean;
}

const shapePatterns: readonly ShapePattern[] = [
  // PEM / OpenSSH / PGP private keys, with or without their END line (a partial read).
  {
    pattern:
      /-----BEGIN ([A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|-----END [A-Z0-9 ]*-----|$)/g,
    replace: () => '[REDACTED:private-key]',
    mayMatch: (text) => text.includes('-----BEGIN '),
  },
  // The tail of a private key without its BEGIN line.
  {
    pattern: /(?:^|\n)(?:[A-Za-z0-9+/=]{16,}\r?\n)+-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/g,
    replace: (match) => `${match.startsWith('\n') ? '\n' : ''}[REDACTED:private-key]`,
    mayMatch: (text) => text.includes('-----END '),
  },
  // Lines of a key body (64 or 70 base64 characters, two or more in a row).
  {
    pattern:
      /(?:^|(?<=\n))(?:(?:[A-Za-z0-9+/]{64}|[A-Za-z0-9+/]{70})\r?\n){2,}(?:[A-Za-z0-9+/=]{1,70}(?:\r?\n|$))?/g,
    replace: () => '[REDACTED:private-key]\n',
    mayMatch: hasKeyBodyLine,
  },
  // Authorization headers: everything after the header name (and its scheme) to the end of the line.
  {
    pattern:
      /\b((?:proxy-)?authorization|(?:set-)?cookie)(\s*[:=]\s*)(?!\[REDACTED)((?:(?:bearer|basic|token|digest|negotiate|ntlm|apikey)\s+)?)(?!\[REDACTED)([^\r\n]{4,})/gi,
    replace: (_match, name = '', separator = '', scheme = '') => `${name}${separator}${scheme}${marker}`,
    mayMatch: (_text, lower) => lower.includes('authorization') || lower.includes('cookie'),
  },
  // Bearer credentials anywhere, any case; `token …` when it looks like one.
  {
    pattern: /\b(bearer)(\s+)(?!\[REDACTED)([A-Za-z0-9._~+/-]{8,}=*)/gi,
    replace: (_match, scheme = '', space = '') => `${scheme}${space}${marker}`,
    mayMatch: (_text, lower) => lower.includes('bearer'),
  },
  {
    pattern: /\b(token)(\s+)(?!\[REDACTED)([A-Za-z0-9._~+/-]{8,}=*)/gi,
    replace: (match, scheme = '', space = '', value = '') =>
      /[0-9]/.test(value) && /[A-Za-z]/.test(value) && value.length >= 16
        ? `${scheme}${space}${marker}`
        : match,
    mayMatch: (_text, lower) => lower.includes('token'),
  },
  {
    pattern: /\b(basic)(\s+)(?!\[REDACTED)([A-Za-z0-9+/]{12,}={0,2})(?![A-Za-z0-9+/=])/gi,
    replace: (match, scheme = '', space = '', value = '') =>
      /[0-9+/=]/.test(value) ? `${scheme}${space}${marker}` : match,
    mayMatch: (_text, lower) => lower.includes('basic'),
  },
  // Provider keys: OpenAI / Anthropic / OpenRouter (`sk-…`, `sk-ant-…`, `sk-proj-…`).
  {
    pattern: /\bsk-(?:ant-|proj-|or-)?[A-Za-z0-9_-]{16,}/g,
    replace: () => marker,
    mayMatch: (text) => text.includes('sk-'),
  },
  // GitHub, GitLab, Slack, npm, Hugging Face, Stripe, SendGrid, DigitalOcean, Shopify, Google.
  {
    pattern:
      /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abposr]-[A-Za-z0-9-]{10,}|npm_[A-Za-z0-9]{20,}|hf_[A-Za-z0-9]{20,}|(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}|whsec_[0-9A-Za-z]{16,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|dop_v1_[a-f0-9]{32,}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{24,}|AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})/g,
    replace: () => marker,
  },
  // AWS access key ids.
  { pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b/g, replace: () => marker },
  // JSON web tokens.
  {
    pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
    replace: () => marker,
    mayMatch: (text) => text.includes('eyJ'),
  },
  // Slack / Discord webhooks.
  {
    pattern:
      /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}|https:\/\/discord(?:app)?\.com\/api\/webhooks\/[0-9]+\/[A-Za-z0-9_-]{20,}/g,
    replace: () => marker,
    mayMatch: (text) => text.includes('https://'),
  },
  // Passwords in URLs: scheme://user:password@host.
  {
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:)(?!\[REDACTED)([^\s@/]+)@/gi,
    replace: (_match, prefix = '') => `${prefix}${marker}@`,
    mayMatch: (text) => text.includes('://') && text.includes('@'),
  },
];

/** Placeholder-like and code-like values that are not secrets (`${TOKEN}`, `process.env.X`). */
function isNotALiteralSecret(value: string, quoted: boolean, codeLike: boolean): boolean {
  if (value.length < 3 || value.startsWith('[REDACTED')) return true;
  if (/^(?:\$\{?[A-Za-z_]|%[A-Za-z_]\w*%|\{\{|<[^>]*>$|\*{3,}|x{4,}$|\.{3})/i.test(value)) return true;
  if (
    /^(?:true|false|null|none|nil|undefined|string|number|boolean|any|unknown|str|int|bytes|required|optional)$/i.test(
      value,
    )
  )
    return true;
  if (quoted) return false;
  if (/^\.{0,2}\/[\w./-]*$/.test(value)) return true; // a path
  // Code, not a literal: `process.env.KEY`, `config.password`, `getToken()`, `os.environ[…]`.
  if (/^[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)+$/.test(value)) return true;
  if (/^[A-Za-z_$][\w$.]*[([]/.test(value)) return true;
  // In code (`token = value`, `secret: Secret`), a short letters-only word is an identifier.
  if (codeLike && /^[A-Za-z_$][A-Za-z_$]*$/.test(value) && value.length < 16) return true;
  return false;
}

/** `NAME=value`, `name: value`, `"name": "value"`, `--name=value`, `name := value`. */
const assignmentPattern =
  /(?<![A-Za-z0-9_$])(\\?["'`]?)(-{0,2}[A-Za-z_][A-Za-z0-9_.-]{0,100})(\\?["'`]?\]?\s*(?::=|=>|=|:)\s*)/g;

function readValue(text: string, start: number): { end: number; value: string; quoted: boolean } {
  const escapedQuote = text.startsWith('\\"', start) || text.startsWith("\\'", start);
  const quote = escapedQuote ? text.slice(start, start + 2) : text[start];
  if (quote === '"' || quote === "'" || quote === '`' || escapedQuote) {
    const open = start + (quote?.length ?? 1);
    let i = open;
    while (i < text.length && i - open < 2000) {
      if (text.startsWith(quote as string, i)) break;
      if (text[i] === '\n') break;
      if (!escapedQuote && text[i] === '\\') i++;
      i++;
    }
    return { end: i, value: text.slice(open, i), quoted: true };
  }
  let i = start;
  while (i < text.length && i - start < 2000 && !/[\s"'`,;&<>(){}[\]]/.test(text[i] as string)) i++;
  return { end: i, value: text.slice(start, i), quoted: false };
}

function redactAssignments(text: string): string {
  let out = '';
  let copied = 0;
  assignmentPattern.lastIndex = 0;
  for (let match = assignmentPattern.exec(text); match; match = assignmentPattern.exec(text)) {
    const rawName = (match[2] ?? '').replace(/^-+/, '');
    const valueStart = match.index + match[0].length;
    if (!isSecretName(rawName)) {
      // Rescan right after the name: `a: PASSWORD=x` must still find the inner assignment.
      assignmentPattern.lastIndex =
        match.index + Math.max(1, (match[1] ?? '').length + (match[2] ?? '').length);
      continue;
    }
    const { end, value, quoted } = readValue(text, valueStart);
    const codeLike = !/^[A-Z0-9_]+$/.test(rawName) && /\s/.test(match[3] ?? '');
    if (value === '' || isNotALiteralSecret(value, quoted, codeLike)) {
      assignmentPattern.lastIndex = Math.max(valueStart, end);
      continue;
    }
    const quoteLength = quoted ? (text.startsWith('\\', valueStart) ? 2 : 1) : 0;
    out += text.slice(copied, valueStart + quoteLength) + marker;
    copied = end;
    assignmentPattern.lastIndex = Math.max(end, valueStart + 1);
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** XML-ish `<password>…</password>`. */
const tagPattern = /<([A-Za-z_][\w.-]{0,60})>([^<\n]{3,500})<\/\1>/g;

function redactTags(text: string): string {
  return text.replace(tagPattern, (match, name: string, value: string) =>
    isSecretName(name) && !value.startsWith('[REDACTED') ? `<${name}>${marker}</${name}>` : match,
  );
}

/** Runs the shape patterns and name rules (no known values). */
function redactShapes(text: string): string {
  const shortcuts = redactorShortcuts.enabled;
  let out = text;
  let lower = '';
  let lowerOf: string | undefined;
  for (const { pattern, replace, mayMatch } of shapePatterns) {
    if (shortcuts && mayMatch !== undefined) {
      // Each pattern sees the text the previous ones left, so the lower-case copy follows it.
      if (lowerOf !== out) {
        lower = out.toLowerCase();
        lowerOf = out;
      }
      if (!mayMatch(out, lower)) continue;
    }
    out = out.replace(pattern, replace as (match: string, ...rest: unknown[]) => string);
  }
  if (/[:=]/.test(out)) {
    if (shortcuts && lowerOf !== out) lower = out.toLowerCase();
    if (!shortcuts || (secretNameNeedles.test(lower.replace(/[-_.]/g, '')) && mayAssignSecret(out)))
      out = redactAssignments(out);
  }
  if (out.includes('</')) out = redactTags(out);
  return out;
}

/** Up to this many objects, {@link Copies} finds a copy by a linear scan (no Map, no identity hash). */
const linearCopies = 32;

/**
 * The copies made by one `redactValue` call: every object met so far → its redacted copy. A run
 * event holds a handful of objects, so the first ones are kept in two arrays and found by a
 * linear scan — cheaper than a `Map`, which would also give every object met an identity hash;
 * past {@link linearCopies} objects they move to a `Map`.
 */
class Copies {
  #originals: object[] = [];
  #copies: unknown[] = [];
  /** Entries in use (the arrays keep their room, and stale entries past it, between calls). */
  #count = 0;
  #map: Map<object, unknown> | undefined;

  get(value: object): unknown {
    if (this.#map !== undefined) return this.#map.get(value);
    const originals = this.#originals;
    for (let i = 0; i < this.#count; i++) if (originals[i] === value) return this.#copies[i];
    return undefined;
  }

  /** Forgets everything (keeps the arrays' room for the next call, and lets go of what they held). */
  clear(): void {
    for (let i = 0; i < this.#count; i++) {
      this.#originals[i] = undefined as unknown as object;
      this.#copies[i] = undefined;
    }
    this.#count = 0;
    this.#map = undefined;
  }

  set(value: object, copy: unknown): void {
    if (this.#map !== undefined) {
      this.#map.set(value, copy);
      return;
    }
    if (this.#count < linearCopies) {
      this.#originals[this.#count] = value;
      this.#copies[this.#count] = copy;
      this.#count++;
      return;
    }
    const map = new Map<object, unknown>();
    for (let i = 0; i < this.#count; i++) map.set(this.#originals[i] as object, this.#copies[i]);
    map.set(value, copy);
    this.#map = map;
  }
}

/**
 * The value of a secret-named field (`password`, `apiKey`, `x-api-key`, `client_secret`…), already
 * redacted as text: the marker, unless it is a placeholder or a type name (`${TOKEN}`, `string`,
 * `[REDACTED…]`) — exactly what the assignment rule does to `"name": "value"` in a text, so a
 * structured value is redacted as its JSON text would be.
 */
function redactField(name: string, text: string, secretMarker: string): string {
  if (text.length < 3 || !isSecretName(name) || isNotALiteralSecret(text, true, false)) return text;
  return secretMarker;
}

/**
 * Redacts strings inside plain objects and arrays (depth-limited); a string field with a secret
 * name is redacted whole ({@link redactField}). `copies` maps every object met so far to its
 * redacted copy, so an object met twice (shared, or a cycle) becomes the same copy twice: redacted,
 * with the input's shape (the copy is registered before its contents are filled).
 */
function redactDeep(
  value: unknown,
  redact: (text: string) => string,
  depth: number,
  copies: Copies,
  secretMarker: string,
): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  const copied = copies.get(value);
  if (copied !== undefined) return copied;
  if (depth > 256) return '[REDACTED: nested too deep to inspect]';
  if (Array.isArray(value)) {
    const out: unknown[] = new Array(value.length);
    copies.set(value, out);
    for (let i = 0; i < value.length; i++)
      out[i] = redactDeep(value[i], redact, depth + 1, copies, secretMarker);
    return out;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) {
    if (value instanceof Error) {
      const copy = new Error(redact(value.message));
      copy.name = value.name;
      if (value.stack) copy.stack = redact(value.stack);
      copies.set(value, copy);
      return copy;
    }
    return value;
  }
  const out: Record<string, unknown> = {};
  copies.set(value, out);
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const field = (value as Record<string, unknown>)[key];
    const copy =
      typeof field === 'string'
        ? redactField(key, redact(field), secretMarker)
        : redactDeep(field, redact, depth + 1, copies, secretMarker);
    // An own `__proto__` (JSON.parse makes one) stays an own field: assigning it would set the
    // copy's prototype instead.
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    else out[key] = copy;
  }
  return out;
}

/** How many values {@link redactsToItself} looks at before it gives up (and the caller copies). */
const unchangedVisitLimit = 4096;

/**
 * True when {@link redactDeep} would return a copy equal to `value` field for field: every string
 * it reaches redacts to itself, no secret-named field is replaced, no `Error` is rebuilt, nothing
 * is nested deeper than 256 levels, and no object holds symbol-keyed fields (which the copy would
 * drop) or has a `null` prototype (its copy is a plain object). `budget.left` bounds the values looked at (a value shared many times, or a cycle, runs it
 * out: false, and the caller makes the copy, which handles both).
 */
function redactsToItself(
  value: unknown,
  redact: (text: string) => string,
  depth: number,
  budget: { left: number },
  secretMarker: string,
): boolean {
  if (typeof value === 'string') return redact(value) === value;
  if (value === null || typeof value !== 'object') return true;
  if (depth > 256 || --budget.left < 0) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++)
      if (!redactsToItself(value[i], redact, depth + 1, budget, secretMarker)) return false;
    return true;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  // The copy of an object without prototype is a plain object: not the same shape.
  if (prototype === null) return false;
  if (prototype !== Object.prototype) return !(value instanceof Error);
  if (Object.getOwnPropertySymbols(value).length > 0) return false;
  // `for…in` rather than `Object.keys`: the same own keys in the same order, read from the
  // object's enum cache without allocating a key array (this runs for every object of every run
  // event). It also visits enumerable keys inherited from `Object.prototype` (none, unless it was
  // polluted): checking those too only makes the answer stricter.
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (typeof field === 'string') {
      if (redactField(key, redact(field), secretMarker) !== field) return false;
    } else if (!redactsToItself(field, redact, depth + 1, budget, secretMarker)) return false;
  }
  return true;
}

/** The hidden method of a redactor made by {@link createRedactor} behind {@link redactsToItselfWith}. */
const sameKey = Symbol.for('closedloop.model.redacts-to-itself');

/**
 * True when `redactor` is one made by {@link createRedactor} and `redactor.redactValue(value)`
 * would return a copy equal to `value` field for field (no secret anywhere in it), so a caller
 * that needs no copy can use `value` itself. False for any other redactor (it cannot tell), and
 * for values whose copy would differ in shape: symbol-keyed fields (the copy drops them), objects
 * without prototype (copied as plain objects), `Error` instances (rebuilt with a redacted message), values nested deeper than 256 levels, and values
 * too large or shared too often to check cheaply (4,096 objects; a cycle runs that out too).
 *
 * @internal The run bus of `@closedloop/cortex` uses it to stamp secret-free events without a deep copy.
 */
export function redactsToItselfWith(redactor: Redactor, value: unknown): boolean {
  const same = (redactor as { [sameKey]?: (value: unknown) => boolean })[sameKey];
  return typeof same === 'function' && same(value) === true;
}

/** A generation of the memo of one redactor holds at most this many texts, … */
const memoEntryLimit = 4096;
/** … of at most this many characters together (texts and their redacted forms), … */
const memoCharLimit = 2_000_000;
/** … each at most this long (longer texts are redacted every time). */
const memoTextLimit = 65_536;

/**
 * Builds the {@link Redactor}. It removes, in this order:
 *
 * 1. **known secrets by value** — the values of secret-named environment variables
 *    (`OPENAI_API_KEY`, `DB_PASS`, `GITHUB_TOKEN`… at least `minLength` characters), `secrets`,
 *    and every value given to {@link registerSecret} — also URL-encoded, JSON-, HTML- and
 *    shell-escaped, quoted-printable, hex, base64, uuencoded, Ascii85 and base85 (at any byte
 *    offset), rot47, and any run of ≥ 12 characters of them (a partial read of a key line, a key split
 *    across lines or chunks); byte dumps of them (one hex, decimal or octal number per byte with
 *    any prefix and separator: `73:6b:…`, `\x73\x6b…`, `0x73, 0x6b, …`, `[115,107,…]`;
 *    line-wrapped xxd, `hexdump -C` and `od` dumps up to the end of their last line, ASCII column
 *    included); runs whose letters and digits, in any case and whatever stands between them, are
 *    those of ≥ 12 characters of a value, reversed or in rot13, or of its hex (also reversed),
 *    base64 (also of its UTF-16 or of its base64), base32, run-together char codes or
 *    little-endian words (spaced out, one character a line, zero-width spaces, fullwidth forms,
 *    `tr a-z A-Z`, `rev`, `hexdump`, `od -tx2`/`-tx4`, `xxd -e`, short dumps: a dump line
 *    is replaced whole with its neighbours); `\U0000…`, `\u{…}` and `&#x00…;` escapes; and
 *    gzip or zlib data in base64 that inflates to any of this; environment values become
 *    `[REDACTED:NAME]`;
 * 2. **key shapes** — PEM, OpenSSH and PGP private keys (with or without END line, and bare key
 *    bodies), `Authorization:`/`Cookie:` headers, bearer/token/basic credentials in any case,
 *    `sk-…`, `ghp_…`, `github_pat_…`, `glpat-…`, `xox?-…`, `npm_…`, `hf_…`, Stripe, SendGrid,
 *    Google, AWS access key ids, JWTs, webhook URLs and `user:password@` in URLs;
 * 3. **secret-named assignments** — `AWS_SECRET_ACCESS_KEY=…`, `DB_PASS=…`, `JWT_SECRET: …`,
 *    `"password": "…"`, `_authToken=…`, `--api-key=…`, `<password>…</password>` (placeholders
 *    and code such as `${TOKEN}` or `process.env.KEY` are left alone).
 *
 * @example
 * ```ts
 * const redactor = createRedactor({ env: { OPENAI_API_KEY: 'sk-test-1234567890abcdef' } });
 * redactor.redact('key is sk-test-1234567890abcdef'); // 'key is [REDACTED:OPENAI_API_KEY]'
 * redactor.redact('DB_PASS=hunter22'); // 'DB_PASS=[REDACTED]'
 * ```
 */
export function createRedactor(options: RedactorOptions = {}): Redactor {
  const env = options.env ?? process.env;
  const minLength = options.minLength ?? 8;
  const placeholder = options.placeholder;
  const useRegistered = options.registered ?? true;
  const own = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.length < minLength || !isSecretName(name) || isTrivialValue(value))
      continue;
    if (!own.has(value)) own.set(value, placeholder ?? `[REDACTED:${name}]`);
  }
  for (const value of [...(options.secrets ?? []), ...(options.extra ?? [])]) {
    if (typeof value === 'string' && value.length >= minLength && !own.has(value))
      own.set(value, placeholder ?? marker);
  }
  let index: KnownIndex | undefined;
  let indexVersion = -1;
  // The registry is made once per process and never replaced: look it up once.
  const registry = secretRegistry();
  const knownIndex = (): KnownIndex => {
    const version = useRegistered ? registry.version : 0;
    if (index === undefined || version !== indexVersion) {
      const entries = new Map(own);
      if (useRegistered) {
        for (const value of registry.values)
          if (!entries.has(value)) entries.set(value, placeholder ?? marker);
      }
      index = buildKnownIndex(entries);
      indexVersion = version;
    }
    return index;
  };
  // Run events repeat their texts (a step's description, notes, results): remember the recent
  // answers until the known secrets change. Two generations: when the young one is full it
  // becomes the old one (and the old one is dropped), so at most twice the limits are held.
  let young = new Map<string, string>();
  let old = new Map<string, string>();
  let youngChars = 0;
  let memoIndex: KnownIndex | undefined;
  const remember = (text: string, out: string): void => {
    const cost = text.length + (out === text ? 0 : out.length);
    if (young.size >= memoEntryLimit || youngChars + cost > memoCharLimit) {
      old = young;
      young = new Map();
      youngChars = 0;
    }
    young.set(text, out);
    youngChars += cost;
  };
  const redact = (text: string): string => {
    if (typeof text !== 'string' || text === '') return text;
    const index = knownIndex();
    const shortcuts = redactorShortcuts.enabled;
    if (shortcuts) {
      if (text.length < shortestShape && text.length < index.shortest) return text;
      if (text.length < shortestWord && text.length < index.shortest && isWord(text)) return text;
      if (memoIndex !== index) {
        young = new Map();
        old = new Map();
        youngChars = 0;
        memoIndex = index;
      }
      const recent = young.get(text);
      if (recent !== undefined) return recent;
      const older = old.get(text);
      if (older !== undefined) {
        remember(text, older);
        return older;
      }
    }
    let out = redactKnown(text, index);
    out = redactShapes(out);
    if (placeholder !== undefined && placeholder !== marker) out = out.replaceAll(marker, placeholder);
    if (shortcuts && text.length <= memoTextLimit) remember(text, out);
    return out;
  };
  const copies = new Copies();
  let copiesInUse = false;
  const secretMarker = placeholder ?? marker;
  const redactor: Redactor & { [sameKey]: (value: unknown) => boolean } = {
    redact,
    redactValue<T>(value: T): T {
      // One table per redactor, reused call after call; a fresh one if a call is under way (a
      // getter of the value redacting with this redactor).
      if (copiesInUse) return redactDeep(value, redact, 0, new Copies(), secretMarker) as T;
      copiesInUse = true;
      try {
        return redactDeep(value, redact, 0, copies, secretMarker) as T;
      } finally {
        copies.clear();
        copiesInUse = false;
      }
    },
    [sameKey](value: unknown): boolean {
      return redactsToItself(value, redact, 0, { left: unchangedVisitLimit }, secretMarker);
    },
    get knownSecretCount() {
      if (!useRegistered) return own.size;
      let count = own.size;
      for (const value of secretRegistry().values) if (!own.has(value)) count++;
      return count;
    },
  };
  return redactor;
}
