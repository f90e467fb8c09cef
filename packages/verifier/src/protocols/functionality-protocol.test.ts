import { ScriptedModel } from '@closedloop/model/testing';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from '../__fixtures__/temp-workspaces';
import { createProtocolContext, type FunctionalityCaseInput } from '../protocol';
import { runProtocols } from '../run-protocols';
import { functionalityProtocol, parseCorrectness } from './functionality-protocol';

const workspace = useTempWorkspaces();
const repo = (files: Record<string, string>, git = false) => workspace(files, { git });

/** The isPrime example. */
const IS_PRIME_CASES: FunctionalityCaseInput[] = [
  { module: 'src/math.mjs', export: 'isPrime', input: 2, expected: true },
  { module: 'src/math.mjs', export: 'isPrime', input: 4, expected: false },
  { module: 'src/math.mjs', export: 'isPrime', input: 17, expected: true },
  { module: 'src/math.mjs', export: 'isPrime', input: 1, expected: false },
];

describe('FUNCTIONALITY with executable cases', { timeout: 30_000 }, () => {
  it('passes a correct implementation (the isPrime example)', async () => {
    const ws = await repo({
      'src/math.mjs':
        'export function isPrime(n) { if (n < 2) return false; for (let i = 2; i * i <= n; i++) if (n % i === 0) return false; return true; }\n',
    });
    const ctx = createProtocolContext({ workspace: ws.root, functionalityCases: IS_PRIME_CASES });
    expect((await runProtocols([functionalityProtocol], ctx)).findings).toEqual([
      expect.objectContaining({ status: 'pass', message: '4/4 functionality case(s) pass.' }),
    ]);
  });

  it('fails each wrong case with the actual value', async () => {
    const ws = await repo({ 'src/math.mjs': 'export const isPrime = (n) => n % 2 === 1;\n' });
    const ctx = createProtocolContext({ workspace: ws.root, functionalityCases: IS_PRIME_CASES });
    const { findings } = await runProtocols([functionalityProtocol], ctx);
    expect(findings.map((f) => f.message)).toEqual([
      'src/math.mjs #1 isPrime(2) returned false, expected true.',
      'src/math.mjs #4 isPrime(1) returned true, expected false.',
    ]);
  });

  it('handles CommonJS, async exports, several arguments, throws, missing modules and hangs', async () => {
    const ws = await repo({
      'lib.cjs':
        'exports.add = (a, b) => a + b; exports.later = async (x) => ({ x }); exports.boom = () => { throw new RangeError("nope"); };',
      'hang.mjs': 'export default function () { for (;;) {} }',
    });
    const cases: FunctionalityCaseInput[] = [
      { module: 'lib.cjs', export: 'add', args: [2, 3], expected: 5 },
      { module: 'lib.cjs', export: 'later', input: 1, expected: { x: 1 } },
      { module: 'lib.cjs', export: 'boom', expected: 1, name: 'boom throws' },
      { module: 'missing.mjs', export: 'x', expected: 1 },
    ];
    const { findings } = await runProtocols(
      [functionalityProtocol],
      createProtocolContext({ workspace: ws.root, functionalityCases: cases }),
    );
    expect(findings.map((f) => f.message)).toEqual([
      'lib.cjs boom throws threw: RangeError: nope',
      expect.stringMatching(/^missing\.mjs #4 x\(\) threw: Error.*Cannot find module/),
    ]);
    const hang = createProtocolContext({
      workspace: ws.root,
      functionalityCases: [{ module: 'hang.mjs', expected: 1, timeoutMs: 300 }],
    });
    const [hung] = (await runProtocols([functionalityProtocol], hang)).findings;
    expect(hung).toMatchObject({ status: 'fail', message: expect.stringMatching(/did not finish/) });
  });

  it('never takes a result the code under test forged (a printed marker, a patched stdout, JSON or util)', async () => {
    const forgers: Record<string, string> = {
      // Prints the result line the runner would print, then ends the process before the runner does.
      'printed.mjs':
        "process.stdout.write('\\n__CLOSEDLOOP_FUNCTIONALITY__' + JSON.stringify([{ ok: true }]) + '\\n'); process.exit(0);\nexport const isPrime = () => 'wrong';\n",
      // Rewrites whatever the runner writes to stdout.
      'stdout.mjs':
        'const write = process.stdout.write.bind(process.stdout);\nprocess.stdout.write = (text, ...rest) => write(String(text).replace(/"ok":false/g, \'"ok":true\'), ...rest);\nexport const isPrime = () => \'wrong\';\n',
      // Makes every comparison and every serialisation say ok.
      'globals.mjs':
        "import { createRequire, syncBuiltinESMExports } from 'node:module';\nconst util = createRequire(import.meta.url)('node:util');\nutil.isDeepStrictEqual = () => true; syncBuiltinESMExports();\nconst stringify = JSON.stringify; JSON.stringify = (v, ...r) => stringify(v, (k, x) => (k === 'ok' ? true : x), ...r.slice(1));\nObject.defineProperty(Object.prototype, 'toJSON', { configurable: true, value() { return 'ok' in this ? { ok: true } : this; } });\nexport const isPrime = () => 'wrong';\n",
    };
    const ws = await repo(forgers);
    for (const module of Object.keys(forgers)) {
      const ctx = createProtocolContext({
        workspace: ws.root,
        functionalityCases: [{ module, export: 'isPrime', input: 2, expected: true }],
      });
      const { findings } = await runProtocols([functionalityProtocol], ctx);
      expect({ module, statuses: findings.map((f) => f.status) }).toEqual({
        module,
        statuses: [expect.stringMatching(/^(?:fail|error)$/)],
      });
    }
  });

  it('rejects malformed cases with a typed error', () => {
    expect(() =>
      createProtocolContext({ workspace: '/tmp', functionalityCases: [{ module: '', expected: 1 }] }),
    ).toThrow(expect.objectContaining({ code: 'invalid-options' }));
  });
});

describe('FUNCTIONALITY without cases: LLM-as-judge fallback', { timeout: 30_000 }, () => {
  it('asks the model about the changed code and parses CORRECT/INCORRECT strictly', async () => {
    const ws = await repo({ 'src/math.mjs': 'export const isPrime = () => true;\n' });
    const model = new ScriptedModel({
      turns: [{ text: 'INCORRECT: isPrime(4) returns true.' }, { text: 'Probably fine?' }],
    });
    const ctx = createProtocolContext({
      workspace: ws.root,
      model,
      request: 'implement isPrime',
      files: ['src/math.mjs'],
    });
    const [finding] = (await runProtocols([functionalityProtocol], ctx)).findings;
    expect(finding).toMatchObject({
      status: 'fail',
      message: expect.stringContaining('isPrime(4) returns true'),
    });
    expect(model.requests[0]?.messages.at(-1)?.content).toContain('export const isPrime = () => true;');
    const unclear = createProtocolContext({
      workspace: ws.root,
      model,
      request: 'implement isPrime',
      files: ['src/math.mjs'],
    });
    expect((await runProtocols([functionalityProtocol], unclear)).findings[0]?.status).toBe('error');
  });

  it('skips without cases and without a model', async () => {
    const ws = await repo({});
    expect(
      (await runProtocols([functionalityProtocol], createProtocolContext({ workspace: ws.root }))).findings[0]
        ?.status,
    ).toBe('skip');
  });

  it('parses verdict words strictly', () => {
    expect(parseCorrectness('**CORRECT** because')).toBe('CORRECT');
    expect(parseCorrectness('incorrect.')).toBe('INCORRECT');
    expect(parseCorrectness('It is CORRECT')).toBeUndefined();
    expect(parseCorrectness('CORRECTLY')).toBeUndefined();
  });
});
