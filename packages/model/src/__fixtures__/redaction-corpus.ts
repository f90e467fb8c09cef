import { gzipSync } from 'node:zlib';

/**
 * The redaction corpus: texts that hold a secret (each `leak` must be gone after redaction, each
 * `keep` must stay) and clean texts that must come out unchanged. `known` lists values the
 * redactor is told about (as a configured key would be); everything else must be found by shape.
 */
export interface RedactionCase {
  name: string;
  /** The class of leak (for the printed figures). */
  kind: 'shape' | 'assignment' | 'header' | 'private-key' | 'known' | 'encoded' | 'partial' | 'split';
  text: string;
  /** Substrings that must not survive. */
  leaks: string[];
  /** Substrings that must survive (context, names). */
  keep?: string[];
  /** Values the redactor knows (environment or configured keys). */
  known?: Record<string, string>;
}

const openaiKey = 'sk-proj-Qm4v8XzL1pT7rN2wK9sB5yH3dF6gJ0cA';
const anthropicKey = 'sk-ant-api03-Vx7Kq2mZ9pL4tR8nW1sB6yH3dF5gJ0cAeU';
const plainKey = 'q7Vd93LmKz2Tx8RbN4pWc6Hs'; // a key with no telling shape
const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const dbPassword = 'Tr0ub4dor&3-horse';
const slashPassword = 'hunter2/Correct+Horse=Staple';

/** The `length`-character pieces of `text` (a leak of any of them is a leak). */
function pieces(text: string, length: number): string[] {
  const out: string[] = [];
  for (let i = 0; i + length <= text.length; i += length) out.push(text.slice(i, i + length));
  return out;
}
const pemBody = [
  'MIIEowIBAAKCAQEA1c7+9z5Pad7OejecsQ0bu3aozN3tihPmljnnudb9G3HECdnH',
  'lWu2/a1gB9JW5TBQ+AVpum9Okx7KfqkfBKL9mcHgSL0yWMdjMfNOqNtrQqKlN4kE',
  'p6RtXLjD2fKHnmaC9Ww8Nj0Oq1pVq3S5Vv2fMSJFDq9qpHbz5jGcIo4vPyqcH1vR',
].join('\n');

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** The bytes of `text` as two-digit hex numbers. */
const hexBytes = (text: string) =>
  [...Buffer.from(text, 'utf8')].map((byte) => byte.toString(16).padStart(2, '0'));

/** RFC 4648 base32 of `text` (as `base32` prints it). */
function base32(text: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of Buffer.from(text, 'utf8')) bits += byte.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5)
    out += alphabet[Number.parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out.padEnd(Math.ceil(out.length / 8) * 8, '=');
}

/** `text` as `hexdump` prints it by default: offset, eight 16-bit little-endian words a line. */
function hexdumpWords(text: string): string {
  const bytes = Buffer.concat([Buffer.from(text, 'utf8'), Buffer.alloc(1)]);
  const lines: string[] = [];
  for (let offset = 0; offset + 1 < bytes.length; offset += 16) {
    const words: string[] = [];
    for (let i = offset; i < Math.min(offset + 16, bytes.length - 1); i += 2)
      words.push(((bytes[i + 1] ?? 0) * 256 + (bytes[i] ?? 0)).toString(16).padStart(4, '0'));
    lines.push(`${offset.toString(16).padStart(7, '0')} ${words.join(' ')}`);
  }
  return lines.join('\n');
}

