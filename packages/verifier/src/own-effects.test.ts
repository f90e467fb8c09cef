import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ToolCallRecord } from '@closedloop/plan';
import { afterAll, describe, expect, it } from 'vitest';
import { analyseLedger } from './ledger-evidence';
import { effectWindows, ownUnnamedEffect } from './own-effects';

const root = mkdtempSync(path.join(tmpdir(), 'own-effects-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A file written now, and its status-change time. */
function fileNow(name: string): { file: string; changedAt: number } {
  const file = path.join(root, name);
  writeFileSync(file, 'x\n');
  return { file, changedAt: statSync(file).ctimeMs };
}

const build = (callId: string, calledAt: number, respondedAt?: number): ToolCallRecord => ({
  callId,
  generatedId: false,
  tool: 'run_command',
  args: { argv: ['npm', 'run', 'build'] },
  status: 'success',
  result: JSON.stringify({ exitCode: 0, stdout: '', stderr: '' }),
  calledAt,
  ...(respondedAt !== undefined ? { respondedAt } : {}),
});

describe('ownUnnamedEffect', () => {
  it('credits the command that was running when the file changed', () => {
    const { file, changedAt } = fileNow('inside.ts');
    const ledger = analyseLedger([
      build('c1', changedAt - 5_000, changedAt - 4_000),
      build('c2', changedAt - 100, changedAt + 100),
    ]);
    expect(ownUnnamedEffect(file, ledger)).toBe('c2');
  });

  it("credits no one with a change after or between the step's calls (a neighbour's write)", () => {
    const { file, changedAt } = fileNow('between.ts');
    const ledger = analyseLedger([
      build('c1', changedAt - 5_000, changedAt - 4_000),
      build('c2', changedAt - 3_000, changedAt - 2_000),
    ]);
    expect(ownUnnamedEffect(file, ledger)).toBeUndefined();
    // … unless the verifier itself changed it by a re-run after it started.
    expect(ownUnnamedEffect(file, ledger, { verifyStartedAt: changedAt - 1 })).toBe('c2');
  });

  it('ends a call without a result where the next call starts', () => {
    const { file, changedAt } = fileNow('cut.ts');
    const calls = [build('c1', changedAt - 5_000), build('c2', changedAt - 3_000, changedAt - 2_000)];
    expect(effectWindows(analyseLedger(calls))[0]).toMatchObject({ callId: 'c1', to: changedAt - 3_000 });
    expect(ownUnnamedEffect(file, analyseLedger(calls))).toBeUndefined();
  });
});
