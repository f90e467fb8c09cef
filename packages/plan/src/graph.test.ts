import { describe, expect, it } from 'vitest';
import { findCycle, findIndexCycle } from './graph';

describe('findIndexCycle', () => {
  it('returns undefined for an acyclic graph, including duplicate edges', () => {
    expect(findIndexCycle([])).toBeUndefined();
    expect(findIndexCycle([[], [0], [0, 1, 1]])).toBeUndefined();
  });

  it('returns the cycle in dependency order, first index repeated', () => {
    expect(findIndexCycle([[0]])).toEqual([0, 0]);
    // 0 depends on 3, 3 on 2, 2 on 1, 1 on 0; 4 hangs off the cycle.
    expect(findIndexCycle([[3], [0], [1], [2], [0]])).toEqual([0, 3, 2, 1, 0]);
  });

  it('agrees with findCycle on ids', () => {
    const items = [
      { id: 'a', dependsOn: ['c', 'outside'] },
      { id: 'b', dependsOn: ['a'] },
      { id: 'c', dependsOn: ['b'] },
    ];
    expect(findCycle(items)).toEqual(['a', 'c', 'b', 'a']);
    expect(findIndexCycle([[2], [0], [1]])).toEqual([0, 2, 1, 0]);
  });
});