/** `text` as `xxd` prints it: offset, 16 bytes in groups of two, ASCII column. */
function xxd(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  let out = '';
  for (let offset = 0; offset < bytes.length; offset += 16) {
    const line = [...bytes.subarray(offset, offset + 16)];
    const groups: string[] = [];
    for (let i = 0; i < line.length; i += 2)
      groups.push(
        line
          .slice(i, i + 2)
          .map((byte) => byte.toString(16).padStart(2, '0'))
          .join(''),
      );
    const ascii = line
      .map((byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.'))
      .join('');
    out += `${offset.toString(16).padStart(8, '0')}: ${groups.join(' ').padEnd(39)}  ${ascii}\n`;
  }
  return out;
}

/** Texts with secrets. */
export const leakCases: readonly RedactionCase[] = [
  // Key shapes, found without being told.
  {
    name: 'openai key',
    kind: 'shape',
    text: `Using key ${openaiKey} for the call`,
    leaks: [openaiKey.slice(8)],
    keep: ['Using key', 'for the call'],
  },
  {
    name: 'anthropic key',
    kind: 'shape',
    text: `401 invalid x ${anthropicKey}`,
    leaks: [anthropicKey.slice(7)],
  },
  {
    name: 'github classic token',
    kind: 'shape',
    text: 'remote: ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 denied',
    leaks: ['A1b2C3d4E5f6G7h8I9j0'],
  },
  {
    name: 'github fine-grained token',
    kind: 'shape',
    text: 'token github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
    leaks: ['abcdefghijklmnopqrstuvwxyz'],
  },
  {
    name: 'gitlab token',
    kind: 'shape',
    text: 'GITLAB glpat-xY9zW8vU7tS6rQ5pO4nM',
    leaks: ['xY9zW8vU7tS6rQ5pO4nM'],
  },
  {
    name: 'slack bot token',
    kind: 'shape',
    text: 'slack: xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
    leaks: ['AbCdEfGhIjKlMnOpQrStUvWx'],
  },
  {
    name: 'npm token',
    kind: 'shape',
    text: 'npm_Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56Qr78',
    leaks: ['Ab12Cd34Ef56Gh78Ij90'],
  },
  {
    name: 'hugging face token',
    kind: 'shape',
    text: 'HF says hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 ok',
    leaks: ['AbCdEfGhIjKlMnOpQrSt'],
  },
  {
    name: 'stripe live key',
    kind: 'shape',
    text: 'stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc',
    leaks: ['4eC39HqLyjWDarjtT1zdp7dc'],
  },
  {
    name: 'aws access key id',
    kind: 'shape',
    text: 'AccessKeyId AKIAIOSFODNN7EXAMPLE in use',
    leaks: ['AKIAIOSFODNN7EXAMPLE'],
  },
  {
    name: 'google api key',
    kind: 'shape',
    text: 'maps AIzaSyA1234567890abcdefghijklmnopqrstuv loaded',
    leaks: ['AIzaSyA1234567890abcdefghij'],
  },
  {
    name: 'jwt',
    kind: 'shape',
    text: 'cookie eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    leaks: ['dozjgNryP4J3jVmNHl0w5N'],
  },
  {
    name: 'sendgrid key',
    kind: 'shape',
    text: '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',
    leaks: ['TwL2iGABf9DHoTf-09kqeF8'],
  },
  {
    name: 'password in url',
    kind: 'shape',
    text: 'connecting to postgres://admin:s3cr3t-Passw0rd@db.internal:5432/app',
    leaks: ['s3cr3t-Passw0rd'],
    keep: ['db.internal'],
  },
  {
    name: 'slack webhook',
    kind: 'shape',
    text: 'POST https://hooks.slack.com/services/T0000000/B0000000/XXXXXXXXXXXXXXXXXXXXXXXX',
    leaks: ['XXXXXXXXXXXXXXXXXXXXXXXX'],
  },
  // Secret-named assignments (.env, shell, YAML, JSON, TOML, CLI flags).
  {
    name: 'AWS_SECRET_ACCESS_KEY=',
    kind: 'assignment',
    text: `AWS_SECRET_ACCESS_KEY=${awsSecret}`,
    leaks: [awsSecret.slice(0, 20)],
    keep: ['AWS_SECRET_ACCESS_KEY='],
  },
  {
    name: 'export *_PASSWORD=',
    kind: 'assignment',
    text: 'export POSTGRES_PASSWORD=correct-horse-battery',
    leaks: ['correct-horse-battery'],
  },
  {
    name: 'DB_PASS=',
    kind: 'assignment',
    text: 'DB_HOST=localhost\nDB_PASS=hunter22\nDB_PORT=5432',
    leaks: ['hunter22'],
    keep: ['DB_HOST=localhost', 'DB_PORT=5432'],
  },
  {
    name: 'SECRET_KEY=',
    kind: 'assignment',
    text: "SECRET_KEY='django-insecure-4$k9!x@2z'",
    leaks: ['django-insecure-4$k9!x@2z'],
  },
  {
    name: 'JWT_SECRET=',
    kind: 'assignment',
    text: 'JWT_SECRET=mysupersecretjwtsigningvalue',
    leaks: ['mysupersecretjwtsigningvalue'],
  },
  {
    name: '*_AUTH_TOKEN=',
    kind: 'assignment',
    text: 'NODE_AUTH_TOKEN=abc123def456ghi789',
    leaks: ['abc123def456ghi789'],
  },
  {
    name: 'GITLAB_AUTH_TOKEN= quoted',
    kind: 'assignment',
    text: 'GITLAB_AUTH_TOKEN="xyz-987-qwe-654"',
    leaks: ['xyz-987-qwe-654'],
  },
  {
    name: 'npmrc _authToken',
    kind: 'assignment',
    text: '//registry.npmjs.org/:_authToken=00000000-aaaa-bbbb-cccc-000000000000',
    leaks: ['00000000-aaaa-bbbb-cccc'],
  },
  {
    name: 'json password',
    kind: 'assignment',
    text: '{"user":"bob","password":"p@ss-w0rd!"}',
    leaks: ['p@ss-w0rd!'],
    keep: ['"user":"bob"'],
  },
  {
    name: 'json apiKey',
    kind: 'assignment',
    text: '{ "apiKey": "abcd1234efgh5678" }',
    leaks: ['abcd1234efgh5678'],
  },
  {
    name: 'escaped json client_secret',
    kind: 'assignment',
    text: '{\\"client_secret\\":\\"cs-0a9b8c7d6e5f\\"}',
    leaks: ['cs-0a9b8c7d6e5f'],
  },
  {
    name: 'yaml password',
    kind: 'assignment',
    text: 'database:\n  user: app\n  password: hunter2hunter2\n',
    leaks: ['hunter2hunter2'],
    keep: ['user: app'],
  },
  {
    name: 'toml secret',
    kind: 'assignment',
    text: 'signing_secret = "whs-99-aa-bb-cc"',
    leaks: ['whs-99-aa-bb-cc'],
  },
  {
    name: 'cli --password=',
    kind: 'assignment',
    text: 'mysql --user=root --password=Qwerty!234 db',
    leaks: ['Qwerty!234'],
  },
  {
    name: 'query api_key',
    kind: 'assignment',
    text: 'GET /v1/data?api_key=abcdefghij12&page=2',
    leaks: ['abcdefghij12'],
    keep: ['page=2'],
  },
  {
    name: 'camelCase dbPassword',
    kind: 'assignment',
    text: 'const config = { dbPassword: "pa55word-xyz" };',
    leaks: ['pa55word-xyz'],
  },
  {
    name: 'spring property',
    kind: 'assignment',
    text: 'spring.datasource.password=Sup3rS3cret',
    leaks: ['Sup3rS3cret'],
  },
  {
    name: 'private key env',
    kind: 'assignment',
    text: 'STRIPE_PRIVATE_KEY=rk_prod_abcdefghijklmnopqrstu',
    leaks: ['abcdefghijklmnopqrstu'],
  },
  {
    name: 'azure connection string',
    kind: 'assignment',
    text: 'DefaultEndpointsProtocol=https;AccountName=x;AccountKey=Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA==;',
    leaks: ['Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA'],
  },
  {
    name: 'python environ assignment',
    kind: 'assignment',
    text: 'os.environ["OPENAI_API_KEY"] = "live-key-00112233"',
    leaks: ['live-key-00112233'],
  },
  {
    name: 'xml password tag',
    kind: 'assignment',
    text: '<server><password>letmein-2024</password></server>',
    leaks: ['letmein-2024'],
  },
  {
    name: 'go := secret',
    kind: 'assignment',
    text: 'apiSecret := "go-secret-value-1"',
    leaks: ['go-secret-value-1'],
  },
  // Headers and bearer credentials.
  {
    name: 'Bearer header',
    kind: 'header',
    text: 'Authorization: Bearer abcdef0123456789',
    leaks: ['abcdef0123456789'],
    keep: ['Authorization: Bearer'],
  },
  {
    name: 'lowercase bearer',
    kind: 'header',
    text: 'curl -H "authorization: bearer tok_9f8e7d6c5b4a"',
    leaks: ['tok_9f8e7d6c5b4a'],
  },
  {
    name: 'bare lowercase bearer',
    kind: 'header',
    text: 'sent bearer zyxwvutsrqponmlk to the api',
    leaks: ['zyxwvutsrqponmlk'],
  },
  {
    name: 'basic auth',
    kind: 'header',
    text: 'Authorization: Basic dXNlcjpwYXNzd29yZA==',
    leaks: ['dXNlcjpwYXNzd29yZA'],
  },
  {
    name: 'x-api-key header',
    kind: 'header',
    text: 'x-api-key: 0123456789abcdef',
    leaks: ['0123456789abcdef'],
  },
  {
    name: 'cookie header',
    kind: 'header',
    text: 'Cookie: session=8f14e45fceea167a5a36dedd4bea2543; theme=dark',
    leaks: ['8f14e45fceea167a5a36dedd4bea2543'],
  },
  {
    name: 'github token header',
    kind: 'header',
    text: 'Authorization: token 1234567890abcdef1234567890abcdef12345678',
    leaks: ['1234567890abcdef1234567890'],
  },
  // Private keys: whole, without END (a partial read), body only, PGP, OpenSSH.
  {
    name: 'rsa private key',
    kind: 'private-key',
    text: `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----\nafter`,
    leaks: ['MIIEowIBAAKCAQEA', 'lWu2/a1gB9JW5TBQ'],
    keep: ['after'],
  },
  {
    name: 'pem without END',
    kind: 'private-key',
    text: `head -5 id_rsa\n-----BEGIN PRIVATE KEY-----\n${pemBody}`,
    leaks: ['MIIEowIBAAKCAQEA', 'p6RtXLjD2fKHnmaC'],
  },
  {
    name: 'pem tail without BEGIN',
    kind: 'private-key',
    text: `tail -3 key.pem\n${pemBody}\n-----END PRIVATE KEY-----`,
    leaks: ['lWu2/a1gB9JW5TBQ', 'p6RtXLjD2fKHnmaC'],
  },
  {
    name: 'pem body lines only',
    kind: 'private-key',
    text: `sed -n 2,4p key.pem\n${pemBody}\n`,
    leaks: ['MIIEowIBAAKCAQEA', 'p6RtXLjD2fKHnmaC'],
  },
  {
    name: 'openssh key',
    kind: 'private-key',
    text: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----',
    leaks: ['b3BlbnNzaC1rZXktdjEAAAAABG5v'],
  },
  {
    name: 'pgp private key block',
    kind: 'private-key',
    text: '-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0b4mUBCADXnk1v0c5Qy2x\n=abcd\n-----END PGP PRIVATE KEY BLOCK-----',
    leaks: ['lQOYBF0b4mUBCADXnk1v0c5Qy2x'],
  },
  {
    name: 'encrypted private key',
    kind: 'private-key',
    text: '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkqhkiG9w0BBQ0wQTApBgkqhkiG9w0BBQwwHAQI\n-----END ENCRYPTED PRIVATE KEY-----',
    leaks: ['MIIFHDBOBgkqhkiG9w0BBQ0w'],
  },
  // Known values with no shape at all (configured keys, environment).
  {
    name: 'known env value',
    kind: 'known',
    text: `the test "${plainKey}" failed`,
    leaks: [plainKey],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'known value in a test name',
    kind: 'known',
    text: `✗ connects with ${plainKey} (12 ms)`,
    leaks: [plainKey],
    known: { PAYMENTS_API_KEY: plainKey },
  },
  {
    name: 'known db password',
    kind: 'known',
    text: `psql: FATAL password "${dbPassword}" rejected`,
    leaks: [dbPassword],
    known: { PGPASSWORD: dbPassword },
  },
  {
    name: 'known value in a stack trace',
    kind: 'known',
    text: `Error: bad credentials ${plainKey}\n    at main (index.js:1:1)`,
    leaks: [plainKey],
    keep: ['at main'],
    known: { ACME_SECRET: plainKey },
  },
  // Encoded forms of known values.
  {
    name: 'base64 of a known value',
    kind: 'encoded',
    text: `echo ${b64(plainKey)}`,
    leaks: [b64(plainKey).slice(0, 24)],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'base64 at offset 1',
    kind: 'encoded',
    text: `blob ${b64(`x${plainKey}`)}`,
    leaks: [b64(`x${plainKey}`).slice(4, 28)],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'base64 at offset 2',
    kind: 'encoded',
    text: `blob ${b64(`xy:${plainKey}:z`)}`,
    leaks: [b64(`xy:${plainKey}:z`).slice(8, 28)],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'base64 of user:key',
    kind: 'encoded',
    text: `Basic-ish ${b64(`api:${plainKey}`)}`,
    leaks: [b64(`api:${plainKey}`).slice(8, 28)],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'url-encoded known value',
    kind: 'encoded',
    text: `?k=${encodeURIComponent(dbPassword)}`,
    leaks: [encodeURIComponent(dbPassword)],
    known: { PGPASSWORD: dbPassword },
  },
  {
    name: 'hex of known value',
    kind: 'encoded',
    text: `dump ${Buffer.from(plainKey).toString('hex')}`,
    leaks: [Buffer.from(plainKey).toString('hex').slice(0, 24)],
    known: { SERVICE_TOKEN: plainKey },
  },
  // Hex and percent-encoding are case-insensitive: tools print either case.
  {
    name: 'upper-case hex of known value',
    kind: 'encoded',
    text: `dump ${Buffer.from(openaiKey).toString('hex').toUpperCase()}`,
    leaks: pieces(Buffer.from(openaiKey).toString('hex').toUpperCase(), 8),
    known: { OPENAI_API_KEY: openaiKey },
  },
  {
    name: 'lower-case url-encoded known value',
    kind: 'encoded',
    text: `?k=${encodeURIComponent(slashPassword).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())}`,
    leaks: pieces(
      encodeURIComponent(slashPassword).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
      8,
    ),
    known: { PGPASSWORD: slashPassword },
  },
  {
    name: 'every byte of a known value percent-encoded',
    kind: 'encoded',
    text: `u=${[...Buffer.from(plainKey)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`,
    leaks: [
      [...Buffer.from(plainKey)]
        .map((b) => `%${b.toString(16).padStart(2, '0')}`)
        .join('')
        .slice(30, 60),
    ],
    known: { SERVICE_TOKEN: plainKey },
  },
  // Transformations a hostile command makes to get a known value past a plain scan.
  {
    name: 'known value with a space after every character',
    kind: 'encoded',
    text: `echo: ${[...plainKey].join(' ')}`,
    leaks: pieces([...plainKey].join(' '), 9),
    keep: ['echo:'],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'known value one character a line',
    kind: 'split',
    text: `${[...plainKey].join('\n')}\ndone`,
    leaks: pieces([...plainKey].join('\n'), 9),
    keep: ['done'],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'known value reversed, and in upper case',
    kind: 'encoded',
    text: `${[...plainKey].reverse().join('')} / ${plainKey.toUpperCase()}`,
    leaks: [...pieces([...plainKey].reverse().join(''), 8), ...pieces(plainKey.toUpperCase(), 8)],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'base32 of a known value in lower case',
    kind: 'encoded',
    text: `b32 ${base32(plainKey).toLowerCase()}`,
    leaks: pieces(base32(plainKey).toLowerCase(), 10),
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'hexdump (16-bit little-endian words) of a known value',
    kind: 'encoded',
    text: hexdumpWords(`#${plainKey}\n`),
    leaks: pieces(hexdumpWords(`#${plainKey}\n`).split('\n')[0]?.slice(8) ?? '', 10),
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'gzip | base64 of a known value',
    kind: 'encoded',
    text: `H4sI blob: ${gzipSync(Buffer.from(`token=${plainKey}\n`)).toString('base64')}`,
    leaks: [
      gzipSync(Buffer.from(`token=${plainKey}\n`))
        .toString('base64')
        .slice(20),
    ],
    keep: ['blob:'],
    known: { SERVICE_TOKEN: plainKey },
  },
  // Byte dumps: one token per byte, a separator between, wrapped in lines by dump tools.
  {
    name: 'hex bytes of a known value, colon-separated',
    kind: 'encoded',
    text: `peer key ${hexBytes(plainKey).join(':')} accepted`,
    leaks: pieces(hexBytes(plainKey).join(':'), 9),
    keep: ['peer key', 'accepted'],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'hex escapes of a known value, upper case',
    kind: 'encoded',
    text: `b"${hexBytes(plainKey)
      .map((pair) => `\\x${pair.toUpperCase()}`)
      .join('')}"`,
    leaks: pieces(
      hexBytes(plainKey)
        .map((pair) => `\\x${pair.toUpperCase()}`)
        .join(''),
      12,
    ),
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'xxd dump of a known value, wrapped over lines',
    kind: 'encoded',
    text: xxd(`token: ${openaiKey}\n`),
    // The ASCII column of each line, and the bytes of each line.
    leaks: [
      openaiKey.slice(0, 9),
      openaiKey.slice(9, 25),
      openaiKey.slice(25),
      '6b2d 7072 6f6a',
      '6d34 7638 587a',
      '3973 4235 7948',
    ],
    keep: ['00000000: 746f 6b65 6e3a 20'],
    known: { OPENAI_API_KEY: openaiKey },
  },
  {
    name: 'every byte of a known value percent-encoded, upper case',
    kind: 'encoded',
    text: `u=${[...Buffer.from(plainKey)].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join('')}`,
    leaks: [
      [...Buffer.from(plainKey)]
        .map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`)
        .join('')
        .slice(30, 60),
    ],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'json-escaped known value',
    kind: 'encoded',
    text: JSON.stringify({ note: `said ${dbPassword}` }),
    leaks: [dbPassword],
    known: { PGPASSWORD: dbPassword },
  },
  // Partial reads and split output.
  {
    name: 'partial read of a key line',
    kind: 'partial',
    text: `OPENAI_API_KEY=${openaiKey.slice(0, 22)}`,
    leaks: [openaiKey.slice(8, 22)],
  },
  {
    name: 'head -c of a known key',
    kind: 'partial',
    text: `got ${plainKey.slice(0, 14)}`,
    leaks: [plainKey.slice(0, 14)],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'tail of a known key',
    kind: 'partial',
    text: `…${plainKey.slice(-13)}`,
    leaks: [plainKey.slice(-13)],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'known key split by a newline',
    kind: 'split',
    text: `${plainKey.slice(0, 12)}\n${plainKey.slice(12)}`,
    leaks: [plainKey.slice(0, 12), plainKey.slice(12)],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'known key split by spaces',
    kind: 'split',
    text: `part one: ${openaiKey.slice(0, 18)} part two: ${openaiKey.slice(18)}`,
    leaks: [openaiKey.slice(8, 18), openaiKey.slice(18)],
    known: { OPENAI_API_KEY: openaiKey },
  },
  {
    name: 'known key split across JSON fields',
    kind: 'split',
    text: JSON.stringify({ a: plainKey.slice(0, 12), b: plainKey.slice(12) }),
    leaks: [plainKey.slice(0, 12), plainKey.slice(12)],
    known: { SERVICE_TOKEN: plainKey },
  },
  {
    name: 'shape key split by a line wrap',
    kind: 'split',
    text: `key: ${anthropicKey.slice(0, 30)}\n${anthropicKey.slice(30)}`,
    leaks: [anthropicKey.slice(7, 30)],
  },
];

/** Texts without secrets that must come out exactly as they went in. */
export const cleanTexts: readonly string[] = [
  'export const key = "value"; // see https://example.com/docs and skeleton-loader',
  'const apiKey = process.env.OPENAI_API_KEY;',
  'function login(password: string): boolean { return check(password); }',
  'const token = await getToken();',
  'password?: string;',
  'max_tokens: 1024, temperature: 0.2',
  'SORT_KEY=name\nPRIMARY_KEY=id',
  'The token limit was reached after 12 steps.',
  'Basic usage: run npm test',
  'git log --oneline -n 5 && git status',
  'https://github.com/closedloop-dev/closedloop/blob/main/README.md',
  'HOME=/home/dev PATH=/usr/bin:/bin NODE_ENV=test',
  'PASS src/math.test.ts (3 tests) 12ms',
  'Tests  42 passed (42)',
  'const { secret } = options;',
  'if (!auth) throw new Error("no auth");',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder, on purpose
  'password: ${DB_PASSWORD}',
  'API_KEY=<your-api-key>',
  'SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.1234',
  'sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'commit 9fceb02d0ae598e95dc970b74767f19372d61af8',
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk',
  'const tokens = tokenize(text); tokenCount = tokens.length;',
  'secretsManager.getSecretValue({ SecretId: name })',
  // Spaced-out words, dumps and compressed blobs of ordinary text.
  'W A R N I N G :   t h e   b u i l d   i s   s l o w',
  '0000000 6568 6c6c 206f 6f77 6c72 2c64 6e20 746f\n0000010 6968 676e 7320 6365 6572 2074 6568 6572',
  'H4sIAAAAAAAAA8tIzcnJVyjPL8pJUQQAlQYXNgwAAAA=',
];
