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

  it('reads names without backticks when they can only be code', () => {
    expect(askedRemovals('Remove the console.log call from src/app.js')).toEqual([
      { name: 'console.log', files: ['src/app.js'] },
    ]);
    expect(askedRemovals('Delete debugLog() from src/app.js')).toEqual([
      { name: 'debugLog', files: ['src/app.js'] },
    ]);
    expect(askedRemovals('Remove the legacy_auth function and every console.debug call')).toEqual([
      { name: 'legacy_auth', files: [], everywhere: true },
      { name: 'console.debug', files: [], everywhere: true },
    ]);
    // English words, file names and paths are not names of code.
    expect(askedRemovals('Remove the debug function from src/app.js')).toEqual([]);
    expect(askedRemovals('Remove the utils.js import from src/app.js')).toEqual([]);
    expect(askedRemovals('Delete the old lines from notes.txt')).toEqual([]);
    expect(askedRemovals('Remove src/legacy.js')).toEqual([]);
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

  it('reads every occurrence asked (a folder, uses only) and members like `console.log`', async () => {
    expect(askedRemovals('Remove all `console.log` calls from src/')).toEqual([
      { name: 'console.log', files: [], everywhere: true, folder: 'src' },
    ]);
    expect(askedRemovals('Remove every use of the deprecated `oldApi` helper')).toEqual([
      { name: 'oldApi', files: [], everywhere: true, usesOnly: true },
    ]);
    const before = 'export const oldApi = () => 1;\nexport const a = () => oldApi();\n';
    const after = 'export const oldApi = () => 1;\nexport const a = () => 1;\n';
    expect(await removalProblem('a.js', 'oldApi', before, after, { usesOnly: true })).toBeUndefined();
    expect(await removalProblem('a.js', 'oldApi', before, after)).toMatch(/still has/);
    expect(await removalProblem('a.js', 'oldApi', before, before, { usesOnly: true })).toMatch(/still has/);
  });
});
