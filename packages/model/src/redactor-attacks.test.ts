/**
 * The attack matrix: a hostile command in a step tries to get a known secret out through an
 * encoding or a transformation (real tools: coreutils, xxd, hexdump, od, python3, bash). Each
 * attack's output goes through the real redactor; the attacker's own decoder is then run on what
 * is left, and must not give back any `leakRun` characters of the secret in a row (the redactor
 * treats shorter pieces of a known value as noise; see the README).
 */
import { execFileSync } from 'node:child_process';
import { gunzipSync, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createRedactor } from './create-redactor';

/** No run of this many characters of the secret may be read back. */
const leakRun = 8;

const secrets = {
  /** No telling shape: only its value gives it away. */
  SERVICE_TOKEN: 'Zq8Lm3Vx9Tp2Rk7Wn4Hs6Yd1cB',
  /** Characters every escaping scheme changes. */
  DB_PASSWORD: 'p@ss&W0rd<26>"x y=z/q+Kv9#',
  /** As short as a known value may usefully be. */
  SHORT_API_KEY: 'Kz2Tx8Rb4pQ7',
};
type Name = keyof typeof secrets;
/** The secrets longer than a partial dump of 12 or more bytes. */
const long: Name[] = ['SERVICE_TOKEN', 'DB_PASSWORD'];

const redactor = createRedactor({ env: secrets, registered: false });

/** Runs `script` in bash with the secret in `$S` (as a step's command would see it in the environment). */
function run(script: string, secret: string): string {
  return execFileSync('bash', ['-c', script], {
    env: { PATH: process.env.PATH, S: secret, LC_ALL: 'C.UTF-8' },
    encoding: 'utf8',
  });
}

/** The longest run of characters of `secret` that `text` holds. */
function longestRun(text: string, secret: string): number {
  let best = 0;
  for (let i = 0; i < secret.length; i++)
    for (let j = i + best + 1; j <= secret.length; j++) {
      if (!text.includes(secret.slice(i, j))) break;
      best = j - i;
    }
  return best;
}

// ---------------------------------------------------------------------------------------------
// The attacker's decoders (tolerant: they decode what they can of a partly redacted text)
// ---------------------------------------------------------------------------------------------

const latin1 = (bytes: number[] | Buffer) => Buffer.from(bytes).toString('latin1');
const utf8 = (bytes: number[] | Buffer) => Buffer.from(bytes).toString('utf8');

/** Every run of hex digits (separators between pairs dropped), decoded at both nibble offsets. */
function fromHex(text: string): string {
  const out: string[] = [];
  for (const run of text.match(/(?:[0-9a-f]{2}[\s:,|.-]{0,2})+/gi) ?? []) {
    const digits = run.replace(/[^0-9a-f]/gi, '');
    for (const start of [0, 1])
      out.push(latin1((digits.slice(start).match(/../g) ?? []).map((pair) => Number.parseInt(pair, 16))));
  }
  return out.join('\n');
}

/** Groups of `width` bytes printed as little-endian words (`hexdump`, `od -tx2`, `xxd -e`). */
function fromWords(width: number): (text: string) => string {
  return (text) =>
    text
      .split('\n')
      .map((line) =>
        latin1(
          (
            line.match(new RegExp(`(?<![0-9a-f])(?:[0-9a-f]{2}){1,${width}}(?![0-9a-f:])`, 'gi')) ?? []
          ).flatMap((word) => (word.match(/../g) ?? []).reverse().map((pair) => Number.parseInt(pair, 16))),
        ),
      )
      .join('');
}

/** Runs of an alphabet decoded at every start (a redacted piece leaves the rest misaligned). */
function fromRuns(
  alphabet: RegExp,
  block: number,
  decode: (run: string) => string,
): (text: string) => string {
  return (text) => {
    const out: string[] = [];
    for (const run of text.replace(/\n/g, '').match(alphabet) ?? [])
      for (let start = 0; start < block; start++) {
        try {
          out.push(decode(run.slice(start)));
        } catch {
          // not decodable from here
        }
      }
    return out.join('\n');
  };
}

