import { describe, expect, it } from 'vitest';
import { truncateText } from './truncate-text';

describe('truncateText', () => {
  it('leaves short text alone and cuts long text to the limit', () => {
    expect(truncateText('abc', 3)).toBe('abc');
    for (const max of [5, 60, 100, 1000])
      expect(truncateText('y'.repeat(5000), max).length).toBeLessThanOrEqual(max);
  });

  it('keeps 70 % head and 30 % tail around a marker that counts what was cut', () => {
    const text = `${'h'.repeat(500)}${'m'.repeat(9000)}${'t'.repeat(500)}`;
    const cut = truncateText(text, 1000);
    expect(cut.length).toBeLessThanOrEqual(1000);
    const marker = '\n\n[… truncated: 9054 of 10000 characters omitted …]\n\n';
    expect(cut).toContain(marker);
    const [head, tail] = cut.split(marker);
    expect(head).toBe('h'.repeat(500) + 'm'.repeat(163));
    expect(tail).toBe('t'.repeat(283));
    expect(head!.length + marker.length + tail!.length).toBe(cut.length);
    expect(head!.length / (head!.length + tail!.length)).toBeCloseTo(0.7, 2);
  });

  it('falls back to a plain cut when the limit cannot hold the marker', () => {
    expect(truncateText('abcdefgh', 3)).toBe('abc');
  });
});
