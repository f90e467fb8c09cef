import { describe, expect, it } from 'vitest';
import { truncateToolResult } from './truncate-tool-result';

describe('truncateToolResult', () => {
  it('returns short text unchanged', () => {
    expect(truncateToolResult('hello', 5)).toBe('hello');
  });

  it('keeps head and tail around a marker that says how much was cut', () => {
    const text = `${'h'.repeat(100)}${'m'.repeat(800)}${'t'.repeat(100)}`;
    const cut = truncateToolResult(text, 100);
    expect(cut).toBe(`${'h'.repeat(75)}\n…[truncated 900 of 1000 characters]…\n${'t'.repeat(25)}`);
  });

  it('handles a budget of one character', () => {
    expect(truncateToolResult('abc', 1)).toBe('\n…[truncated 2 of 3 characters]…\nc');
  });
});
