import { Plan } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import type { Finding } from './finding';
import {
  createReport,
  decideVerdict,
  isOutcomeEvidence,
  toVerificationRecord,
  unverifiedReason,
} from './verdict';

const f = (priority: Finding['priority'], status: Finding['status']): Finding => ({
  check: 'c',
  priority,
  status,
  message: 'm',
});

const process = (priority: Finding['priority'], status: Finding['status'], check = 'ledger'): Finding => ({
  check,
  priority,
  status,
  message: 'm',
});

describe('decideVerdict (the decision tree, failing closed)', () => {
  it.each([
    [[f('P0', 'pass'), f('P1', 'pass'), f('P2', 'skip')], 'success'],
    [[f('P0', 'fail'), f('P1', 'fail')], 'failed'],
    [[f('P1', 'fail'), f('P2', 'fail')], 'retry'],
    [[f('P1', 'fail'), f('P0', 'error')], 'retry'],
    [[f('P1', 'pass'), f('P2', 'fail')], 'success-with-warnings'],
    [[f('P1', 'pass'), f('P1', 'warn')], 'success-with-warnings'],
    [[f('P1', 'pass'), f('P2', 'error')], 'success-with-warnings'],
    [[f('P0', 'error'), f('P2', 'warn')], 'unverified'],
    [[f('P1', 'error'), f('P1', 'pass')], 'unverified'],
  ] as const)('%j → %s', (findings, verdict) => {
    expect(decideVerdict(findings as unknown as Finding[])).toBe(verdict);
  });

  it.each([
    ['no findings', []],
    ['only skips', [f('P0', 'skip'), f('P1', 'skip')]],
    ['only warnings', [f('P2', 'fail'), f('P1', 'warn')]],
    ['only a P2 error', [f('P2', 'error')]],
    [
      'only bookkeeping passes (ledger, notes, required tools, effects, execution)',
      [
        process('P0', 'pass'),
        process('P0', 'pass', 'notes'),
        process('P1', 'pass', 'required-tools'),
        process('P0', 'pass', 'effects'),
        process('P0', 'pass', 'execution'),
      ],
    ],
  ] as const)('absence of evidence is not success: %s → unverified', (_label, findings) => {
    expect(decideVerdict(findings as unknown as Finding[])).toBe('unverified');
    expect(unverifiedReason(findings as unknown as Finding[])).toMatch(
      /no check about the asked-for outcome passed|could not/,
    );
  });

  it('counts a passing claim, outcome, or protocol as evidence, and a failing one still decides', () => {
    expect(isOutcomeEvidence(process('P1', 'pass', 'claims'))).toBe(true);
    expect(isOutcomeEvidence(process('P1', 'pass', 'outcome'))).toBe(true);
    expect(isOutcomeEvidence(process('P1', 'pass', 'TEST'))).toBe(true);
    expect(isOutcomeEvidence(process('P0', 'pass', 'ledger'))).toBe(false);
    expect(decideVerdict([process('P0', 'pass'), process('P1', 'pass', 'claims')])).toBe('success');
    expect(decideVerdict([process('P0', 'pass'), process('P1', 'fail', 'outcome')])).toBe('retry');
  });

  it('never counts an infrastructure error as a pass or as the work failing', () => {
    const report = createReport({ findings: [f('P1', 'error')], timings: [] });
    expect(report.verdict).toBe('unverified');
    expect(report.infrastructureErrors).toHaveLength(1);
    expect(report.unverified).toBe(true);
    expect(unverifiedReason(report.findings)).toMatch(/^c: m/);
  });
});

describe('toVerificationRecord', () => {
  it('produces a record plan.recordVerification accepts', () => {
    const report = createReport({
      findings: [f('P1', 'pass'), { ...f('P2', 'warn'), evidence: { file: 'a.ts' }, layer: 1 }],
      timings: [{ check: 'c', ms: 1 }],
      confidence: 0.65,
      unverified: true,
    });
    const record = toVerificationRecord(report);
    expect(record).toEqual({
      verdict: 'success-with-warnings',
      confidence: 0.65,
      unverified: true,
      findings: [
        { check: 'c', priority: 'P1', status: 'pass', message: 'm' },
        { check: 'c', priority: 'P2', status: 'warn', message: 'm' },
      ],
    });
    const plan = Plan.create({ steps: [{ id: 'a', description: 'a' }] });
    expect(plan.recordVerification('a', record)).toMatchObject({
      verdict: 'success-with-warnings',
      unverified: true,
    });
  });
});
