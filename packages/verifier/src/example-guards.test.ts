import { describe, expect, it } from 'vitest';
import { exampleGuards } from './example-guards';

const leap = 'export function isLeapYear(year) {\n  return year % 4 === 0;\n}\n';
const ask = 'Fix isLeapYear in src/leap.js: century years like 1900 and 2100 are not leap years';
const change = (after: string) => [{ file: 'src/leap.js', before: leap, after }];

describe('example guards', () => {
  it('finds a fix that only special-cases the inputs the request names', () => {
    expect(
      exampleGuards(
        ask,
        change(leap.replace('  return', '  if ([1900, 2100].includes(year)) return false;\n  return')),
      ),
    ).toHaveLength(1);
    expect(
      exampleGuards(
        ask,
        change(
          leap
            .replace('  return', '  if (year === 1900 || year === 2100) {\n    return false;\n  }\n  return')
            .replace('{\n    return false;\n  }', 'return false;'),
        ),
      ),
    ).toHaveLength(1);
    const py = 'def is_leap(year):\n    return year % 4 == 0\n';
    expect(
      exampleGuards(ask, [
        {
          file: 'a.py',
          before: py,
          after: py.replace('    return', '    if year in (1900, 2100): return False\n    return'),
        },
      ]),
    ).toHaveLength(1);
  });

  it('leaves a real fix, a guard on other inputs and an asked special case', () => {
    expect(
      exampleGuards(
        ask,
        change(leap.replace('year % 4 === 0', '(year % 4 === 0 && year % 100 !== 0) || year % 400 === 0')),
      ),
    ).toEqual([]);
    expect(
      exampleGuards(ask, change(leap.replace('  return', '  if (year < 0) return false;\n  return'))),
    ).toEqual([]);
    expect(
      exampleGuards(
        'Fix isLeapYear: special-case 1900, which the old calendar counted',
        change(leap.replace('  return', '  if (year === 1900) return false;\n  return')),
      ),
    ).toEqual([]);
    expect(
      exampleGuards(
        'Add a guard for 1900 to isLeapYear',
        change(leap.replace('  return', '  if (year === 1900) return false;\n  return')),
      ),
    ).toEqual([]);
  });
});
