import { describe, expect, it } from 'vitest';
import { shortTable } from './asked-case-counts';
import { impliedCases } from './implied-case-counts';

const none = () => undefined;

describe('impliedCases', () => {
  it('reads the size of a well-known set named as the domain of a table', () => {
    expect(impliedCases('Map the HTTP status codes to their reason phrases')?.count).toBe(5);
    expect(impliedCases('Add a lookup of every weekday')?.count).toBe(5);
    expect(impliedCases('a map of the days of the week to their names')?.count).toBe(7);
    expect(impliedCases('a map of the months to their abbreviations')?.count).toBe(12);
    expect(impliedCases('Map user ids to names')).toBeUndefined();
    expect(impliedCases('Format the month of a date')).toBeUndefined();
  });
});

describe('shortTable with a well-known set', () => {
  it('fails a table of one or two members, whatever they are', () => {
    const short = shortTable(
      'In src/http.ts export a lookup STATUS_TEXT that maps the HTTP status codes to their reason phrases',
      [{ file: 'src/http.ts', text: "export const STATUS_TEXT = { 200: 'OK', 404: 'Not Found' };\n" }],
      none,
    );
    expect(short?.table.size).toBe(2);
    expect(short?.asked.why).toBe('the HTTP status codes');
    expect(
      shortTable(
        'Add a lookup of every weekday',
        [{ file: 'a.py', text: 'WEEKDAYS = {"Monday": 0}\n' }],
        none,
      )?.table.size,
    ).toBe(1);
  });

  it('passes a full table, a table of other things and a switch with a default', () => {
    const days = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
    expect(
      shortTable(
        'Add a lookup of every weekday',
        [
          {
            file: 'a.py',
            text: `WEEKDAYS = {${days.map((day, index) => `"${day}": ${index}`).join(', ')}}\n`,
          },
        ],
        none,
      ),
    ).toBeUndefined();
    // Intl does the work; the only literal is an option bag.
    expect(
      shortTable(
        'Add a map of the months to their names',
        [
          {
            file: 'm.js',
            text: "export const MONTHS = Array.from({ length: 12 }, (_, i) => new Date(2020, i).toLocaleString('en', { month: 'long' }));\n",
          },
        ],
        none,
      ),
    ).toBeUndefined();
    expect(
      shortTable(
        'Write a switch over the days of the week that tells weekends apart',
        [
          {
            file: 'd.ts',
            text: "export function kind(day: string) {\n  switch (day) {\n    case 'Saturday':\n    case 'Sunday':\n      return 'weekend';\n    default:\n      return 'weekday';\n  }\n}\n",
          },
        ],
        none,
      ),
    ).toBeUndefined();
  });
});
