import { describe, expect, it } from 'vitest';
import { globToRegExp, testCollection } from './test-collection';

const files =
  (map: Record<string, string>) =>
  (file: string): string | undefined =>
    map[file];
const pkg = (test: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ name: 'x', scripts: { test }, ...extra });

describe('globToRegExp', () => {
  it('reads globstars, braces, classes and extglobs', () => {
    expect(globToRegExp('src/**/*.test.ts').test('src/a/b.test.ts')).toBe(true);
    expect(globToRegExp('src/**/*.test.ts').test('src/b.test.ts')).toBe(true);
    expect(globToRegExp('**/*.{test,spec}.?(c|m)[jt]s?(x)').test('src/a.spec.mts')).toBe(true);
    expect(globToRegExp('**/*.{test,spec}.?(c|m)[jt]s?(x)').test('src/a.check.ts')).toBe(false);
  });
});

describe('testCollection', () => {
  it('judges by vitest include globs, not by a folder name the config happens to contain', () => {
    const read = files({
      'package.json': pkg('vitest run'),
      'vitest.config.ts': "export default { test: { include: ['src/**/*.test.ts'] } };\n",
    });
    expect(testCollection('src/double.check.ts', read)).toBe('lost');
    expect(testCollection('src/math/double.test.ts', read)).toBe('collected');
    expect(testCollection('src/double.check.ts', files({ 'package.json': pkg('vitest run') }))).toBe('lost');
  });

  it('reads jest testMatch and defaults', () => {
    const read = files({ 'package.json': pkg('jest', { jest: { testMatch: ['**/src/**/*.check.js'] } }) });
    expect(testCollection('src/double.check.js', read)).toBe('collected');
    expect(testCollection('lib/double.check.js', read)).toBe('lost');
    expect(testCollection('src/__tests__/double.js', files({ 'package.json': pkg('jest') }))).toBe(
      'collected',
    );
  });

  it('reads node --test arguments as Node 20 does', () => {
    expect(
      testCollection('checks/double.js', files({ 'package.json': pkg('node --test test/ checks/') })),
    ).toBe('lost');
    expect(
      testCollection('checks/double-test.js', files({ 'package.json': pkg('node --test checks/') })),
    ).toBe('collected');
    expect(
      testCollection('src/double.check.js', files({ 'package.json': pkg('node --test src/*.check.js') })),
    ).toBe('collected');
  });

  it('reads pytest testpaths and python_files', () => {
    const read = files({ 'pytest.ini': '[pytest]\ntestpaths = src\n' });
    expect(testCollection('src/parse_checks.py', read)).toBe('lost');
    expect(testCollection('src/test_parse.py', read)).toBe('collected');
    expect(
      testCollection(
        'checks/parse_checks.py',
        files({ 'pyproject.toml': '[tool.pytest.ini_options]\npython_files = ["*_checks.py"]\n' }),
      ),
    ).toBe('collected');
    expect(
      testCollection('checks/parse_checks.py', read, [['python3', '-m', 'pytest', 'checks/parse_checks.py']]),
    ).toBe('collected');
  });

  it('says unknown when the configuration is computed or the runner is not known', () => {
    expect(
      testCollection(
        'src/a.check.ts',
        files({
          'package.json': pkg('vitest'),
          'vitest.config.ts': 'export default { test: { projects: ["a"] } };',
        }),
      ),
    ).toBe('unknown');
    expect(testCollection('src/a.check.js', files({ 'package.json': pkg('./run-tests.sh') }))).toBe(
      'unknown',
    );
  });
});
