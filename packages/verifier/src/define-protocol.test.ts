import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { defineProtocol } from './define-protocol';
import { createProtocolContext } from './protocol';
import { runProtocols } from './run-protocols';
import { VerifierError } from './verifier-error';

const workspace = useTempWorkspaces();
async function context(files: Record<string, string> = {}, git = false) {
  const ws = await workspace(files, { git });
  return { ws, ctx: createProtocolContext({ workspace: ws.root }) };
}
// Commands go through the one command policy: bare program names, no inline code.
const node = 'node';
const yes = (): boolean => true;

describe('defineProtocol', { timeout: 30_000 }, () => {
  it('runs command steps with exit-code and output conditions', async () => {
    const { ctx } = await context({ 'src/a.js': 'console.log("debug")\n' });
    const noConsole = defineProtocol({
      name: 'NO_CONSOLE_LOG',
      description: 'No console.log in src',
      priority: 'P2',
      steps: [{ name: 'grep', command: ['grep', '-rn', 'console.log', 'src'], success: { exitCode: 1 } }],
    });
    const { findings } = await runProtocols([noConsole], ctx);
    expect(findings).toEqual([
      expect.objectContaining({
        check: 'NO_CONSOLE_LOG',
        priority: 'P2',
        status: 'fail',
        layer: 1,
        message: expect.stringContaining('exit 0 (expected 1)'),
        evidence: expect.objectContaining({
          command: ['grep', '-rn', 'console.log', 'src'],
          output: expect.stringContaining('src/a.js:1'),
        }),
      }),
    ]);
    const matches = defineProtocol({
      name: 'VERSION',
      description: 'node prints a version',
      steps: [{ name: 'v', command: [node, '--version'], success: { outputMatches: '^v\\d+\\.' } }],
    });
    expect((await runProtocols([matches], ctx)).findings[0]?.status).toBe('pass');
  });

  it('retries, skips or fails a failing step per onFailure', async () => {
    const { ctx } = await context();
    let calls = 0;
    const flaky = defineProtocol({
      name: 'FLAKY',
      description: 'passes on the third try',
      steps: [{ name: 'try', run: () => ++calls >= 3, onFailure: 'retry', retries: 2 }],
    });
    expect((await runProtocols([flaky], ctx)).findings[0]?.status).toBe('pass');
    expect(calls).toBe(3);

    const skipping = defineProtocol({
      name: 'SKIPPING',
      description: 'first step may fail',
      steps: [
        { name: 'optional', run: () => ({ ok: false, message: 'nope' }), onFailure: 'skip' },
        { name: 'required', run: () => true },
      ],
    });
    expect((await runProtocols([skipping], ctx)).findings.map((f) => f.status)).toEqual(['skip', 'pass']);

    const failing = defineProtocol({
      name: 'FAILING',
      description: 'stops at the first failure',
      steps: [
        { name: 'a', run: () => ({ ok: false, message: 'broken' }), onFailure: 'retry', retries: 1 },
        { name: 'b', run: () => true },
      ],
    });
    const [finding] = (await runProtocols([failing], ctx)).findings;
    expect(finding).toMatchObject({
      status: 'fail',
      message: 'Step "a" failed after 2 attempts: broken. Not run: b.',
    });
  });

  it('validates the output against the output schema', async () => {
    const { ctx } = await context({
      'print.cjs': 'console.log(process.argv[2]);\n',
    });
    const audit = (output: unknown) =>
      defineProtocol({
        name: 'AUDIT',
        description: 'audit json',
        outputSchema: z.object({ vulnerabilities: z.number().max(0) }),
        steps: [{ name: 'audit', command: [node, 'print.cjs', JSON.stringify(output)] }],
      });
    const ok = (await runProtocols([audit({ vulnerabilities: 0 })], ctx)).findings[0];
    expect(ok).toMatchObject({ status: 'pass', details: { output: { vulnerabilities: 0 } } });
    const bad = (await runProtocols([audit({ vulnerabilities: 2 })], ctx)).findings[0];
    expect(bad).toMatchObject({ status: 'fail', message: expect.stringContaining('output schema') });
  });

  it('applies only when a trigger holds', async () => {
    const { ctx } = await context({ Dockerfile: 'FROM node' });
    const make = (triggers: Parameters<typeof defineProtocol>[0]['triggers']) =>
      defineProtocol({ name: 'T', description: 't', triggers, steps: [{ name: 's', run: () => true }] });
    expect((await runProtocols([make([{ fileExists: 'Dockerfile' }])], ctx)).findings[0]?.status).toBe(
      'pass',
    );
    expect(
      (await runProtocols([make([{ fileExists: 'nope' }, { tooling: 'test' }])], ctx)).findings[0]?.status,
    ).toBe('skip');
    expect((await runProtocols([make([{ when: () => true }])], ctx)).findings[0]?.status).toBe('pass');
  });

  it('reports a command that cannot start, and a throwing function, as infrastructure errors', async () => {
    const { ctx } = await context();
    const missing = defineProtocol({
      name: 'M',
      description: 'm',
      steps: [{ name: 's', command: ['no-such-program-xyz'] }],
    });
    expect((await runProtocols([missing], ctx)).findings[0]).toMatchObject({
      status: 'error',
      // Not an allowed program: the one command policy refuses it before anything starts.
      message: expect.stringMatching(/refused by the command policy/),
    });
    const throwing = defineProtocol({
      name: 'T',
      description: 't',
      steps: [
        {
          name: 's',
          run: () => {
            throw new Error('kaput');
          },
        },
      ],
    });
    expect((await runProtocols([throwing], ctx)).findings[0]).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/kaput/),
    });
  });

  it.each([
    [{}, /name/],
    [{ name: '1bad', description: 'x', steps: [{ name: 's', run: yes }] }, /start with a letter/],
    [{ name: 'X', description: 'x', steps: [] }, /steps/],
    [{ name: 'X', description: 'x', steps: [{ name: 's' }] }, /exactly one of/],
    [{ name: 'X', description: 'x', steps: [{ name: 's', command: ['a'], run: yes }] }, /exactly one of/],
    [{ name: 'X', description: 'x', steps: [{ name: 's', command: 'npm test' }] }, /command/],
    [{ name: 'X', description: 'x', steps: [{ name: 's', run: yes, onFailure: 'ignore' }] }, /onFailure/],
    [
      {
        name: 'X',
        description: 'x',
        steps: [{ name: 's', run: yes, success: { outputMatches: '(' } }],
      },
      /invalid regular expression/,
    ],
    [
      {
        name: 'X',
        description: 'x',
        steps: [
          { name: 's', run: yes },
          { name: 's', run: yes },
        ],
      },
      /two steps/,
    ],
    [{ name: 'X', description: 'x', layer: 7, steps: [{ name: 's', run: yes }] }, /layer/],
    [{ name: 'X', description: 'x', outputSchema: {}, steps: [{ name: 's', run: yes }] }, /zod schema/],
    [
      {
        name: 'X',
        description: 'x',
        triggers: [{ whenever: true }],
        steps: [{ name: 's', run: yes }],
      },
      /triggers/,
    ],
  ])('rejects invalid definition %#', (definition, message) => {
    let caught: unknown;
    try {
      defineProtocol(definition as never);
    } catch (error) {
      caught = error;
    }
    expect(VerifierError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({ code: 'invalid-protocol', message: expect.stringMatching(message) });
  });
});
