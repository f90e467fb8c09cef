import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createCommandRunner, defaultAllowedPrograms } from '@closedloop/tools';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from '../__fixtures__/temp-workspaces';
import { createProtocolContext } from '../protocol';
import { runCommand } from '../run-command';
import { runProtocols } from '../run-protocols';
import { syntaxProtocol } from './static-protocols';
import { checkSyntax, type SyntaxCommandRunner, syntaxErrors } from './syntax-check';

const workspace = useTempWorkspaces({ git: true });

// The corpus: files stored as `<name>.<ext>.txt` so the repo's own linters and compilers skip them.
const corpusFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), '../__fixtures__/syntax');
const corpus = (kind: 'valid' | 'broken') =>
  Object.fromEntries(
    readdirSync(path.join(corpusFolder, kind)).map((entry) => [
      entry.replace(/\.txt$/, ''),
      readFileSync(path.join(corpusFolder, kind, entry), 'utf8'),
    ]),
  );
const valid = corpus('valid');
const broken = corpus('broken');

/** Languages whose toolchain is always at hand here: the TypeScript peer, python3, JSON.parse. */
const ALWAYS_CONFIRMED = /\.(?:[cm]?[jt]sx?|py|json)$/;

const runIn =
  (root: string): SyntaxCommandRunner =>
  (argv, options) =>
    runCommand({ argv, cwd: root, ...options });

describe('checkSyntax on the corpus', { timeout: 120_000 }, () => {
  it('never fails valid modern syntax, including syntax the grammars do not know', async () => {
    const ws = await workspace(valid);
    for (const [file, text] of Object.entries(valid)) {
      const check = await checkSyntax(file, text, { run: runIn(ws.root) });
      expect({ file, status: check.status }).not.toEqual({ file, status: 'invalid' });
      if (ALWAYS_CONFIRMED.test(file)) expect({ file, ...check }).toMatchObject({ file, status: 'valid' });
    }
  });

  it('never passes broken files; their own toolchain confirms the errors', async () => {
    const ws = await workspace(broken);
    for (const [file, text] of Object.entries(broken)) {
      const check = await checkSyntax(file, text, { run: runIn(ws.root) });
      expect({ file, status: check.status }).not.toEqual({ file, status: 'valid' });
      expect(check.errors.length).toBeGreaterThan(0);
      if (ALWAYS_CONFIRMED.test(file)) expect({ file, ...check }).toMatchObject({ file, status: 'invalid' });
    }
  });

  it('with no toolchain, grammar errors are unconfirmed: never invalid, never valid', async () => {
    for (const [file, text] of Object.entries(valid)) {
      const check = await checkSyntax(file, text, { typescript: null, run: null });
      expect(['valid', 'unconfirmed']).toContain(check.status);
    }
    // The known gaps of the grammars, each alone.
    const gaps: Record<string, string> = {
      'module.ts': 'declare module "x" {\n  export const y: number;\n}\n',
      'attributes.mjs': 'import data from "./d.json" with { type: "json" };\n',
      'types.ts': 'export type * from "./types";\n',
      'inline.ts': 'export { type A, b };\n',
      'with.py': 'with (open("a") as a, open("b") as b):\n    pass\n',
      'Switch.java':
        'class S { int f(Object o) { return switch (o) { case Integer i -> i; default -> 0; }; } }\n',
    };
    for (const [file, text] of Object.entries(gaps)) {
      const check = await checkSyntax(file, text, { typescript: null, run: null });
      expect({ file, status: check.status }).toEqual({ file, status: 'unconfirmed' });
      expect(check.reason).toBeTruthy();
    }
    for (const [file, text] of Object.entries(broken)) {
      if (file.endsWith('.json')) continue;
      expect((await checkSyntax(file, text, { typescript: null, run: null })).status).toBe('unconfirmed');
    }
    const off = { typescript: null, run: null };
    expect(await syntaxErrors('module.ts', gaps['module.ts'] ?? '', off)).toBeUndefined();
    expect(await syntaxErrors('a.zig', 'whatever')).toBeUndefined();
    expect(await syntaxErrors('a.py', 'x = "def ghost(:"\n')).toEqual([]);
  });
});

