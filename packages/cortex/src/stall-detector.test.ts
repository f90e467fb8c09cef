import { describe, expect, it } from 'vitest';
import { createStallDetector, normalizeError } from './stall-detector';

describe('normalizeError', () => {
  it('removes paths, numbers, hex ids and whitespace noise', () => {
    expect(normalizeError('Test  failed after 1234 ms in /tmp/ws-8f3a/src/a.ts')).toBe(
      normalizeError('test failed after 98 ms in /var/other/b.ts'),
    );
    expect(normalizeError('id 0xdeadbeef and abcdef0123456789')).toBe('id <n> and <n>');
    expect(normalizeError('expected 2 got 3')).not.toBe(normalizeError('cannot find module'));
  });
});

describe('createStallDetector', () => {
  it('same error three times in a row → stalled (states differ)', () => {
    const detector = createStallDetector();
    expect(detector.observe({ errorSignature: 'e', stateHash: 's1', metric: 1 })).toBeUndefined();
    expect(detector.observe({ errorSignature: 'e', stateHash: 's2', metric: 1 })).toBeUndefined();
    expect(detector.observe({ errorSignature: 'e', stateHash: 's3', metric: 1 })).toMatchObject({
      stopReason: 'stalled',
      kind: 'same-error',
    });
  });

  it('an error that changes is not a stall', () => {
    const detector = createStallDetector();
    for (const [index, signature] of ['a', 'b', 'c', 'd'].entries()) {
      expect(
        detector.observe({ errorSignature: signature, stateHash: `s${index}`, metric: index }),
      ).toBeUndefined();
    }
    expect(detector.progressed).toBe(true);
  });

  it('a repeated state hash → loop-detected', () => {
    const detector = createStallDetector();
    detector.observe({ errorSignature: 'a', stateHash: 'x', metric: 0 });
    detector.observe({ errorSignature: 'b', stateHash: 'y', metric: 1 });
    expect(detector.observe({ errorSignature: 'c', stateHash: 'x', metric: 2 })).toMatchObject({
      stopReason: 'loop-detected',
      kind: 'repeated-state',
    });
  });

  it('oscillating errors → loop-detected', () => {
    const detector = createStallDetector();
    const signatures = ['a', 'b', 'a'];
    for (const [index, signature] of signatures.entries()) {
      expect(
        detector.observe({ errorSignature: signature, stateHash: `s${index}`, metric: 0 }),
      ).toBeUndefined();
    }
    expect(detector.observe({ errorSignature: 'b', stateHash: 's9', metric: 0 })).toMatchObject({
      stopReason: 'loop-detected',
      kind: 'oscillation',
    });
  });

  it('five iterations without a new best metric → stalled', () => {
    const detector = createStallDetector();
    const seen: unknown[] = [];
    for (let index = 0; index < 6; index++) {
      seen.push(
        detector.observe({ errorSignature: `e${index}`, stateHash: `s${index}`, metric: 5 - (index % 2) }),
      );
    }
    expect(seen.slice(0, 5)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    expect(seen[5]).toMatchObject({ stopReason: 'stalled', kind: 'no-progress' });
    expect(detector.progressed).toBe(false);
  });

  it('limits are configurable', () => {
    const detector = createStallDetector({ sameErrorLimit: 2, noProgressLimit: 1 });
    detector.observe({ errorSignature: 'x', stateHash: 'a', metric: 1 });
    expect(detector.observe({ errorSignature: 'x', stateHash: 'b', metric: 2 })).toMatchObject({
      kind: 'same-error',
    });
    const other = createStallDetector({ noProgressLimit: 1 });
    other.observe({ errorSignature: 'x', stateHash: 'a', metric: 1 });
    expect(other.observe({ errorSignature: 'y', stateHash: 'b', metric: 1 })).toMatchObject({
      kind: 'no-progress',
    });
  });
});
