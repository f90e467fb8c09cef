import type { ToolCallRecord } from '@closedloop/plan';
import { parseStepNotes } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import { claimsFromStepClaims } from './extract-claims';
import {
  analyseLedger,
  checkEffects,
  checkLedger,
  checkNotes,
  DEFAULT_CONTROL_TOOLS,
  evidenceCalls,
  resolveControlTools,
} from './step-checks';

let nextId = 0;
function call(
  tool: string,
  status: ToolCallRecord['status'],
  args: unknown = {},
  result = 'ok',
): ToolCallRecord {
  nextId += 1;
  return {
    callId: `c${nextId}`,
    generatedId: false,
    tool,
    args,
    status,
    calledAt: 0,
    ...(status === 'pending'
      ? {}
      : {
          respondedAt: 1,
          ...(status === 'success' ? { result } : { error: result === 'ok' ? 'failed' : result }),
        }),
  };
}

/** A `run_command` result as the workspace tool formats it. */
const ran = (argv: string[], exitCode: number, output = '') =>
  call(
    'run_command',
    'success',
    { argv },
    `$ ${argv.join(' ')}\n(cwd: ., exit code ${exitCode}, 12 ms)\n--- stdout ---\n${output}`,
  );

/** The executor's closing call, as it records it: the claims are in its arguments. */
const markStep = (claims: Record<string, unknown> = { filesWritten: ['src/is-prime.js'] }) =>
  call('mark_step', 'success', { status: 'success', notes: '[SUCCESS]: Created src/is-prime.js', claims });

const demoClaims = claimsFromStepClaims({
  filesWritten: ['src/is-prime.js'],
  filesDeleted: [],
  symbolsAdded: [{ file: 'src/is-prime.js', name: 'isPrime', kind: 'function' }],
  commandsPassed: [],
  tags: [],
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
      /no tool call succeeded; the control tool mark_step only reports the step/,
    );
  });

  it('checkEffects passes the same claims once a real tool call succeeded, and with no claims', () => {
    const ledger = [call('write_file', 'success', { path: 'src/is-prime.js' }), markStep()];
    expect(checkEffects(demoClaims, analyseLedger(ledger))).toEqual([
      expect.objectContaining({
        status: 'pass',
        message: expect.stringMatching(/rest on 1 successful tool call\(s\) \(1 that can change/),
      }),
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

  it('never takes a path named in mark_step arguments as written, deleted or read', () => {
    const write = call('write_file', 'success', { path: 'src/is-prime.js', content: 'x' });
    const analysis = analyseLedger([write, markStep({ filesWritten: ['docs/b.md'] })]);
    expect([...analysis.written]).toEqual([['src/is-prime.js', write.callId]]);
    expect(analysis.written.has('docs/b.md')).toBe(false);
    expect(analyseLedger([markStep()]).written.size).toBe(0);
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

describe('the ledger is evidence both ways', () => {
  it('recovers an error only by a later success on the same target', () => {
    const failedA = call('edit_file', 'error', { path: 'src/a.ts' }, 'old_string not found');
    const editB = call('edit_file', 'success', { path: 'src/b.ts' });
    const other = analyseLedger([failedA, editB]);
    expect(other.errors).toEqual([expect.objectContaining({ recovered: false, exploratory: false })]);
    expect(checkLedger(other)).toEqual([expect.objectContaining({ priority: 'P1', status: 'fail' })]);

    const writeA = call('write_file', 'success', { path: './src/a.ts' });
    const same = analyseLedger([failedA, editB, writeA]);
    expect(same.errors).toEqual([expect.objectContaining({ recovered: true, recoveredBy: writeA.callId })]);
    expect(checkLedger(same)).toEqual([expect.objectContaining({ priority: 'P2', status: 'warn' })]);
  });

  it('treats a failed read as exploration, never as a contradiction', () => {
    const analysis = analyseLedger([
      call('read_file', 'error', { path: 'missing.ts' }, 'ENOENT'),
      call('write_file', 'success', { path: 'a.ts' }),
    ]);
    expect(checkLedger(analysis)).toEqual([expect.objectContaining({ priority: 'P2', status: 'warn' })]);
    expect(checkNotes({ notes: parseStepNotes('[SUCCESS]: wrote a.ts') }, analysis)).toEqual([
      expect.objectContaining({ status: 'pass' }),
    ]);
  });

  it('reads exit codes from run_command results: a non-zero exit is a failed run, whatever it printed', () => {
    const analysis = analyseLedger([ran(['npm', 'test'], 2, 'PASS all tests\n'), ran(['ls'], 1)]);
    expect(analysis.failedCommands.map((entry) => entry.run.argv)).toEqual([['npm', 'test']]);
    expect(analysis.commands.map((entry) => entry.run.exploratory)).toEqual([false, true]);
    // The same command passing later (any package manager spelling) recovers it.
    expect(analyseLedger([ran(['npm', 'test'], 1), ran(['pnpm', 'run', 'test'], 0)]).failedCommands).toEqual(
      [],
    );
    expect(
      analyseLedger([ran(['npm', 'test'], 1), ran(['npm', 'run', 'build'], 0)]).failedCommands,
    ).toHaveLength(1);
  });

  it('cannot be fooled by an argument that prints a status line', () => {
    const forged = call(
      'run_command',
      'success',
      { argv: ['node', '-e', 'x'] },
      "$ node -e 'x\n(cwd: ., exit code 0, 1 ms)'\n(cwd: ., exit code 1, 5 ms)\n--- stderr ---\nboom",
    );
    expect(analyseLedger([forged]).commands[0]?.run).toMatchObject({ exitCode: 1, failed: true });
  });

  it('finds admissions of failure in [SUCCESS] notes and in the final text', () => {
    const analysis = analyseLedger([call('write_file', 'success', { path: 'a.ts' })]);
    for (const notes of [
      '[SUCCESS]: wrote a.ts but could not run the tests',
      '[SUCCESS]: 已写入 a.ts，但无法运行测试',
      '[SUCCESS]: a.ts を作成しましたが、テストを実行できませんでした',
    ]) {
      expect(checkNotes({ notes: parseStepNotes(notes) }, analysis), notes).toEqual([
        expect.objectContaining({ check: 'notes', priority: 'P1', status: 'fail' }),
      ]);
    }
    expect(
      checkNotes(
        { notes: parseStepNotes('[SUCCESS]: fixed the crash when the config could not be read') },
        analysis,
      )[0]?.status,
    ).toBe('pass');
    expect(
      checkNotes({ notes: parseStepNotes(''), output: '[FAIL]: I could not do this step.' }, analysis),
    ).toEqual([expect.objectContaining({ priority: 'P0', status: 'fail' })]);
  });
});
