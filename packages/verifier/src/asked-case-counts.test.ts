import { describe, expect, it } from 'vitest';
import { askedCases, shortTable, tablesIn } from './asked-case-counts';

const none = () => undefined;

describe('askedCases', () => {
  it('reads a count, a range, a listed run of literals, or the keys of a JSON file to mirror', () => {
    expect(askedCases('Map each of the 7 weekday numbers to a name', none)?.count).toBe(7);
    expect(askedCases('A lookup of the level numbers 1-5 to labels', none)?.count).toBe(5);
    expect(askedCases('Use a switch over the codes 200, 201, 404 and 500', none)?.count).toBe(4);
    expect(
      askedCases('Add fr.json translating every key in en.json', (file) =>
        file === 'en.json' ? '{"a":"A","b":{"c":"C"}}' : undefined,
      )?.count,
    ).toBe(2);
    expect(askedCases('Fix the bug in src/app.js', none)).toBeUndefined();
    // Counts of things that are not cases of a table.
    expect(askedCases('Set timeout to 30 in the map of all 3 services', none)).toBeUndefined();
    expect(askedCases('Update each of the 4 files that use the lookup', none)).toBeUndefined();
  });
});

describe('tablesIn', () => {
  it('counts object, dict and array literals, case labels and match arms', () => {
    expect(tablesIn("const T = { 0: 'a', 1: 'b' };").map((table) => table.size)).toContain(2);
    expect(
      tablesIn("switch (x) {\n  case 1:\n  case 2:\n    return 'a';\n  default:\n    return 'b';\n}").map(
        (t) => t.size,
      ),
    ).toContain(2);
    expect(tablesIn('match x { 1 => "a", 2 | 3 => "b", _ => "c" }').map((t) => t.size)).toContain(3);
    expect(tablesIn("const D = ['Sun', 'Mon', 'Tue'];").map((t) => t.size)).toContain(3);
  });
});

describe('shortTable', () => {
  const ask = 'Export DAY_NAMES mapping each of the 7 weekday numbers 0-6 to its name (0 → "Sunday")';
  it('fails a table that holds only the example of a request for seven', () => {
    expect(
      shortTable(ask, [{ file: 'd.ts', text: "export const DAY_NAMES = { 0: 'Sunday' };" }], none),
    ).toMatchObject({
      table: { size: 1 },
      asked: { count: 7 },
    });
  });

  it('passes a full table, and a small option bag of code that uses no table', () => {
    const full = `export const DAY_NAMES = { ${[
      'Sunday',
      'Monday',
      'Tuesday',
      'Wednesday',
      'Thursday',
      'Friday',
      'Saturday',
    ]
      .map((day, index) => `${index}: '${day}'`)
      .join(', ')} };`;
    expect(shortTable(ask, [{ file: 'd.ts', text: full }], none)).toBeUndefined();
    expect(
      shortTable(
        'dayName(n) returns each of the 7 weekday names',
        [
          {
            file: 'd.js',
            text: "export const dayName = (n) => new Intl.DateTimeFormat('en', { weekday: 'long' }).format(n);",
          },
        ],
        none,
      ),
    ).toBeUndefined();
  });
});