const fromBase64 = fromRuns(/[A-Za-z0-9+/_-]{4,}=*/g, 4, (run) =>
  latin1(Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64')),
);

function base32Decode(run: string, alphabet: string): string {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of run.toUpperCase().replace(/=+$/, '')) {
    const index = alphabet.indexOf(char);
    if (index < 0) break;
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return latin1(bytes);
}
const fromBase32 = fromRuns(/[A-Za-z2-7]{8,}=*/g, 8, (run) =>
  base32Decode(run, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'),
);

/** Base-85 runs of `alphabet`, decoded at every start. */
function fromBase85(alphabet: string): (text: string) => string {
  const inAlphabet = new RegExp(`[${alphabet.replace(/[\\\]^-]/g, '\\$&')}]{5,}`, 'g');
  return fromRuns(inAlphabet, 5, (run) => {
    const bytes: number[] = [];
    for (let i = 0; i + 5 <= run.length; i += 5) {
      let group = 0;
      for (const char of run.slice(i, i + 5)) group = group * 85 + alphabet.indexOf(char);
      bytes.push((group >>> 24) & 255, (group >>> 16) & 255, (group >>> 8) & 255, group & 255);
    }
    return latin1(bytes);
  });
}

const percent = (text: string) =>
  latin1([...text.replace(/\+/g, ' ')].map((c) => c.charCodeAt(0))).replace(/%([0-9a-f]{2})/gi, (_m, hex) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
const rot13 = (text: string) =>
  text.replace(/[A-Za-z]/g, (c) => {
    const base = c <= 'Z' ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - base + 13) % 26) + base);
  });
const rot47 = (text: string) =>
  text.replace(/[!-~]/g, (c) => String.fromCharCode(33 + ((c.charCodeAt(0) - 33 + 47) % 94)));
const reverse = (text: string) => [...text].reverse().join('');
const unescapeCodes = (text: string) =>
  text
    .replace(/\\u\{([0-9a-f]+)\}|\\U([0-9a-f]{8})|\\u([0-9a-f]{4})|\\x([0-9a-f]{2})/gi, (_m, a, b, c, d) =>
      String.fromCodePoint(Number.parseInt(a ?? b ?? c ?? d, 16)),
    )
    .replace(/\\([0-7]{3})/g, (_m, octal) => String.fromCharCode(Number.parseInt(octal, 8)));
const htmlDecode = (text: string) =>
  text
    .replace(/&#x([0-9a-f]+);?/gi, (_m, hex) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#([0-9]+);?/g, (_m, decimal) => String.fromCodePoint(Number(decimal)))
    .replace(
      /&(amp|lt|gt|quot|apos);/g,
      (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name] ?? '',
    );
const quotedPrintable = (text: string) =>
  text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_m, hex) => String.fromCharCode(Number.parseInt(hex, 16)));
