import { describe, expect, it } from 'vitest';
import { createToolCallIds, idDigest, responseToolCallIds } from './tool-call-ids';

const short = (id: string) => (id.length <= 8 ? id : `${id.slice(0, 3)}_${idDigest(id).slice(0, 4)}`);

describe('createToolCallIds', () => {
  it('passes valid new ids, rewrites repeated, empty and invalid ones; results follow their calls', () => {
    const ids = createToolCallIds({ normalize: short, emptyPrefix: 'c_' });
    ids.startTurn();
    expect(ids.call('call_0')).toBe('call_0');
    expect(ids.result('call_0')).toBe('call_0');
    ids.startTurn();
    const second = ids.call('call_0');
    expect(second).not.toBe('call_0');
    expect(second.length).toBeLessThanOrEqual(8);
    expect(ids.result('call_0')).toBe(second);
    ids.startTurn();
    const [a, b] = [ids.call(''), ids.call('')];
    expect([a, b]).toEqual(['c_2', 'c_3']);
    // Two results for two calls with one id: paired in order.
    expect([ids.result(''), ids.result('')]).toEqual([a, b]);
    // A result whose call is not in the latest turn: its id made valid, the same every time.
    expect(ids.result('a-very-long-id')).toBe(short('a-very-long-id'));
    expect(ids.result('')).toBe(b);
  });

  it('idDigest is stable and tells ids with one prefix apart', () => {
    expect(idDigest('x'.repeat(70) + '1')).toBe(idDigest('x'.repeat(70) + '1'));
    expect(idDigest('x'.repeat(70) + '1')).not.toBe(idDigest('x'.repeat(70) + '2'));
  });
});

describe('responseToolCallIds', () => {
  it("keeps the provider's ids, makes a repeated one unique and gives a missing one a new id", () => {
    const idOf = responseToolCallIds('toolu_');
    expect([idOf('toolu_a'), idOf('toolu_a'), idOf(undefined), idOf(''), idOf('toolu_a')]).toEqual([
      'toolu_a',
      'toolu_a_2',
      'toolu_2',
      'toolu_3',
      'toolu_a_3',
    ]);
  });
});
