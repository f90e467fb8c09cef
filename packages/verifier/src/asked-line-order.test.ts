import { describe, expect, it } from 'vitest';
import { askedOrders, orderProblem } from './asked-line-order';

describe('askedOrders', () => {
  it('reads sorts and dedupes of named files', () => {
    expect(askedOrders('Sort the lines of data/words.txt alphabetically')).toEqual([
      { action: 'sort', file: 'data/words.txt' },
    ]);
    expect(askedOrders('Sort the dependencies in package.json alphabetically')).toEqual([
      { action: 'sort', file: 'package.json', key: 'dependencies' },
    ]);
    expect(askedOrders('Remove the duplicate lines from data/emails.txt')).toEqual([
      { action: 'dedupe', file: 'data/emails.txt' },
    ]);
    expect(askedOrders('Fix the sort order bug in src/list.js')).toEqual([]);
  });
});

describe('orderProblem', () => {
  it('finds lines out of order and duplicates left', () => {
    expect(orderProblem({ action: 'sort', file: 'w.txt' }, 'apple\npear\nfig\n')).toBe(
      '`pear` comes before `fig`',
    );
    expect(orderProblem({ action: 'dedupe', file: 'e.txt' }, 'a\nb\na\n')).toBe(
      '`a` is still there more than once',
    );
    expect(
      orderProblem(
        { action: 'sort', file: 'package.json', key: 'dependencies' },
        '{"dependencies":{"zod":"1","chalk":"1"}}',
      ),
    ).toBe('`zod` comes before `chalk`');
  });

  it('accepts sorted files with or without case, and leaves code alone', () => {
    expect(orderProblem({ action: 'sort', file: 'w.txt' }, 'Apple\nbanana\nCherry\n')).toBeUndefined();
    expect(orderProblem({ action: 'sort', file: 'w.txt' }, 'B\na\n')).toBeUndefined();
    expect(orderProblem({ action: 'sort', file: 'list.js' }, 'b\na\n')).toBeUndefined();
    expect(orderProblem({ action: 'dedupe', file: 'p.csv' }, 'name\nann\nbob\n')).toBeUndefined();
  });
});