describe('checkSyntax toolchains', { timeout: 120_000 }, () => {
  it('confirms JavaScript with node --check (module or CommonJS) when TypeScript is absent', async () => {
    const files = {
      'modern.mjs': valid['modern.mjs'] ?? '',
      'common.cjs': 'module.exports = 1;\nreturn;\n',
      'stray.cjs': broken['stray.cjs'] ?? '',
    };
    const ws = await workspace(files);
    const options = { typescript: null, run: runIn(ws.root) };
    expect(await checkSyntax('modern.mjs', files['modern.mjs'], options)).toMatchObject({
      status: 'valid',
      checkedBy: 'node --check',
    });
    expect(await checkSyntax('stray.cjs', files['stray.cjs'], options)).toMatchObject({
      status: 'invalid',
      errors: [expect.stringMatching(/^2:\d+ SyntaxError: Unexpected token/)],
    });
  });

  it("confirms TypeScript and JSX with the workspace's tsc when the peer is absent", async () => {
    const files = {
      'declarations.ts': valid['declarations.ts'] ?? '',
      'component.jsx': broken['component.jsx'] ?? '',
    };
    const ws = await workspace(files);
    const options = { typescript: null, run: runIn(ws.root) };
    const declarations = await checkSyntax('declarations.ts', files['declarations.ts'], options);
    // On failure, say why tsc could not judge (e.g. it timed out on a loaded machine).
    expect(declarations, declarations.reason).toMatchObject({ status: 'valid', checkedBy: 'tsc' });
    const component = await checkSyntax('component.jsx', files['component.jsx'], options);
    expect(component, component.reason).toMatchObject({
      status: 'invalid',
      checkedBy: 'tsc',
      errors: expect.arrayContaining([expect.stringMatching(/\(TS1\d{3}\)$/)]),
    });
  });

  it('confirms Python with py_compile, imports no workspace module and leaves no bytecode', async () => {
    const files = {
      'modern.py': valid['modern.py'] ?? '',
      'missing-colon.py': broken['missing-colon.py'] ?? '',
      // A module shadowing the standard one must never be imported.
      'py_compile.py': 'open("imported-from-workspace", "w").close()\n',
    };
    const ws = await workspace(files);
    expect(await checkSyntax('modern.py', files['modern.py'], { run: runIn(ws.root) })).toMatchObject({
      status: 'valid',
      checkedBy: 'python3 -m py_compile',
    });
    expect(
      await checkSyntax('missing-colon.py', files['missing-colon.py'], { run: runIn(ws.root) }),
    ).toMatchObject({ status: 'invalid', errors: ["1 SyntaxError: expected ':'"] });
    expect(existsSync(path.join(ws.root, '__pycache__'))).toBe(false);
    expect(existsSync(path.join(ws.root, 'imported-from-workspace'))).toBe(false);
  });

  it("gives py_compile a bytecode folder of each check's own, outside the workspace, removed after", async () => {
    // A folder shared between checks (`/tmp/closedloop-pycache`) could hold a forged bytecode of
    // `py_compile` itself, planted by anyone who can write the temporary folder.
    const ws = await workspace({ 'bad.py': broken['missing-colon.py'] ?? '' });
    const prefixes: string[] = [];
    const run: SyntaxCommandRunner = async (argv, options) => {
      prefixes.push(options?.env?.PYTHONPYCACHEPREFIX ?? '');
      return runIn(ws.root)(argv, options);
    };
    for (let check = 0; check < 2; check++)
      expect(await checkSyntax('bad.py', broken['missing-colon.py'] ?? '', { run })).toMatchObject({
        status: 'invalid',
      });
    expect(prefixes).toHaveLength(2);
    expect(new Set(prefixes).size).toBe(2);
    for (const prefix of prefixes) {
      expect(path.isAbsolute(prefix) && !prefix.startsWith(ws.root)).toBe(true);
      expect(existsSync(prefix)).toBe(false);
    }
  });

  it('without a workspace, runs the toolchain in a private folder holding only the file', async () => {
    expect(await syntaxErrors('src/bad.py', broken['missing-colon.py'] ?? '')).toEqual([
      "1 SyntaxError: expected ':'",
    ]);
    expect(await checkSyntax('with.py', valid['modern.py'] ?? '')).toMatchObject({ status: 'valid' });
    expect(await checkSyntax('stray.cjs', broken['stray.cjs'] ?? '', { typescript: null })).toMatchObject({
      status: 'invalid',
      checkedBy: 'node --check',
    });
  });

  it('confirms Java with javac stopped after parsing and Rust with rustfmt (parse-only forms of the default policy)', async () => {
    const files = {
      'Broken.java': broken['Broken.java'] ?? '',
      'Modern.java': valid['Modern.java'] ?? '',
      'Legacy.java': 'class Legacy { int f(int x) { return switch (x) { case 1 -> 2; default -> 0; }; } }\n',
    };
    const ws = await workspace(files);
    // A policy that does not run javac leaves the grammar's errors unconfirmed.
    const strict = createCommandRunner({
      root: ws.root,
      policy: { allow: defaultAllowedPrograms.filter((program) => program !== 'javac') },
    });
    const refused = await checkSyntax('Broken.java', files['Broken.java'], {
      run: (argv, options) => runCommand({ argv, cwd: ws.root, runner: strict, ...options }),
    });
    expect(refused).toMatchObject({ status: 'unconfirmed' });
    expect(refused.reason).toMatch(/javac was refused by the command policy/);
    // The default policy runs their parse-only forms: they decide.
    const runner = createCommandRunner({ root: ws.root });
    const run: SyntaxCommandRunner = (argv, options) =>
      runCommand({ argv, cwd: ws.root, runner, ...options });
    expect(await checkSyntax('Broken.java', files['Broken.java'], { run })).toMatchObject({
      status: 'invalid',
      checkedBy: 'javac',
      errors: ["2 ',', ')', or '[' expected"],
    });
    // A switch expression (Java 14) the grammar does not know; javac knows it.
    expect(await checkSyntax('Legacy.java', files['Legacy.java'], { run })).toMatchObject({
      status: 'valid',
      checkedBy: 'javac',
    });
    // Java 21 patterns: a JDK older than that gives no verdict rather than a false failure.
    const modern = await checkSyntax('Modern.java', files['Modern.java'], { run });
    expect(modern.status === 'valid' || /older than this syntax/.test(modern.reason ?? '')).toBe(true);
    expect(readdirSync(ws.root).filter((file) => file.endsWith('.class'))).toEqual([]);

    const rust2015 = 'fn f() -> u8 { let async = 1; async }\n';
    expect(await checkSyntax('old.rs', rust2015, { run })).toMatchObject({
      status: 'valid',
      checkedBy: 'rustfmt (edition 2015)',
    });
    expect(await checkSyntax('bad.rs', broken['missing-paren.rs'] ?? '', { run })).toMatchObject({
      status: 'invalid',
      checkedBy: 'rustfmt',
    });
  });

  it('says why nothing could confirm: a missing toolchain is a reason, not a verdict', async () => {
    const ws = await workspace({});
    const check = await checkSyntax('a.go', broken['unclosed.go'] ?? '', {
      run: (argv, options) => runIn(ws.root)(['closedloop-no-such-tool', ...argv.slice(1)], options),
    });
    expect(check).toMatchObject({ status: 'unconfirmed', errors: ['5:1 unexpected end of file'] });
    expect(check.reason).toMatch(/gofmt/);
  });
});

