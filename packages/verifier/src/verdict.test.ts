import { Plan } from '@closedloop/plan';
import { describe, expect, it } from 'vitest';
import type { Finding } from './finding';
import { createReport, decideVerdict, toVerificationRecord } from './verdict';

const f = (priority: Finding['priority'], status: Finding['status']): Finding => ({
  check: 'c',
  priority,
  status,
  message: 'm',
});

describe('decideVerdict (seed 003 decision tree, failing closed)', () => {
  it.each([
    [[], 'success'],
    [[f('P0', 'pass'), f('P1', 'pass'), f('P2', 'skip')], 'success'],
    [[f('P0', 'fail'), f('P1', 'fail')], 'failed'],
    [[f('P1', 'fail'), f('P2', 'fail')], 'retry'],
    [[f('P1', 'fail'), f('P0', 'error')], 'retry'],
    [[f('P2', 'fail')], 'success-with-warnings'],
    [[f('P1', 'warn')], 'success-with-warnings'],
    [[f('P2', 'error')], 'success-with-warnings'],
    [[f('P0', 'error'), f('P2', 'warn')], 'unverified'],
    [[f('P1', 'error'), f('P1', 'pass')], 'unverified'],
    [[f('P0', 'skip'), f('P1', 'skip')], 'success'],
  ] as const)('%j → %s', (findings, verdict) => {
    expect(decideVerdict(findings as unknown as Finding[])).toBe(verdict);
  });

  it('never counts an infrastructure error as a pass or as the work failing', () => {
    const report = createReport({ findings: [f('P1', 'error')], timings: [] });
    expect(report.verdict).toBe('unverified');
    expect(report.infrastructureErrors).toHaveLength(1);
    expect(report.unverified).toBe(true);
  });
});

describe('toVerificationRecord', () => {
  it('produces a record plan.recordVerification accepts', () => {
    const report = createReport({
      findings: [{ ...f('P2', 'warn'), evidence: { file: 'a.ts' }, layer: 1 }],
      timings: [{ check: 'c', ms: 1 }],
      confidence: 0.65,
      unverified: true,
    });
    const record = toVerificationRecord(report);
    expect(record).toEqual({
      verdict: 'success-with-warnings',
      confidence: 0.65,
      unverified: true,
      findings: [{ check: 'c', priority: 'P2', status: 'warn', message: 'm' }],
    });
    const plan = Plan.create({ steps: [{ id: 'a', description: 'a' }] });
    expect(plan.recordVerification('a', record)).toMatchObject({
      verdict: 'success-with-warnings',
      unverified: true,
    });
  });
});