const unescapeShell = (text: string) => text.replace(/\\(.)/g, '$1').replace(/'\\''/g, "'");
const joinLines = (text: string) => text.replace(/\n/g, '');
const numbersToChars = (text: string) => utf8((text.match(/\d+/g) ?? []).map(Number).filter((n) => n < 256));
const gunzipRuns = (text: string) =>
  (text.match(/[A-Za-z0-9+/]{8,}={0,2}/g) ?? [])
    .map((run) => {
      const bytes = Buffer.from(run, 'base64');
      for (const inflate of [gunzipSync, inflateSync]) {
        try {
          return latin1(inflate(bytes));
        } catch {
          // not this format
        }
      }
      return '';
    })
    .join('\n');
const python = (expression: string) =>
  `python3 -c 'import os,sys,base64,binascii,urllib.parse,html,quopri,json; S=os.environ["S"]; B=S.encode(); sys.stdout.write(${expression})'`;

interface Attack {
  name: string;
  script: string;
  decode: (text: string) => string;
  /** The attacker reads the value back without its case (`tr a-z A-Z`). */
  caseless?: boolean;
  /** Which secrets it applies to (default all). */
  only?: Name[];
}

const attacks: Attack[] = [
  { name: 'plain', script: 'printf "key: %s\\n" "$S"', decode: (t) => t },
  {
    name: 'percent-encoding (quote, safe="")',
    script: python('urllib.parse.quote(S, safe="")'),
    decode: percent,
  },
  { name: 'percent-encoding (quote, / kept)', script: python('urllib.parse.quote(S)'), decode: percent },
  { name: 'percent-encoding (quote_plus)', script: python('urllib.parse.quote_plus(S)'), decode: percent },
  {
    name: 'percent-encoding every byte',
    script: 'printf %s "$S" | xxd -p | sed "s/../%&/g"',
    decode: percent,
  },
  { name: 'base32', script: 'printf %s "$S" | base32 -w0', decode: fromBase32 },
  { name: 'base32, lower case', script: 'printf %s "$S" | base32 -w0 | tr A-Z a-z', decode: fromBase32 },
  { name: 'base32 after 3 bytes', script: 'printf "abc%s" "$S" | base32 -w0', decode: fromBase32 },
  { name: 'base32 without padding', script: 'printf "a%s" "$S" | base32 -w0 | tr -d =', decode: fromBase32 },
  { name: 'base64', script: 'printf %s "$S" | base64 -w0', decode: fromBase64 },
  {
    name: 'base64 wrapped at 12',
    script: 'printf "xy%s" "$S" | base64 -w12',
    decode: (t) => fromBase64(joinLines(t)),
  },
  {
    name: 'base64url without padding',
    script: 'printf "q%s" "$S" | basenc --base64url -w0 | tr -d =',
    decode: fromBase64,
  },
  { name: 'reversed', script: 'printf %s "$S" | rev', decode: reverse },
  { name: 'rot13', script: "printf %s \"$S\" | tr 'A-Za-z' 'N-ZA-Mn-za-m'", decode: rot13 },
  { name: 'rot47', script: "printf %s \"$S\" | tr '!-~' 'P-~!-O'", decode: rot47 },
  { name: 'upper case', script: 'printf %s "$S" | tr a-z A-Z', decode: (t) => t, caseless: true },
  {
    name: 'JSON \\u escapes',
    script: python(`"".join("\\\\u%04x" % ord(c) for c in S)`),
    decode: unescapeCodes,
  },
  {
    name: 'ES \\u{…} escapes',
    script: python(`"".join("\\\\u{%x}" % ord(c) for c in S)`),
    decode: unescapeCodes,
  },
  {
    name: 'Python \\U escapes',
    script: python(`"".join("\\\\U%08x" % ord(c) for c in S)`),
    decode: unescapeCodes,
  },
  {
    name: 'HTML decimal entities',
    script: python(`"".join("&#%d;" % ord(c) for c in S)`),
    decode: htmlDecode,
  },
  {
    name: 'HTML hex entities, zero-padded',
    script: python(`"".join("&#x%04x;" % ord(c) for c in S)`),
    decode: htmlDecode,
  },
  { name: 'HTML escaping', script: python('html.escape(S)'), decode: htmlDecode },
  { name: 'quoted-printable', script: python('quopri.encodestring(B).decode()'), decode: quotedPrintable },
  {
    name: 'quoted-printable, soft break inside',
    script: python('quopri.encodestring(b"x"*70 + B).decode()'),
    decode: quotedPrintable,
  },
  {
    name: 'quoted-printable, every byte',
    script: python(`"".join("=%02X" % b for b in B)`),
    decode: quotedPrintable,
  },
  { name: 'split over two lines', script: 'printf %s "$S" | fold -w 13', decode: joinLines },
  {
    name: 'split over three lines',
    script: 'printf %s "$S" | fold -w 9',
    decode: joinLines,
  },
  {
    name: "spaced (sed 's/./& /g')",
    script: 'printf %s "$S" | sed \'s/./& /g\'',
    decode: (t) => t.replace(/(.) /g, '$1'),
  },
  { name: 'one character a line', script: 'printf %s "$S" | sed \'s/./&\\n/g\'', decode: joinLines },
  {
    name: 'dashes between',
    script: 'printf %s "$S" | sed \'s/./&--/g\'',
    decode: (t) => t.replace(/(.)--/g, '$1'),
  },
  {
    name: 'zero-width spaces between',
    script: 'printf %s "$S" | perl -CS -pe \'s/(.)/$1\\x{200B}/g\'',
    decode: (t) => t.replace(/\u200b/g, ''),
  },
  { name: 'hex, lower case', script: 'printf %s "$S" | xxd -p', decode: fromHex },
  { name: 'hex, upper case', script: 'printf %s "$S" | xxd -p -u', decode: fromHex },
  {
    name: 'hex, wrapped (xxd -p -c 10)',
    script: 'printf %s "$S" | xxd -p -c 10',
    decode: (t) => fromHex(joinLines(t)),
  },
  {
    name: 'hex, reversed (xxd -p | rev)',
    script: 'printf %s "$S" | xxd -p | rev',
    decode: (t) => fromHex(reverse(t)),
  },
  {
    name: 'hex of the bytes in reverse order',
    script: 'printf %s "$S" | xxd -p -c1 | tac | tr -d "\\n"',
    decode: (t) => reverse(fromHex(t)),
  },
  { name: 'hex pairs with |', script: 'printf %s "$S" | xxd -p | sed "s/../&|/g"', decode: fromHex },
  { name: 'hexdump (16-bit words)', script: 'printf %s "$S" | hexdump', decode: fromWords(2) },
  { name: 'hexdump at an odd offset', script: 'printf "#%s" "$S" | hexdump', decode: fromWords(2) },
  { name: 'hexdump -x', script: 'printf "##%s" "$S" | hexdump -x', decode: fromWords(2) },
  { name: 'od -tx2', script: 'printf %s "$S" | od -tx2', decode: fromWords(2) },
  { name: 'od -An -tx2', script: 'printf "#%s" "$S" | od -An -tx2', decode: fromWords(2) },
  { name: 'od -tx4', script: 'printf %s "$S" | od -tx4', decode: fromWords(4) },
  { name: 'od -tx4 at offset 3', script: 'printf "###%s" "$S" | od -tx4', decode: fromWords(4) },
  // 8-byte words are found as pieces of the value's bytes in reverse order: two whole words needed.
  { name: 'od -tx8', script: 'printf "#####%s" "$S" | od -tx8', decode: fromWords(8), only: long },
  { name: 'xxd -e', script: 'printf %s "$S" | xxd -e', decode: fromWords(4) },
  { name: 'xxd -e at offset 1', script: 'printf "#%s" "$S" | xxd -e', decode: fromWords(4) },
  // The 12-byte key in 8-byte words at offset 2 is in no whole word: 6 bytes in each of two.
  { name: 'xxd -e -g 8', script: 'printf "##%s" "$S" | xxd -e -g 8', decode: fromWords(8), only: long },
  { name: 'xxd -g 4', script: 'printf "#%s" "$S" | xxd -g 4', decode: fromHex },
  { name: 'xxd -g 8', script: 'printf "###%s" "$S" | xxd -g 8', decode: fromHex },
  {
    name: 'xxd of the first 16 bytes',
    script: 'printf %s "$S" | head -c 16 | xxd',
    decode: fromHex,
    only: long,
  },
  {
    name: 'od -An -tx1 of the first 13 bytes',
    script: 'printf %s "$S" | head -c 13 | od -An -tx1',
    decode: fromHex,
    only: long,
  },
  {
    name: 'hexdump -C of bytes 4 to 18',
    script: 'printf %s "$S" | tail -c +5 | head -c 14 | hexdump -C',
    decode: fromHex,
    only: long,
  },
  {
    name: 'hexdump of bytes 3 to 17',
    script: 'printf %s "$S" | tail -c +4 | head -c 14 | hexdump',
    decode: fromWords(2),
    only: long,
  },
  {
    name: 'od -tx4 of bytes 1 to 13',
    script: 'printf %s "$S" | tail -c +2 | head -c 12 | od -tx4',
    decode: fromWords(4),
    only: long,
  },
  { name: 'gzip | base64', script: 'printf %s "$S" | gzip | base64 -w0', decode: gunzipRuns },
  {
    name: 'gzip | base64 of the value and 3 MB after it',
    script: '(printf "%s\\n" "$S"; head -c 3000000 /dev/zero) | gzip | base64 -w0',
    decode: (t) => gunzipRuns(t).slice(0, 100),
  },
  {
    name: 'zlib | base64',
    script: python('base64.b64encode(__import__("zlib").compress(B)).decode()'),
    decode: gunzipRuns,
  },
  { name: 'printf %q', script: 'printf "%q\\n" "$S"', decode: unescapeShell },
  {
    name: 'bash @Q quoting',
    script: `echo "\${S@Q}"`,
    decode: (t) => t.replace(/^'|'\n?$/g, '').replace(/'\\''/g, "'"),
  },
  { name: 'char codes array', script: python('str(list(B))'), decode: numbersToChars },
  { name: 'char codes, first 13', script: python('str(list(B[:13]))'), decode: numbersToChars, only: long },
  {
    name: 'String.fromCharCode(…)',
    script: python('"String.fromCharCode(" + ",".join(str(b) for b in B) + ")"'),
    decode: numbersToChars,
  },
  {
    name: 'char codes a line',
    script: 'printf %s "$S" | od -An -v -tu1 -w1 | tr -d \' \'',
    decode: numbersToChars,
  },
  { name: 'uuencode', script: python('binascii.b2a_uu(B).decode()'), decode: fromUu },
  // Past a misaligned start, a 12-byte key holds two whole groups: 10 characters, under a window.
  {
    name: 'Ascii85',
    script: python('base64.a85encode(b"##" + B).decode()'),
    decode: fromBase85(Array.from({ length: 85 }, (_, i) => String.fromCharCode(33 + i)).join('')),
    only: long,
  },
  {
    name: 'base85 (git)',
    script: python('base64.b85encode(b"#" + B).decode()'),
    decode: fromBase85(
      '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~',
    ),
    only: long,
  },
  {
    name: 'base64 of UTF-16LE (PowerShell)',
    script: 'printf "%s" "$S" | iconv -t UTF-16LE | base64 -w0',
    decode: (t) =>
      Buffer.from(fromBase64(t), 'latin1').toString('utf16le') + fromBase64(t).slice(1).replace(/\0/g, ''),
  },
  {
    name: 'base64 twice',
    script: 'printf "%s" "$S" | base64 | base64 -w0',
    decode: (t) => fromBase64(joinLines(fromBase64(t))),
  },
  {
    name: 'fullwidth forms',
    script: python('"".join(chr(ord(c) + 0xfee0) if "!" <= c <= "~" else c for c in S)'),
    decode: (t) => t.replace(/[\uff01-\uff5e]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)),
  },
];

/** uudecode, line by line, as far as each line goes. */
function fromUu(text: string): string {
  const bytes: number[] = [];
  for (const line of text.split('\n')) {
    const sextets = [...line.slice(1)].map((c) => (c.charCodeAt(0) - 32) & 63);
    for (let i = 0; i + 4 <= sextets.length; i += 4) {
      const [a = 0, b = 0, c = 0, d = 0] = sextets.slice(i, i + 4);
      bytes.push(((a << 2) | (b >> 4)) & 255, ((b << 4) | (c >> 2)) & 255, ((c << 6) | d) & 255);
    }
  }
  return latin1(bytes);
}

describe('attacks on known secrets', () => {
  for (const attack of attacks) {
    it.each(attack.only ?? (Object.keys(secrets) as Name[]))(`${attack.name}: %s`, (name) => {
      const secret = secrets[name];
      const raw = run(attack.script, secret);
      const fold = (text: string) => (attack.caseless ? text.toLowerCase() : text);
      // The attack works: its decoder reads the secret back from what the command printed.
      expect(longestRun(fold(attack.decode(raw)), fold(secret))).toBeGreaterThanOrEqual(leakRun);
      const out = redactor.redact(raw);
      expect(out).toContain(`[REDACTED:${name}]`);
      expect(longestRun(fold(attack.decode(out)), fold(secret)), out).toBeLessThan(leakRun);
    });
  }

  it('a value cut in two tool outputs: each half of 12 or more characters', () => {
    const secret = secrets.SERVICE_TOKEN;
    const outputs = [`part one: ${secret.slice(0, 13)}`, `${secret.slice(13)} was part two`];
    const joined = outputs.map((output) => redactor.redact(output)).join('');
    expect(longestRun(joined, secret)).toBeLessThan(leakRun);
  });
});

describe('what the attack rules leave alone', () => {
  const clean = [
    // Ordinary text, code and logs, spaced or not.
    'export const value = await load("x", { retries: 3, timeout: 30 }); // see https://example.com',
    'T h e   q u i c k   b r o w n   f o x   j u m p s   o v e r   t h e   l a z y   d o g',
    'commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)\nAuthor: A <a@example.com>',
    // Dumps, encodings and compressed blobs of other bytes.
    run('printf "%s" "hello world, nothing secret in this file at all" | hexdump', ''),
    run('printf "%s" "hello world, nothing secret in this file at all" | xxd -e', ''),
    run('printf "%s" "hello world, nothing secret in this file at all" | od -tx4', ''),
    run('printf "%s" "hello world, nothing secret in this file at all" | gzip | base64 -w0', ''),
    run('printf "%s" "hello world, nothing secret in this file at all" | base32', ''),
    run('seq 1 40 | tr "\\n" " "', ''),
    // A dump of 8 bytes of a known value (less than 12 are noise, as in plain text).
    run('printf "%s" "$S" | head -c 8 | hexdump -C', secrets.SERVICE_TOKEN),
  ];
  it.each(clean)('leaves %j unchanged', (text) => {
    expect(redactor.redact(text)).toBe(text);
  });
});