describe('SYNTAX protocol on the corpus', { timeout: 120_000 }, () => {
  it('passes a change made of valid modern files', async () => {
    const ws = await workspace({ 'README.md': 'corpus\n' });
    for (const [file, text] of Object.entries(valid)) await ws.write(file, text);
    const { findings } = await runProtocols([syntaxProtocol], createProtocolContext({ workspace: ws.root }));
    expect(findings.filter((finding) => finding.status === 'fail')).toEqual([]);
    for (const finding of findings) {
      if (finding.status === 'error') expect(finding.message).toMatch(/no toolchain could confirm/);
      else expect(finding.status).toBe('pass');
    }
  });

  it('fails every broken file whose toolchain confirms, and never passes the others', async () => {
    const ws = await workspace({ 'README.md': 'corpus\n' });
    for (const [file, text] of Object.entries(broken)) await ws.write(file, text);
    const { findings } = await runProtocols([syntaxProtocol], createProtocolContext({ workspace: ws.root }));
    const byFile = new Map(findings.map((finding) => [finding.evidence?.file, finding]));
    for (const file of Object.keys(broken)) {
      const finding = byFile.get(file);
      expect({ file, status: finding?.status }).toMatchObject({
        file,
        status: ALWAYS_CONFIRMED.test(file) ? 'fail' : expect.stringMatching(/^(?:fail|error)$/),
      });
      expect(finding?.priority).toBe('P0');
    }
  });
});
