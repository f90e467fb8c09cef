import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRedactor, isSecretEnvName } from './create-redactor';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createToolRegistry } from './create-tool-registry';
import { defineTool } from './define-tool';
import type { ToolContext } from './tool';
import { workspaceTools } from './workspace-tools';

const context = (): ToolContext => ({ signal: new AbortController().signal, callId: 'c' });

describe('isSecretEnvName', () => {
  it.each([
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GITHUB_TOKEN',
    'NPM_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'DB_PASSWORD',
    'PASSWORD',
    'SMTP_PASS',
    'STRIPE_SECRET',
    'SENTRY_DSN',
    'MYAPIKEY',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'SESSION_COOKIE',
  ])('flags %s', (name) => {
    expect(isSecretEnvName(name)).toBe(true);
  });

  it.each(['PATH', 'HOME', 'PWD', 'LANG', 'NODE_ENV', 'KEYBOARD_LAYOUT', 'SHELL', 'TERM_SESSION_ID'])(
    'does not flag %s',
    (name) => {
      expect(isSecretEnvName(name)).toBe(false);
    },
  );
});

describe('createRedactor', () => {
  it('replaces values of secret-named variables with their name, longest first', () => {
    const redactor = createRedactor({
      env: {
        OPENAI_API_KEY: 'abcdefgh12345678',
        LONGER_TOKEN: 'abcdefgh12345678-and-more',
        SHORT_TOKEN: 'abc',
        HOME: '/home/someone',
      },
    });
    expect(redactor.knownSecretCount).toBe(2);
    expect(redactor.redact('k=abcdefgh12345678 l=abcdefgh12345678-and-more')).toBe(
      'k=[REDACTED:OPENAI_API_KEY] l=[REDACTED:LONGER_TOKEN]',
    );
    expect(redactor.redact('short abc stays, /home/someone stays')).toBe(
      'short abc stays, /home/someone stays',
    );
  });

  it('redacts extra values and escapes regex characters in them', () => {
    const redactor = createRedactor({ env: {}, extra: ['p4ss.w0rd+(x)', 'tiny'] });
    expect(redactor.redact('login p4ss.w0rd+(x) and p4ssAw0rd+(x) tiny')).toBe(
      'login [REDACTED] and p4ssAw0rd+(x) tiny',
    );
  });

  it.each([
    ['sk-proj-abcdefghijklmnop1234567890', 'sk-proj'],
    ['sk-ant-api03-abcdefghijklmnopqrstuv', 'sk-ant'],
    ['ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'ghp_'],
    ['github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstu', 'github_pat'],
    ['AKIAIOSFODNN7EXAMPLE', 'AKIA'],
    ['AIzaSyA1234567890abcdefghijklmnopqrstuv', 'AIza'],
    ['xoxb-123456789012-abcdefghijkl', 'xoxb'],
    ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'eyJ'],
    ['Authorization: Bearer abcdef0123456789', 'abcdef0123456789'],
    ['postgres://admin:hunter2hunter2@db.example.com/app', 'hunter2'],
    ['{"apiKey": "abcd1234efgh5678"}', 'abcd1234efgh5678'],
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----', 'MIIEow'],
  ])('redacts the key-shaped string in %j', (text, fragment) => {
    const out = createRedactor({ env: {} }).redact(`before ${text} after`);
    expect(out).not.toContain(fragment);
    expect(out).toContain('REDACTED');
    expect(out.startsWith('before ')).toBe(true);
  });

  it('leaves ordinary text alone', () => {
    const text = 'export const key = "value"; // see https://example.com/docs and skeleton-loader';
    expect(createRedactor({ env: {} }).redact(text)).toBe(text);
  });

  it('defaults to process.env', () => {
    process.env.CLOSEDLOOP_REDACT_TEST_TOKEN = 'canary-from-process-env';
    try {
      expect(createRedactor().redact('x canary-from-process-env y')).toBe(
        'x [REDACTED:CLOSEDLOOP_REDACT_TEST_TOKEN] y',
      );
    } finally {
      delete process.env.CLOSEDLOOP_REDACT_TEST_TOKEN;
    }
  });
});

describe('redaction through the registry and workspace tools', () => {
  const canary = 'canary-Zq8vX2mN4pL7';
  let ws: TempWorkspace;

  beforeEach(async () => {
    ws = await createTempWorkspace({
      files: {
        '.env': `SERVICE_TOKEN=${canary}\n`,
        'print.cjs': `console.log(require("fs").readFileSync(".env", "utf8")); console.error("${canary}");\n`,
      },
    });
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('redacts a secret in a file read, in command output and in an error message', async () => {
    const redactor = createRedactor({ env: { SERVICE_TOKEN: canary } });
    const failing = defineTool({
      name: 'connect',
      description: 'x',
      input: z.object({}),
      execute: () => {
        throw new Error(`authentication failed for token ${canary}`);
      },
    });
    const registry = createToolRegistry([...workspaceTools({ root: ws.root }), failing], { redactor });

    const read = await registry.execute('read_file', { path: '.env' }, context());
    expect(read.status).toBe('success');
    expect(read.text).toBe('SERVICE_TOKEN=[REDACTED:SERVICE_TOKEN]\n');
    expect(JSON.stringify(read)).not.toContain(canary);

    const command = await registry.execute('run_command', { argv: ['node', 'print.cjs'] }, context());
    expect(command.status).toBe('success');
    expect(command.text).toContain('[REDACTED:SERVICE_TOKEN]');
    expect(JSON.stringify(command)).not.toContain(canary);

    const cat = await registry.execute('run_command', { argv: ['cat', '.env'] }, context());
    expect(JSON.stringify(cat)).not.toContain(canary);

    const error = await registry.execute('connect', {}, context());
    expect(error).toMatchObject({ status: 'error', code: 'execution-failed' });
    expect(error.text).toContain('[REDACTED:SERVICE_TOKEN]');
    expect(JSON.stringify(error)).not.toContain(canary);

    const missing = await registry.execute('read_file', { path: `${canary}.txt` }, context());
    expect(JSON.stringify(missing)).not.toContain(canary);
  });

  it('sends the secret unredacted only when redaction is turned off', async () => {
    const registry = createToolRegistry(workspaceTools({ root: ws.root }), { redactor: false });
    expect((await registry.execute('read_file', { path: '.env' }, context())).text).toContain(canary);
  });
});
