import { describe, expect, it } from 'vitest';
import { askedValueChanges, staleValue, valueCount } from './asked-value-changes';

describe('asked value changes ("from A to B")', () => {
  it('reads the numbers and the files of each "from A to B"', () => {
    expect(askedValueChanges('Change the default page size in src/list.js from 20 to 50')).toEqual([
      { from: '20', to: '50', files: ['src/list.js'] },
    ]);
    expect(askedValueChanges('Raise the timeout from 5000 ms to 10000 ms')).toEqual([
      { from: '5000', to: '10000', files: [] },
    ]);
    expect(askedValueChanges('Move the button from the header to the footer')).toEqual([]);
  });

  it('counts a number standing on its own', () => {
    expect(valueCount('f(20, 120, 1.20, 20.5, x20)', '20')).toBe(1);
  });

  it('finds the code still holding the old value, not a real change', async () => {
    const change = { from: '20', to: '50', files: [] };
    const before = 'export const list = (items, size = 20) => items.slice(0, size);\n';
    const commented = `// size defaults to 50\n${before}`;
    const changed = before.replace('20', '50');
    const readme = { file: 'README.md', before: 'size: 20\n', after: 'size: 50\n' };
    expect(await staleValue(change, [{ file: 'a.js', before, after: commented }, readme])).toEqual(['a.js']);
    expect(await staleValue(change, [{ file: 'a.js', before, after: changed }, readme])).toBeUndefined();
    // A constant with the new value that nothing uses leaves the old one in the call.
    const unused = { file: 'a.js', before, after: `const SIZE = 50;\n${before}` };
    expect(await staleValue(change, [unused])).toEqual(['a.js']);
    // No target held the old value: nothing to say.
    expect(await staleValue(change, [{ file: 'b.js', before: 'x\n', after: 'y\n' }])).toBeUndefined();
  });
});
