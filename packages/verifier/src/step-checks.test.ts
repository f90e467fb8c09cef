import type { ToolCallRecord } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { claimsFromStepClaims } from './extract-claims';
import {
  analyseLedger,
  checkEffects,
  DEFAULT_CONTROL_TOOLS,
  evidenceCalls,
  ledgerPaths,
  resolveControlTools,
} from './step-checks';
import { createWorkspaceFacts } from './workspace-facts';

const workspace = useTempWorkspaces();

let nextId = 0;
function call(tool: string, status: ToolCallRecord['status'], args: unknown = {}): ToolCallRecord {
  nextId += 1;
  return {
    callId: `c${nextId}`,
    generatedId: false,
    tool,
    args,
    status,
    calledAt: 0,
    ...(status === 'pending' ? {} : { respondedAt: 1, result: status === 'success' ? 'ok' : undefined }),
  };
}

/** The executor's closing call, as it records it: the claims are in its arguments. */
const markStep = (claims: Record<string, unknown> = { filesWritten: ['src/is-prime.js'] }) =>
  call('mark_step', 'success', { status: 'success', notes: '[SUCCESS]: Created src/is-prime.js', claims });

const demoClaims = claimsFromStepClaims({
  filesWritten: ['src/is-prime.js'],
  filesDeleted: [],
  symbolsAdded: [{ file: 'src/is-prime.js', name: 'isPrime', kind: 'function' }],
  commandsPassed: [],
});

describe('control tools are never evidence', () => {
  it('analyseLedger counts successful mark_step calls apart from the evidence', () => {
    const mark = markStep();
    const analysis = analyseLedger([mark]);
    expect(analysis).toMatchObject({ successCount: 0, controlCalls: [mark], pending: [], errors: [] });
    expect(analyseLedger([call('write_file', 'success'), mark]).successCount).toBe(1);
    expect(DEFAULT_CONTROL_TOOLS).toEqual(['mark_step']);
  });

  it('analyseLedger still reports a pending or failed control call (they are not evidence, but not hidden)', () => {
    const pending = call('mark_step', 'pending');
    const failed = call('mark_step', 'error');
    expect(analyseLedger([pending, failed])).toMatchObject({
      pending: [pending],
      errors: [{ call: failed, recovered: false }],
      successCount: 0,
    });
  });

  it('checkEffects fails (P0) a step whose only successful call is mark_step, naming it', () => {
    const mark = markStep();
    const [finding] = checkEffects(demoClaims, analyseLedger([mark]));
    expect(finding).toMatchObject({
      check: 'effects',
      priority: 'P0',
      status: 'fail',
      evidence: { callId: mark.callId, claim: 'wrote src/is-prime.js' },
    });
    expect(finding?.message).toMatch(
      /except the control tool mark_step \(1 call\(s\)\), which only reports the step/,
    );
  });

  it('checkEffects passes the same claims once a real tool call succeeded, and with no claims', () => {
    const ledger = [call('write_file', 'success', { path: 'src/is-prime.js' }), markStep()];
    expect(checkEffects(demoClaims, analyseLedger(ledger))).toEqual([
      expect.objectContaining({ status: 'pass', message: expect.stringMatching(/rest on 1 successful/) }),
    ]);
    expect(checkEffects([], analyseLedger([markStep()]))).toEqual([
      expect.objectContaining({ status: 'pass', message: 'The step claims no effects.' }),
    ]);
  });

  it('honours custom control tools, and an empty list makes mark_step an ordinary tool', () => {
    const finish = call('finish_task', 'success', { summary: 'wrote src/is-prime.js' });
    expect(checkEffects(demoClaims, analyseLedger([finish]))[0]?.status).toBe('pass');
    expect(
      checkEffects(demoClaims, analyseLedger([finish], { controlTools: ['finish_task'] }))[0],
    ).toMatchObject({ status: 'fail', message: expect.stringMatching(/control tool finish_task/) });
    expect(checkEffects(demoClaims, analyseLedger([markStep()], { controlTools: [] }))[0]?.status).toBe(
      'pass',
    );
  });

  it('evidenceCalls drops control calls and keeps everything else in order', () => {
    const read = call('read_file', 'success');
    const write = call('write_file', 'error');
    expect(evidenceCalls([read, markStep(), write])).toEqual([read, write]);
    expect(evidenceCalls([read, markStep()], { controlTools: ['read_file'] }).map((c) => c.tool)).toEqual([
      'mark_step',
    ]);
  });

  it('ledgerPaths never takes a path named in mark_step arguments as written or mentioned', async () => {
    const ws = await workspace({ 'src/is-prime.js': 'export const isPrime = () => true;\n' });
    const facts = createWorkspaceFacts(ws.root);
    const fromMark = ledgerPaths([markStep()], facts);
    expect([...fromMark.written.keys(), ...fromMark.mentioned().keys()]).toEqual([]);

    const write = call('write_file', 'success', { path: 'src/is-prime.js', content: 'x' });
    const command = call('run_command', 'success', { argv: ['node', 'gen.js', 'out/a.json'] });
    const paths = ledgerPaths([write, command, markStep({ filesWritten: ['docs/b.md'] })], facts);
    expect([...paths.written]).toEqual([['src/is-prime.js', write.callId]]);
    expect(paths.mentioned().get('out/a.json')).toBe(command.callId);
    expect(paths.mentioned().has('docs/b.md')).toBe(false);
    // Only when told that mark_step is an ordinary tool does its argument count.
    expect(ledgerPaths([markStep()], facts, { controlTools: [] }).mentioned().has('src/is-prime.js')).toBe(
      true,
    );
  });

  it('resolveControlTools validates the option', () => {
    expect([...resolveControlTools(undefined)]).toEqual(['mark_step']);
    expect([...resolveControlTools(['mark_step', 'finish'])]).toEqual(['mark_step', 'finish']);
    for (const bad of ['mark_step', [''], [1], null]) {
      expect(() => resolveControlTools(bad)).toThrow(
        expect.objectContaining({ code: 'invalid-options', name: 'VerifierError' }),
      );
    }
    expect(() => resolveControlTools('mark_step', 'verifyStep: controlTools')).toThrow(
      /^verifyStep: controlTools must be an array of tool names/,
    );
  });
});
