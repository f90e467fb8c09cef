import type { ToolCallRecord } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from '../__fixtures__/temp-workspaces';
import { createProtocolContext } from '../protocol';
import { runProtocols } from '../run-protocols';
import { errorFreeProtocol, findCrash, syntaxErrors, syntaxProtocol, todoProtocol } from './static-protocols';

const workspace = useTempWorkspaces({ git: true });
const repo = (files: Record<string, string>, git = true) => workspace(files, { git });

describe('SYNTAX', { timeout: 30_000 }, () => {
  it('fails changed files that do not parse, ignores unchanged ones', async () => {
    const ws = await repo({ 'src/old.ts': 'export const broken = ;\n', 'src/a.ts': 'export const a = 1;\n' });
    await ws.write('src/a.ts', 'export function a( {\n');
    await ws.write('data.json', '{"a": 1,}');
    await ws.write('src/ok.tsx', 'export const C = () => <div>hi</div>;\n');
    const { findings } = await runProtocols([syntaxProtocol], createProtocolContext({ workspace: ws.root }));
    expect(findings.map((f) => [f.status, f.evidence?.file])).toEqual([
      ['fail', 'data.json'],
      ['fail', 'src/a.ts'],
    ]);
    expect(findings[0]?.priority).toBe('P0');
  });

  it('passes parsable changes and skips when nothing changed', async () => {
    const ws = await repo({ 'a.ts': 'export {};\n' });
    expect(
      (await runProtocols([syntaxProtocol], createProtocolContext({ workspace: ws.root }))).findings[0]
        ?.status,
    ).toBe('skip');
    await ws.write('b.mjs', 'export const b = async () => await 1;\n');
    expect(
      (await runProtocols([syntaxProtocol], createProtocolContext({ workspace: ws.root }))).findings[0]
        ?.status,
    ).toBe('pass');
    expect(await syntaxErrors('x.ts', 'let = ;')).not.toEqual([]);
  });

  it('parses Python, Go, Rust and Java changes; their toolchains confirm errors', async () => {
    const ws = await repo({ 'README.md': 'r\n' });
    await ws.write('app.py', 'def ok(x):\n    return f"{x!r}"\n');
    await ws.write('bad.py', 'def broken(:\n    pass\n');
    await ws.write('main.go', 'package main\nfunc main() { for i := range 3 { _ = i } }\n');
    await ws.write('lib.rs', 'pub fn f( -> u8 { 1 }\n');
    await ws.write('A.java', 'record P(int x) {}\n');
    await ws.write('notes.zig', 'not parsed at all {{{');
    const { findings } = await runProtocols([syntaxProtocol], createProtocolContext({ workspace: ws.root }));
    expect(findings.map((f) => f.evidence?.file)).toEqual(['bad.py', 'lib.rs']);
    expect(findings[0]).toMatchObject({ status: 'fail', priority: 'P0' });
    expect(findings[0]?.message).toMatch(
      /bad\.py has 1 syntax error\(s\) \(python3 -m py_compile\): 1 SyntaxError/,
    );
    // rustfmt confirms when the command policy lets it run; otherwise the file is unverified.
    expect(findings[1]?.status).toMatch(/^(?:fail|error)$/);
  });

  it('lets the TypeScript parser confirm JS/TS errors when it is installed', async () => {
    // The grammar does not know variance annotations; the compiler does.
    const modern = 'export interface Box<in out T> { value: T }\n';
    expect(await syntaxErrors('m.ts', modern, { typescript: null, run: null })).toBeUndefined();
    expect(await syntaxErrors('m.ts', modern)).toEqual([]);
    expect(await syntaxErrors('m.ts', 'export const = 1;\n')).not.toEqual([]);
    expect(
      await syntaxErrors('m.ts', 'export const = 1;\n', { typescript: null, run: null }),
    ).toBeUndefined();
  });
});

describe('TODO', { timeout: 30_000 }, () => {
  it('warns (P2) only about markers the change added', async () => {
    const ws = await repo({ 'src/a.ts': '// TODO: old debt\nexport const a = 1;\n' });
    await ws.write('src/a.ts', '// TODO: old debt\nexport const a = 2; // FIXME later\n');
    await ws.write('src/new.ts', 'export const b = 1;\n// HACK around it\n');
    const { findings } = await runProtocols([todoProtocol], createProtocolContext({ workspace: ws.root }));
    expect(findings).toEqual([
      expect.objectContaining({
        status: 'warn',
        priority: 'P2',
        message: 'src/a.ts: 1 TODO/FIXME marker(s) added (line 2).',
      }),
      expect.objectContaining({
        status: 'warn',
        message: 'src/new.ts: 1 TODO/FIXME marker(s) added (line 2).',
      }),
    ]);
  });

  it('scans hinted files entirely without git', async () => {
    const ws = await repo({ 'a.js': 'const x = 1; // XXX\n', 'b.js': 'ok\n' }, false);
    const ctx = createProtocolContext({ workspace: ws.root, files: ['a.js', 'b.js'] });
    expect((await runProtocols([todoProtocol], ctx)).findings.map((f) => f.status)).toEqual(['warn']);
  });
});

let at = 0;
const run = (args: unknown, status: ToolCallRecord['status'], result: string): ToolCallRecord => ({
  callId: `c${++at}`,
  generatedId: false,
  tool: 'run_command',
  args,
  status,
  result,
  calledAt: at,
});

describe('ERROR_FREE', () => {
  it('fails when the last run of a command crashed, not when a later run is clean', async () => {
    const ws = await repo({}, false);
    const crash =
      'file:///x/app.js:3\nTypeError: Cannot read properties of undefined\n    at main (file:///x/app.js:3:9)\n';
    const ledger = [
      run({ argv: ['node', 'app.js'] }, 'success', crash),
      run({ argv: ['node', 'app.js'] }, 'success', 'ok'),
      run(
        { argv: ['python3', 'tool.py'] },
        'success',
        'Traceback (most recent call last):\n  File "tool.py"\nKeyError: 1',
      ),
    ];
    const { findings } = await runProtocols(
      [errorFreeProtocol],
      createProtocolContext({ workspace: ws.root, ledger }),
    );
    expect(findings).toEqual([
      expect.objectContaining({
        status: 'fail',
        evidence: expect.objectContaining({ callId: ledger[2]?.callId }),
      }),
    ]);
    expect(findings[0]?.message).toMatch(/Python traceback/);
  });

  it('skips without command calls and passes clean output', async () => {
    const ws = await repo({}, false);
    expect(
      (await runProtocols([errorFreeProtocol], createProtocolContext({ workspace: ws.root }))).findings[0]
        ?.status,
    ).toBe('skip');
    const ledger = [run({ command: 'npm test' }, 'success', '# pass 3\n# fail 0')];
    expect(
      (await runProtocols([errorFreeProtocol], createProtocolContext({ workspace: ws.root, ledger })))
        .findings[0]?.status,
    ).toBe('pass');
  });

  it('recognises crash signatures', () => {
    expect(findCrash('Uncaught ReferenceError: x is not defined')?.label).toBe('uncaught exception');
    expect(findCrash('(node:1) UnhandledPromiseRejectionWarning: boom')?.label).toBe(
      'unhandled promise rejection',
    );
    expect(findCrash("thread 'main' panicked at src/main.rs:2:5")?.label).toBe('Rust panic');
    expect(findCrash('Error: the word Error: alone')).toBeUndefined();
  });
});
