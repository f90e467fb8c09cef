import { describe, expect, it } from 'vitest';
import { stepExpectations } from './step-expectations';

const outcomes = (description: string) => [...stepExpectations(description).outcomes].sort();

describe('stepExpectations (per-step criteria from the description)', () => {
  it.each([
    ['Create package.json for an ES module package whose test script is "node --test".', ['write']],
    ['Write src/is-prime.js exporting isPrime(n).', ['write']],
    ['Run the test suite with node --test and report the result.', ['test']],
    ['Fix isPrime so that the tests pass', ['test', 'write']],
    ['Delete old.txt', ['delete']],
    ['Review src/a.ts and list the exported functions', ['read']],
    ['Install lodash', ['install']],
    ['Add vitest as a dev dependency', ['install']],
    ['Add vitest as a dev dependency in package.json', ['write']],
    ['Add requests as a dependency to pyproject.toml', ['write']],
    ['Add vitest as a dev dependency in package.json and install it', ['install', 'write']],
    ['Commit the changes', ['commit']],
    ['Push the branch to origin', ['push']],
    ['Build the project with `npm run build`', ['run']],
    ['Think about the design', []],
    ['创建 src/a.ts 并实现 isPrime 函数', ['write']],
    ['src/a.ts を作成してください', ['write']],
    ['テストを実行する', ['run', 'test']],
    ['Refactor src/a.ts without changing the public API', ['write']],
  ])('%s → %j', (description, expected) => {
    expect(outcomes(description)).toEqual(expected);
  });

  it('reads a file asked to be renamed or moved as a move, not a code move between files', () => {
    expect(stepExpectations('Rename src/a.ts to src/b.ts').move).toEqual([
      { from: 'src/a.ts', to: 'src/b.ts' },
    ]);
    expect(stepExpectations('Move the file lib/x.js into src/x.js').move).toEqual([
      { from: 'lib/x.js', to: 'src/x.js' },
    ]);
    expect(stepExpectations('Move `parse` from src/a.js to src/b.js').move).toEqual([]);
    expect(stepExpectations('Create src/a.ts and copy it to src/b.ts').move).toEqual([]);
  });

  it('reads the name after "called" or "named", not the word itself', () => {
    expect(stepExpectations('Add a function called parseDate to src/date.js').symbols).toEqual([
      { name: 'parseDate', file: 'src/date.js' },
    ]);
    expect(stepExpectations('Add a class named Cache to src/date.js').symbols).toEqual([
      { name: 'Cache', file: 'src/date.js' },
    ]);
  });

  it("reads a method asked of a class as that class's member", () => {
    expect(stepExpectations('Add a method area to class Circle in src/shapes.js').symbols).toEqual([
      { name: 'Circle.area', file: 'src/shapes.js' },
    ]);
    expect(stepExpectations('Add an `area` method to the Circle class in shapes.py').symbols).toEqual([
      { name: 'Circle.area', file: 'shapes.py' },
    ]);
    expect(stepExpectations('Add a static method fromJSON to the User class in src/user.ts').symbols).toEqual(
      [{ name: 'User.fromJSON', file: 'src/user.ts' }],
    );
    expect(stepExpectations('Add a function area to src/shapes.js').symbols).toEqual([
      { name: 'area', file: 'src/shapes.js' },
    ]);
  });

  it('reads files named together in one list as each to change, and "set" as a change', () => {
    expect(stepExpectations('Set "debug": true in a.json, b.json and c.json')).toMatchObject({
      outcomes: new Set(['write']),
      changeEach: ['a.json', 'b.json', 'c.json'],
    });
    expect(stepExpectations('Update src/a.js and src/b.js to export 2').changeEach).toEqual([
      'src/a.js',
      'src/b.js',
    ]);
    expect(stepExpectations('Update src/a.js to match src/b.js and src/c.js').changeEach).toEqual([]);
    expect(stepExpectations('Create src/a.js and src/b.js').changeEach).toEqual([]);
    expect(stepExpectations('Set up the project in src/').outcomes.has('write')).toBe(true);
  });

  it('reads the files and symbols asked for, and ignores verbs of context and negation', () => {
    expect(stepExpectations('Create src/id.ts, based on the Id type in src/types.ts')).toMatchObject({
      create: ['src/id.ts'],
      change: [],
    });
    expect(stepExpectations('Add isPrime to src/math.js')).toMatchObject({
      change: ['src/math.js'],
      symbols: [{ name: 'isPrime', file: 'src/math.js' }],
    });
    expect(stepExpectations('Write src/is-prime.js exporting isPrime(n).').symbols).toEqual([
      { name: 'isPrime', file: 'src/is-prime.js', exported: true },
    ]);
    // An article or a code noun before the name is not the name.
    for (const description of [
      'Create src/slugify.js that exports a function slugify(text)',
      'Create src/slugify.js exporting the slugify function',
      'Create src/slugify.js exporting an async function named slugify',
    ])
      expect(stepExpectations(description).symbols, description).toEqual([
        { name: 'slugify', file: 'src/slugify.js', exported: true },
      ]);
    // A one-letter name is not an article when a conjunction follows: "a and b" names a, never `and`.
    expect(stepExpectations('Create src/index.js re-exporting a and b').symbols).toEqual([
      { name: 'a', file: 'src/index.js', exported: true },
    ]);
    expect(stepExpectations('Delete build/ and old.txt').remove.sort()).toEqual(['build', 'old.txt']);
    // Code named for removal is taken out of files, not a file to delete.
    expect(stepExpectations('Remove all `console.log` calls from src/')).toMatchObject({ remove: [] });
    expect([...stepExpectations('Remove all `console.log` calls from src/').outcomes]).toEqual(['write']);
    expect([...stepExpectations('Remove every use of the deprecated `oldApi` helper').outcomes]).toEqual([
      'write',
    ]);
    expect(stepExpectations('Delete build/ and `old.txt`').remove.sort()).toEqual(['build', 'old.txt']);
    // A parameter, an option or a key is part of a declaration, not one the symbol check can find.
    expect(stepExpectations('Add a `limit` parameter to listUsers in src/api.js').symbols).toEqual([]);
    expect(stepExpectations('Add a `timeout` option to src/http.ts').symbols).toEqual([]);
    expect(stepExpectations('Add a `parse` function to src/a.js').symbols).toEqual([
      { name: 'parse', file: 'src/a.js' },
    ]);
  });

  it('reads symbols to export and the names a new file is to contain', () => {
    expect(stepExpectations('Export a function double() from src/a.js').symbols).toEqual([
      { name: 'double', file: 'src/a.js', exported: true },
    ]);
    expect(stepExpectations('Create src/math.js with `add` and `multiply`').symbols).toEqual([
      { name: 'add', file: 'src/math.js' },
      { name: 'multiply', file: 'src/math.js' },
    ]);
    expect(
      stepExpectations('Create src/config.ts with parseConfig and loadConfig functions').symbols.map(
        (symbol) => symbol.name,
      ),
    ).toEqual(['parseConfig', 'loadConfig']);
    // Prose after "with" names no code.
    for (const description of [
      'Create src/math.js with add and multiply',
      'Create src/math.js with tests and docs',
      'Create src/cli.ts with a --verbose flag',
    ])
      expect(stepExpectations(description).symbols, description).toEqual([]);
  });

  it('tells a fix from work on the tests themselves', () => {
    expect(stepExpectations('Fix the failing isPrime test')).toMatchObject({
      fix: true,
      testsAreTarget: false,
    });
    expect(stepExpectations('Update the tests for the new API')).toMatchObject({ testsAreTarget: true });
    expect(stepExpectations('Fix the test: its expectation is wrong')).toMatchObject({
      testsAreTarget: true,
    });
    expect(stepExpectations('Run the tests')).toMatchObject({ runTests: true });
    expect(stepExpectations('Fix isPrime so the tests pass')).toMatchObject({ runTests: false });
  });
});

describe('stepExpectations: a leading place', () => {
  it('reads "In <file> <verb>…" as the verb with the file as the place of the work', () => {
    const expected = stepExpectations(
      'In src/days.ts export a function isWeekend(day: number): boolean that is true for 0 and 6',
    );
    expect([...expected.outcomes]).toEqual(['write']);
    expect(expected.change).toEqual(['src/days.ts']);
    expect(expected.symbols).toEqual([{ name: 'isWeekend', file: 'src/days.ts', exported: true }]);
    expect(stepExpectations('Inside `app/text.py`, add a function slugify(text)').symbols).toEqual([
      { name: 'slugify', file: 'app/text.py' },
    ]);
  });

  it('keeps a place inside a clause that has its own verb', () => {
    const expected = stepExpectations('Fix the bug in src/a.ts export handling');
    expect(expected.change).toEqual(['src/a.ts']);
    expect(expected.symbols).toEqual([]);
  });
});
