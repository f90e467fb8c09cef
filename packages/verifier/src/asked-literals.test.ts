import { describe, expect, it } from 'vitest';
import { askedLiterals, containsLiteral } from './asked-literals';

describe('askedLiterals', () => {
  it('reads the quoted text a step is asked to add', () => {
    expect(askedLiterals('Add a `--verbose` flag to src/cli.js')).toEqual([
      { text: '--verbose', code: true },
    ]);
    expect(askedLiterals('Add an "Installation" section to README.md')).toEqual([
      { text: 'Installation', code: false },
    ]);
    expect(askedLiterals('Rename `foo` to `bar` in src/a.js')).toEqual([{ text: 'bar', code: true }]);
    expect(askedLiterals('Add a `build` script that runs `tsc -p .` to package.json')).toEqual([
      { text: 'build', code: true },
    ]);
  });

  it('reads nothing from paths, commands, removals, swaps and other verbs', () => {
    for (const description of [
      'Update `README.md`',
      'Run `npm test` and add the output to notes.md',
      'Replace `var` with `const` in src/a.js',
      'Fix the typo "recieve" in src/a.js',
      'Create src/math.js with `add` and `multiply`',
      'Add tests for `isPrime` in `test/a.test.js`'.replace('`isPrime`', 'isPrime'),
    ])
      expect(askedLiterals(description), description).toEqual([]);
  });
});

describe('containsLiteral', () => {
  it('compares without whitespace and quote style, prose without case, a flag by its name', () => {
    expect(containsLiteral('{\n  "type": "module"\n}', { text: '"type":"module"', code: true })).toBe(true);
    expect(containsLiteral("const type = 'module'", { text: '"type": "module"', code: true })).toBe(false);
    expect(containsLiteral('{ "strict": true }', { text: 'strict: true', code: true })).toBe(true);
    expect(containsLiteral('## installation\n', { text: 'Installation', code: false })).toBe(true);
    expect(containsLiteral('## installation\n', { text: 'Installation', code: true })).toBe(false);
    expect(containsLiteral("program.option('verbose')", { text: '--verbose', code: true })).toBe(true);
    expect(containsLiteral('console.log(args)', { text: '--verbose', code: true })).toBe(false);
  });
});
