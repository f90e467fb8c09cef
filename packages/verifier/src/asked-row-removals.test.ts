import { describe, expect, it } from 'vitest';
import { askedRowRemovals, rowsLeft } from './asked-row-removals';

describe('askedRowRemovals', () => {
  it('reads the row and the data file', () => {
    expect(askedRowRemovals('Remove the row for Bob from data/people.csv')).toEqual([
      { value: 'Bob', file: 'data/people.csv' },
    ]);
    expect(askedRowRemovals('Delete the line with `DEBUG=1` from config/dev.env')).toEqual([
      { value: 'DEBUG=1', file: 'config/dev.env' },
    ]);
    expect(askedRowRemovals('Delete the line containing "beta" in flags.txt')).toEqual([
      { value: 'beta', file: 'flags.txt' },
    ]);
    expect(askedRowRemovals('Remove the row for Bob')).toEqual([]);
    expect(askedRowRemovals('Remove the function for parsing from src/a.js')).toEqual([]);
  });
});

describe('rowsLeft', () => {
  it('finds lines that still hold the value as a word', () => {
    expect(rowsLeft('name,age\nAlice,30\nBob,25\n', 'Bob')).toEqual([3]);
    expect(rowsLeft('name,age\nAlice,30\nBobby,25\n', 'Bob')).toEqual([]);
    expect(rowsLeft('# Bob left\nAlice\n', 'Bob')).toEqual([]);
  });
});
