import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CommandRunner, createCommandRunner } from '@closedloop/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempWorkspaces } from '../__fixtures__/temp-workspaces';
import { createProtocolContext } from '../protocol';
import { runProtocols } from '../run-protocols';
import { findDangerousCode } from './dangerous-code';
import { parseAuditOutput } from './dependency-audit';
import { findSecrets } from './find-secrets';
import { securityScanProtocol } from './security-scan-protocol';

const workspace = useTempWorkspaces({ git: true });
const scan = async (root: string, runner?: CommandRunner) =>
  (
    await runProtocols(
      [securityScanProtocol],
      createProtocolContext({ workspace: root, ...(runner ? { runner } : {}) }),
    )
  ).findings;
/** The audit reaches the (loopback) registry only when the command sandbox lets it on the network. */
const online = (root: string) => createCommandRunner({ root, sandbox: { network: true } });
const lines = (text: string) => text.split('\n').map((line, index) => ({ line, number: index + 1 }));

// Key-shaped values assembled at run time, so this file holds no secret-looking literal.
const OPENAI_KEY = ['sk', 'proj', 'Q7w9Zr2Lm4Xp8Vt6Ns3Kd1Hf5Jb0Gc'].join('-');
const GITHUB_TOKEN = ['ghp', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join('_');
const PRIVATE = 'PRIVATE';
const PEM = [
  `-----BEGIN RSA ${PRIVATE} KEY-----`,
  'MIIEowIBAAKCAQEA7abcDEF123',
  `-----END RSA ${PRIVATE} KEY-----`,
];

describe('findSecrets (the product redactor as the one source of patterns)', () => {
  it('finds keys, tokens, private keys and password assignments', () => {
    const text = [
      `const client = new OpenAI({ apiKey: "${OPENAI_KEY}" });`,
      `GITHUB_TOKEN=${GITHUB_TOKEN}`,
      'DATABASE_URL=postgres://admin:Tr0ub4dor3x@db.internal:5432/app',
      'password = "Xk82!mQz0pLw"',
      ...PEM,
    ].join('\n');
    const hits = findSecrets('src/config.ts', lines(text));
    expect(hits.map((hit) => [hit.line, hit.kind])).toEqual([
      [1, 'key, token or password'],
      [2, 'key, token or password'],
      [3, 'key, token or password'],
      [4, 'key, token or password'],
      [5, 'private key'],
    ]);
    expect(hits.every((hit) => !hit.redacted.includes(OPENAI_KEY))).toBe(true);
  });

  it('ignores placeholders and values read from the environment', () => {
    const text = [
      'password = os.environ["DB_PASSWORD"]',
      'const apiKey = process.env.OPENAI_API_KEY;',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell-style placeholder under test
      'api_key: ${OPENAI_API_KEY}',
      'token = "<your-token-here>"',
      'secret = "xxxxxxxxxxxx"',
      'api_key = get_api_key_from_vault(name)',
      'Authorization: Bearer $TOKEN',
    ].join('\n');
    expect(findSecrets('src/settings.py', lines(text))).toEqual([]);
  });
});

describe('findDangerousCode (syntax trees, added lines only)', () => {
  it.each([
    ['app.js', "const { exec } = require('child_process');\nexec('ls ' + dir);\n", 'shell-injection', 2],
    ['app.ts', 'const run = (code: string) => eval(code);\n', 'code-execution', 1],
    ['app.ts', 'const f = new Function("a", body);\n', 'code-execution', 1],
    ['tls.js', 'https.request({ host, rejectUnauthorized: false });\n', 'tls-disabled', 1],
    ['env.js', "process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';\n", 'tls-disabled', 1],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source under test
    ['db.js', 'db.query(`SELECT * FROM users WHERE id = ${id}`);\n', 'sql-injection', 1],
    ['db.ts', "await db.query('SELECT * FROM users WHERE name = \\'' + name + '\\'');\n", 'sql-injection', 1],
    ['app.py', 'import subprocess\nsubprocess.run(cmd, shell=True)\n', 'shell-injection', 2],
    ['app.py', 'import os\nos.system("rm " + path)\n', 'shell-injection', 2],
    ['app.py', 'result = eval(user_input)\n', 'code-execution', 1],
    ['app.py', 'requests.get(url, verify=False)\n', 'tls-disabled', 1],
    ['app.py', 'cur.execute(f"SELECT * FROM t WHERE id = {item_id}")\n', 'sql-injection', 1],
    ['app.py', 'cur.execute("DELETE FROM t WHERE id = %s" % item_id)\n', 'sql-injection', 1],
    ['main.go', 'package main\nvar c = &tls.Config{InsecureSkipVerify: true}\n', 'tls-disabled', 2],
    [
      'main.go',
      'package main\nfunc f() { db.Query("SELECT * FROM t WHERE id=" + id) }\n',
      'sql-injection',
      2,
    ],
    ['main.go', 'package main\nfunc f() { exec.Command("sh", "-c", userCmd) }\n', 'shell-injection', 2],
    ['Main.java', 'class M { void m() { Runtime.getRuntime().exec(cmd); } }\n', 'shell-injection', 1],
    [
      'Main.java',
      'class M { void m() { st.executeQuery("SELECT * FROM t WHERE id=" + id); } }\n',
      'sql-injection',
      1,
    ],
    ['lib.rs', 'fn c() { Client::builder().danger_accept_invalid_certs(true); }\n', 'tls-disabled', 1],
    ['deploy.sh', 'cleanup() {\n  rm -rf / \n}\n', 'destructive-command', 2],
    ['package.json', '{ "scripts": { "clean": "rm -rf ~/" } }\n', 'destructive-command', 1],
  ])('flags %s: %s', async (file, text, rule, line) => {
    const hits = await findDangerousCode(file, text, lines(text));
    expect(hits).toContainEqual(expect.objectContaining({ rule, line }));
  });

  it.each([
    ['app.js', "// eval(code) was removed\nconst s = 'eval(code)';\n"],
    ['app.js', "const { exec } = require('child_process');\nexec('ls -la');\n"],
    ['app.py', '# os.system(cmd)\ntext = "subprocess.run(cmd, shell=True)"\n'],
    ['app.py', 'cur.execute("SELECT * FROM t WHERE id = %s", (item_id,))\n'],
    ['db.js', "db.query('SELECT * FROM users WHERE id = $1', [id]);\n"],
    ['app.ts', 'const m = /a+/.exec(input);\n'],
    ['clean.sh', '# never: rm -rf /\nrm -rf ./build/\n'],
    ['README.md', 'Do not run `rm -rf /`.\n'],
  ])('does not flag %s: %s', async (file, text) => {
    expect(await findDangerousCode(file, text, lines(text))).toEqual([]);
  });

  it('only looks at the lines the change added', async () => {
    const text = 'result = eval(user_input)\nvalue = 1\n';
    expect(await findDangerousCode('a.py', text, [{ line: 'value = 1', number: 2 }])).toEqual([]);
  });
});

describe('SECURITY_SCAN protocol', { timeout: 60_000 }, () => {
  it('fails (P1) a change that writes a secret or dangerous code, and only for what it added', async () => {
    const ws = await workspace({ 'src/old.py': 'legacy = eval(x)\n', 'README.md': 'r\n' });
    await ws.write('src/old.py', 'legacy = eval(x)\nvalue = 2\n');
    await ws.write('src/client.ts', `export const client = new OpenAI({ apiKey: "${OPENAI_KEY}" });\n`);
    await ws.write('test/fixtures.ts', `export const fakeToken = "${GITHUB_TOKEN}";\n`);
    await ws.write('scripts/tls.js', 'https.get(url, { rejectUnauthorized: false });\n');
    const findings = await scan(ws.root);
    expect(findings.map((finding) => [finding.status, finding.priority, finding.evidence?.file])).toEqual([
      ['fail', 'P1', 'scripts/tls.js'],
      ['fail', 'P1', 'src/client.ts'],
      ['warn', 'P2', 'test/fixtures.ts'],
    ]);
    expect(JSON.stringify(findings)).not.toContain(OPENAI_KEY);
  });

  it('passes a clean change and skips when nothing changed and there is no lockfile', async () => {
    const ws = await workspace({ 'a.ts': 'export {};\n' });
    expect((await scan(ws.root))[0]?.status).toBe('skip');
    await ws.write('b.ts', 'export const b = (x: number) => x + 1;\n');
    expect(await scan(ws.root)).toEqual([
      expect.objectContaining({ status: 'pass', check: 'SECURITY_SCAN' }),
    ]);
  });
});

describe('dependency audit (real npm against a loopback registry)', { timeout: 60_000 }, () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });
  const registry = async (advisories: unknown): Promise<string> => {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if (request.method === 'POST' && request.url?.includes('/-/npm/v1/security/advisories/bulk')) {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(advisories));
        } else {
          response.writeHead(404).end();
        }
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  };
  const npmProject = (registryUrl: string) => ({
    '.npmrc': `registry=${registryUrl}\n`,
    'package.json': '{ "name": "app", "version": "1.0.0", "dependencies": {} }\n',
    'package-lock.json': JSON.stringify({
      name: 'app',
      version: '1.0.0',
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name: 'app', version: '1.0.0', dependencies: {} } },
    }),
  });
  const addLodash = async (ws: Awaited<ReturnType<typeof workspace>>) => {
    await ws.write(
      'package.json',
      '{ "name": "app", "version": "1.0.0", "dependencies": { "lodash": "4.17.15" } }\n',
    );
    await ws.write(
      'package-lock.json',
      JSON.stringify({
        name: 'app',
        version: '1.0.0',
        lockfileVersion: 3,
        requires: true,
        packages: {
          '': { name: 'app', version: '1.0.0', dependencies: { lodash: '4.17.15' } },
          'node_modules/lodash': {
            version: '4.17.15',
            resolved: 'https://registry.npmjs.org/lodash/-/lodash-4.17.15.tgz',
          },
        },
      }),
    );
  };
  const LODASH_ADVISORY = {
    lodash: [
      {
        id: 1523,
        url: 'https://github.com/advisories/GHSA-p6mc-m468-83gw',
        title: 'Prototype Pollution in lodash',
        severity: 'high',
        vulnerable_versions: '>=3.7.0 <4.17.19',
        cwe: ['CWE-1321'],
        cvss: { score: 7.4, vectorString: 'CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:H/A:H' },
      },
    ],
  };

  it('fails (P1) a dependency change that brings a high vulnerability', async () => {
    const ws = await workspace(npmProject(await registry(LODASH_ADVISORY)));
    await addLodash(ws);
    const audit = (await scan(ws.root, online(ws.root))).find((finding) =>
      finding.message.startsWith('Dependency audit'),
    );
    expect(audit?.message).toMatch(/0 critical, 1 high.*lodash \(high\)/);
    expect(audit).toMatchObject({ status: 'fail', priority: 'P1' });
  });

  it('passes when the audit finds nothing', async () => {
    const ws = await workspace(npmProject(await registry({})));
    await addLodash(ws);
    const audit = (await scan(ws.root, online(ws.root))).find((finding) =>
      finding.message.startsWith('Dependency audit'),
    );
    expect(audit?.message).toMatch(/no known vulnerabilities/);
    expect(audit).toMatchObject({ status: 'pass', priority: 'P1' });
  });

  it('is an error, never a pass, when the registry cannot be reached', async () => {
    const closed = await registry({});
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const ws = await workspace(npmProject(closed));
    await addLodash(ws);
    // An outage (outside the sandbox, where the network is not turned off by configuration).
    const unsandboxed = (root: string) => createCommandRunner({ root, sandbox: 'off' });
    const audit = (await scan(ws.root, unsandboxed(ws.root))).find((finding) =>
      finding.message.startsWith('Dependency audit'),
    );
    expect(audit).toMatchObject({ status: 'error', priority: 'P1' });
    expect(audit?.message).toMatch(/could not run: the registry could not be reached/);
    // Dependencies unchanged: the same failure only warns (P2).
    const untouched = await workspace(npmProject(closed));
    await addLodash(untouched);
    await untouched.git('commit', '-qam', 'lodash');
    const warning = (await scan(untouched.root, unsandboxed(untouched.root))).find((finding) =>
      finding.message.startsWith('Dependency audit'),
    );
    expect(warning).toMatchObject({ status: 'error', priority: 'P2' });
  });

  it('warns (P2) when the command sandbox keeps the audit off the network', async () => {
    const ws = await workspace(npmProject(await registry(LODASH_ADVISORY)));
    await addLodash(ws);
    const sandboxed = createCommandRunner({ root: ws.root, sandbox: 'required' });
    const audit = (await scan(ws.root, sandboxed)).find((finding) =>
      finding.message.startsWith('Dependency audit'),
    );
    expect(audit).toMatchObject({ status: 'error', priority: 'P2' });
    expect(audit?.message).toMatch(/out of reach from the command sandbox.*sandbox\.network/);
  });

  it('parses npm, pnpm and yarn audit reports', () => {
    expect(
      parseAuditOutput(
        JSON.stringify({
          vulnerabilities: { a: { severity: 'low' }, b: { severity: 'critical' } },
          metadata: { vulnerabilities: { info: 0, low: 1, moderate: 0, high: 0, critical: 1, total: 2 } },
        }),
      ),
    ).toMatchObject({ counts: { low: 1, critical: 1 }, packages: [{ name: 'b' }, { name: 'a' }] });
    expect(
      parseAuditOutput(
        JSON.stringify({
          advisories: { 1: { module_name: 'x', severity: 'high' } },
          metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 1, critical: 0 } },
        }),
      ),
    ).toMatchObject({ counts: { high: 1 }, packages: [{ name: 'x', severity: 'high' }] });
    expect(
      parseAuditOutput(
        `${JSON.stringify({ type: 'auditAdvisory', data: { advisory: { module_name: 'y', severity: 'moderate' } } })}\n${JSON.stringify({ type: 'auditSummary', data: { vulnerabilities: { info: 0, low: 0, moderate: 1, high: 0, critical: 0 } } })}\n`,
      ),
    ).toMatchObject({ counts: { moderate: 1 }, packages: [{ name: 'y' }] });
    expect(parseAuditOutput('{"error":{"code":"ENOTFOUND"}}')).toBeUndefined();
  });
});
