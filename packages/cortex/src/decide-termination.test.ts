import { describe, expect, it } from 'vitest';
import {
  assessFindings,
  decideTermination,
  type FindingLike,
  type TerminationInput,
} from './decide-termination';

const finding = (
  priority: FindingLike['priority'],
  status: FindingLike['status'],
  check = 'c',
): FindingLike => ({
  check,
  priority,
  status,
  message: `${check} ${status}`,
});

const base: TerminationInput = {
  findings: [],
  iteration: 1,
  maxIterations: 3,
  extended: false,
  progressed: false,
  blockedSteps: 0,
  unverifiedSteps: 0,
};

describe('assessFindings', () => {
  it.each([
    [[], 'all-pass'],
    [[finding('P0', 'pass'), finding('P1', 'skip')], 'all-pass'],
    [[finding('P2', 'fail')], 'warnings-only'],
    [[finding('P1', 'warn')], 'warnings-only'],
    [[finding('P1', 'error')], 'p1-failed'],
    [[finding('P0', 'error')], 'p1-failed'],
    [[finding('P2', 'error')], 'warnings-only'],
    [[finding('P2', 'fail'), finding('P1', 'fail')], 'p1-failed'],
    [[finding('P1', 'fail'), finding('P0', 'fail')], 'p0-failed'],
  ] as const)('%j → %s', (findings, expected) => {
    expect(assessFindings(findings)).toBe(expected);
  });
});

describe('decideTermination (the termination decision tree)', () => {
  it('says in the reason which priorities are behind it', () => {
    const p2 = decideTermination({
      ...base,
      findings: [finding('P0', 'pass'), finding('P2', 'fail'), finding('P1', 'warn')],
    });
    expect(p2).toMatchObject({ stopReason: 'completed-with-warnings' });
    expect(p2.reason).toMatch(/P2 c failed: c fail/);
    expect(p2.reason).toMatch(/P1 c warned: c warn/);
    expect(p2.reason).not.toMatch(/only P2/);
    const cannotRun = decideTermination({ ...base, findings: [finding('P1', 'error')] });
    expect(cannotRun).toMatchObject({ action: 'iterate' });
    expect(cannotRun.reason).toMatch(/P1 c could not run/);
    const p0 = decideTermination({ ...base, findings: [finding('P0', 'fail'), finding('P1', 'fail')] });
    expect(p0.reason).toMatch(/^P0 goal check failed: P0 c failed/);
    expect(p0.reason).not.toMatch(/P1/);
  });

  it('names unverified and blocked steps and why', () => {
    expect(
      decideTermination({
        ...base,
        unverifiedSteps: 1,
        unverified: [{ stepId: 's2', reason: 'TEST could not run' }],
      }).reason,
    ).toBe('1 step output(s) unverified: s2 (TEST could not run)');
    expect(
      decideTermination({ ...base, blockedSteps: 1, blocked: [{ stepId: 's3', reason: 'gave up' }] }).reason,
    ).toBe('1 step(s) blocked: s3 (gave up)');
  });

  it('all pass → completed', () => {
    expect(decideTermination({ ...base, findings: [finding('P0', 'pass')] })).toMatchObject({
      action: 'stop',
      stopReason: 'completed',
    });
  });

  it('all pass with unverified step outputs → completed-with-warnings', () => {
    expect(decideTermination({ ...base, unverifiedSteps: 1 })).toMatchObject({
      stopReason: 'completed-with-warnings',
    });
  });

  it('names the causes first and at most ten blocked steps, then how many more', () => {
    const blocked = [
      ...Array.from({ length: 998 }, (_, index) => ({
        stepId: `s${index + 1}`,
        reason: 'upstream step s0 is blocked',
      })),
      { stepId: 's0', reason: 'unverified after 2 attempt(s)' },
    ];
    const reason = decideTermination({ ...base, blockedSteps: blocked.length, blocked }).reason;
    expect(reason).toMatch(/^999 step\(s\) blocked: s0 \(unverified after 2 attempt\(s\)\); s1 \(upstream/);
    expect(reason).toMatch(/; and 989 more$/);
    expect(reason.length).toBeLessThan(600);
  });

  it('P0 fails → failed, even when P1 fails too or steps are blocked', () => {
    const decision = decideTermination({
      ...base,
      blockedSteps: 2,
      findings: [finding('P1', 'fail'), finding('P0', 'fail', 'BUILD')],
    });
    expect(decision).toMatchObject({ action: 'stop', stopReason: 'failed' });
    expect(decision.reason).toContain('BUILD');
  });

  it('blocked steps → blocked', () => {
    expect(decideTermination({ ...base, blockedSteps: 1, findings: [finding('P1', 'fail')] })).toMatchObject({
      stopReason: 'blocked',
    });
  });

  it('only P2 → completed-with-warnings', () => {
    expect(
      decideTermination({ ...base, findings: [finding('P2', 'fail'), finding('P1', 'pass')] }),
    ).toMatchObject({
      stopReason: 'completed-with-warnings',
    });
  });

  it('P1 fails with iterations left → iterate', () => {
    expect(decideTermination({ ...base, findings: [finding('P1', 'fail')] })).toMatchObject({
      action: 'iterate',
      maxIterations: 3,
      extended: false,
    });
  });

  it('P1 fails at the cap with progress → extend ×1.5 once', () => {
    const first = decideTermination({
      ...base,
      iteration: 3,
      progressed: true,
      findings: [finding('P1', 'fail')],
    });
    expect(first).toMatchObject({ action: 'iterate', maxIterations: 5, extended: true });
    const again = decideTermination({
      ...base,
      iteration: 5,
      maxIterations: 5,
      extended: true,
      progressed: true,
      findings: [finding('P1', 'fail')],
    });
    expect(again).toMatchObject({ action: 'stop', stopReason: 'max-iterations' });
  });

  it('the extension adds at least one iteration (cap 1 → 2)', () => {
    expect(
      decideTermination({
        ...base,
        iteration: 1,
        maxIterations: 1,
        progressed: true,
        findings: [finding('P1', 'fail')],
      }),
    ).toMatchObject({ action: 'iterate', maxIterations: 2 });
  });

  it('P1 fails at the cap without progress → max-iterations', () => {
    expect(decideTermination({ ...base, iteration: 3, findings: [finding('P1', 'fail')] })).toMatchObject({
      action: 'stop',
      stopReason: 'max-iterations',
    });
  });

  it('a stall signal stops a P1 iteration with its reason', () => {
    expect(
      decideTermination({
        ...base,
        findings: [finding('P1', 'fail')],
        stall: { stopReason: 'loop-detected', kind: 'repeated-state', message: 'same state' },
      }),
    ).toMatchObject({ action: 'stop', stopReason: 'loop-detected', reason: 'same state' });
  });

  it('a stall signal does not override a pass', () => {
    expect(
      decideTermination({ ...base, stall: { stopReason: 'stalled', kind: 'same-error', message: 'x' } }),
    ).toMatchObject({ stopReason: 'completed' });
  });
});
