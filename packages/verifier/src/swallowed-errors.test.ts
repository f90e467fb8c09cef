import { describe, expect, it } from 'vitest';
import { handlingAsked, swallowedErrors } from './swallowed-errors';

describe('swallowedErrors', () => {
  it('reads error handling asked, not silencing asked', () => {
    expect(handlingAsked('Handle errors in fetchUser')).toBe(true);
    expect(handlingAsked('Add error handling to src/api.js')).toBe(true);
    expect(handlingAsked('Ignore errors in the cleanup (best effort)')).toBe(false);
    expect(handlingAsked('Fix the bug in src/api.js')).toBe(false);
  });

  it('finds added handlers that all do nothing', async () => {
    const before = 'export function f() {\n  return g();\n}\n';
    const empty = 'export function f() {\n  try {\n    return g();\n  } catch {}\n}\n';
    const real =
      'export function f() {\n  try {\n    return g();\n  } catch (e) {\n    return null;\n  }\n}\n';
    expect(await swallowedErrors([{ file: 'a.js', before, after: empty }])).toEqual(['a.js']);
    expect(await swallowedErrors([{ file: 'a.js', before, after: real }])).toEqual([]);
    expect(await swallowedErrors([{ file: 'a.js', before: empty, after: empty }])).toEqual([]);
    expect(
      await swallowedErrors([
        { file: 'a.py', before: undefined, after: 'try:\n    f()\nexcept Exception:\n    pass\n' },
      ]),
    ).toEqual(['a.py']);
    expect(
      await swallowedErrors([
        { file: 'a.py', before: undefined, after: 'try:\n    f()\nexcept OSError:\n    return None\n' },
      ]),
    ).toEqual([]);
  });
});
