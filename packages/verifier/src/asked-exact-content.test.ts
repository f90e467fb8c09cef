import { describe, expect, it } from 'vitest';
import { askedExactContents, exactContentProblem } from './asked-exact-content';

describe('askedExactContents', () => {
  it('reads the file and the text of "containing exactly", "write exactly … to", fenced blocks', () => {
    expect(askedExactContents('Create VERSION.txt containing exactly `1.4.0`')).toEqual([
      { file: 'VERSION.txt', text: '1.4.0' },
    ]);
    expect(askedExactContents('Write exactly "ok" to status.txt.')).toEqual([
      { file: 'status.txt', text: 'ok' },
    ]);
    expect(askedExactContents('Create .nvmrc with exactly the content `20`')).toEqual([
      { file: '.nvmrc', text: '20' },
    ]);
    expect(
      askedExactContents('Create config/hosts.txt with exactly this content:\n```\nalpha\nbeta\n```\n'),
    ).toEqual([{ file: 'config/hosts.txt', text: 'alpha\nbeta\n' }]);
  });

  it('reads nothing without a file, with two files, or for "exactly" about something else', () => {
    expect(askedExactContents('Make `retry()` try exactly 3 times in src/retry.js')).toEqual([]);
    expect(askedExactContents('Copy a.txt to b.txt so it contains exactly `x`')).toEqual([]);
    expect(askedExactContents('The greeting should be exactly "hi"')).toEqual([]);
  });
});

describe('exactContentProblem', () => {
  it('accepts the text with or without one final newline, and written escapes', () => {
    expect(exactContentProblem('1.4.0', '1.4.0')).toBeUndefined();
    expect(exactContentProblem('1.4.0\n', '1.4.0')).toBeUndefined();
    expect(exactContentProblem('a\nb\n', 'a\\nb')).toBeUndefined();
    expect(exactContentProblem('alpha\nbeta', 'alpha\nbeta\n')).toBeUndefined();
  });

  it('names a byte order mark, CRLF, trailing spaces, blank lines, different text', () => {
    expect(exactContentProblem('\uFEFF1.4.0\n', '1.4.0')).toMatch(/byte order mark/);
    expect(exactContentProblem('alpha\r\nbeta\r\n', 'alpha\nbeta\n')).toMatch(/CRLF/);
    expect(exactContentProblem('\uFEFFalpha\r\nbeta\r\n', 'alpha\nbeta\n')).toMatch(/byte order mark.*CRLF/);
    expect(exactContentProblem('1.4.0 \n', '1.4.0')).toMatch(/spaces or tabs/);
    expect(exactContentProblem('1.4.0\n\n\n', '1.4.0')).toMatch(/blank lines/);
    expect(exactContentProblem('1.4.1\n', '1.4.0')).toMatch(/differs/);
  });
});
