import { describe, expect, it } from 'vitest';
import { askedRemovals, removalProblem } from './asked-removals';

const BEFORE = 'export function keep() {}\nexport function legacyAuth(u) {\n  return u;\n}\n';

describe('askedRemovals', () => {
  it('reads backticked names to remove and the file they are in', () => {
    expect(askedRemovals('Remove the `legacyAuth` function from src/auth.js')).toEqual([
      { name: 'legacyAuth', files: ['src/auth.js'] },
    ]);
    expect(askedRemovals('Replace `foo` with `bar`')).toEqual([]);
    expect(askedRemovals('Add `foo` to src/a.js')).toEqual([]);
  });
});

describe('removalProblem', () => {
  it('fails a name left in code, commented out or renamed', async () => {
    expect(await removalProblem('a.js', 'legacyAuth', BEFORE, BEFORE)).toMatch(/still has/);
    expect(
      await removalProblem(
        'a.js',
        'legacyAuth',
        BEFORE,
        'export function keep() {}\n// export function legacyAuth(u) {\n//   return u;\n// }\n',
      ),
    ).toMatch(/commented out/);
    expect(
      await removalProblem('a.js', 'legacyAuth', BEFORE, BEFORE.replace('legacyAuth', '_legacyAuth')),
    ).toMatch(/renamed/);
    expect(
      await removalProblem(
        'a.py',
        'debug_dump',
        'def debug_dump(x):\n    print(x)\n',
        '# def debug_dump(x):\n#     print(x)\n',
      ),
    ).toMatch(/commented out/);
  });

  it('passes a name gone, mentioned in prose, or one that was never there', async () => {
    expect(await removalProblem('a.js', 'legacyAuth', BEFORE, 'export function keep() {}\n')).toBeUndefined();
    expect(
      await removalProblem(
        'a.js',
        'legacyAuth',
        BEFORE,
        'export function keep() {}\n// legacyAuth was removed in v2.\n',
      ),
    ).toBeUndefined();
    expect(await removalProblem('a.js', 'other', BEFORE, BEFORE)).toBeUndefined();
  });
});
