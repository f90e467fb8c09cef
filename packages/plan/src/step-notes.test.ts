import { describe, expect, it } from 'vitest';
import { formatStepNotes, parseStepNotes } from './step-notes';

describe('parseStepNotes', () => {
  it.each([
    [
      '[FAIL]: Unable to access Facebook API - no credentials available',
      'fail',
      'Unable to access Facebook API - no credentials available',
    ],
    ['[FAIL] no credentials', 'fail', 'no credentials'],
    ['[FAIL]no space at all', 'fail', 'no space at all'],
    ['   \n [FAIL]: leading whitespace', 'fail', 'leading whitespace'],
    ['[FAIL]', 'fail', ''],
    ['[SUCCESS]: Posted joke to Facebook successfully', 'success', 'Posted joke to Facebook successfully'],
    ['[SUCCESS] done', 'success', 'done'],
    ['  [SUCCESS]:done  ', 'success', 'done'],
  ] as const)('%j → %s', (notes, status, message) => {
    expect(parseStepNotes(notes)).toEqual({ status, message });
  });

  it('is case-sensitive: lowercase tags are not tags', () => {
    expect(parseStepNotes('[fail]: nope')).toEqual({ status: 'none', message: '[fail]: nope' });
    expect(parseStepNotes('[Success]: nope').status).toBe('none');
  });

  it('treats empty and untagged notes as none (backward compatible)', () => {
    expect(parseStepNotes('')).toEqual({ status: 'none', message: '' });
    expect(parseStepNotes(undefined)).toEqual({ status: 'none', message: '' });
    expect(parseStepNotes('wrote the file')).toEqual({ status: 'none', message: 'wrote the file' });
  });

  it('reads a tag hidden behind invisible characters or written in full-width characters', () => {
    expect(parseStepNotes('\u200b[FAIL]: b is missing')).toEqual({ status: 'fail', message: 'b is missing' });
    expect(parseStepNotes('\ufeff\u2060 [FAIL] nope').status).toBe('fail');
    expect(parseStepNotes('［FAIL］：无法完成')).toEqual({ status: 'fail', message: '无法完成' });
    expect(parseStepNotes('[ＦＡＩＬ]: no').status).toBe('fail');
    expect(parseStepNotes('\u200b[SUCCESS]: done')).toEqual({ status: 'success', message: 'done' });
    expect(parseStepNotes('[fail]: lower case is not a tag').status).toBe('none');
  });

  it('only reads a tag at the start', () => {
    expect(parseStepNotes('All good, no [FAIL] here').status).toBe('none');
  });
});

describe('formatStepNotes', () => {
  it('writes the tagged format and round-trips through parseStepNotes', () => {
    expect(formatStepNotes('fail', 'no credentials')).toBe('[FAIL]: no credentials');
    expect(formatStepNotes('success', ' done ')).toBe('[SUCCESS]: done');
    expect(formatStepNotes('none', 'plain')).toBe('plain');
    for (const status of ['fail', 'success', 'none'] as const) {
      expect(parseStepNotes(formatStepNotes(status, 'a message'))).toEqual({ status, message: 'a message' });
    }
  });
});
