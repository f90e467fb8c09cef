import { describe, expect, it } from 'vitest';
import { askedRename, oldNameLine, renameReaches } from './asked-renames';

describe('askedRename', () => {
  it('reads a backticked rename, its scope, and leaves renames that keep the old name', () => {
    expect(askedRename('Rename `fetchUser` to `getUser` across the codebase')).toEqual({
      from: 'fetchUser',
      to: 'getUser',
      files: [],
    });
    expect(askedRename('Rename `foo` to `bar` in src/a.js')).toEqual({
      from: 'foo',
      to: 'bar',
      files: ['src/a.js'],
    });
    expect(askedRename('Rename `fetchUser` to `getUser` and keep a deprecated alias')).toBeUndefined();
    expect(askedRename('Rename src/util.js to src/helpers.js')).toBeUndefined();
    expect(askedRename('Rename `a` to `b`')).toBeUndefined();
    // Without backticks: only names that are plainly code.
    expect(askedRename('Rename the function fetchUser to loadUser in src/user.js')).toEqual({
      from: 'fetchUser',
      to: 'loadUser',
      files: ['src/user.js'],
    });
    expect(askedRename('Rename parse_args() to read_args()')).toEqual({
      from: 'parse_args',
      to: 'read_args',
      files: [],
    });
    expect(askedRename('Rename the method main to run')).toEqual({ from: 'main', to: 'run', files: [] });
    expect(askedRename('Rename the README to docs')).toBeUndefined();
    expect(askedRename('Rename src/util.js to src/helpers.js please')).toBeUndefined();
    expect(askedRename('Rename the project to closedloop')).toBeUndefined();
  });
});

describe('oldNameLine', () => {
  it('finds the old name as code, not in comments, strings or as a member of another object', async () => {
    expect(await oldNameLine('a.js', "import { fetchUser } from './api.js';\n", 'fetchUser')).toBe(1);
    expect(await oldNameLine('a.js', '// fetchUser was renamed\nconst s = "fetchUser";\n', 'fetchUser')).toBe(
      undefined,
    );
    expect(await oldNameLine('a.py', 'import json\n\nx = json.load(f)\n', 'load')).toBeUndefined();
    expect(await oldNameLine('a.py', 'from app.config import load\n', 'load')).toBe(1);
    expect(await oldNameLine('a.js', 'const fetchUserLabel = 1;\n', 'fetchUser')).toBeUndefined();
  });

  it('reaches source code, not build output or vendored code', () => {
    expect(renameReaches('src/a.ts')).toBe(true);
    expect(renameReaches('dist/a.js')).toBe(false);
    expect(renameReaches('node_modules/x/index.js')).toBe(false);
    expect(renameReaches('README.md')).toBe(false);
  });
});
