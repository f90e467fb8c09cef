import { describe, expect, it } from 'vitest';
import { askedLiterals, codeOnly, containsLiteral, literalsAbsent } from './asked-literals';

describe('askedLiterals', () => {
  it('reads the quoted text a step is asked to add', () => {
    expect(askedLiterals('Add a `--verbose` flag to src/cli.js')).toEqual([
      { text: '--verbose', code: true, implemented: true },
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
  it('marks a flag or option asked of the code, even with docs asked beside it; not one asked of the docs', () => {
    for (const description of [
      'Add a `--dry-run` flag to src/cli.js and document it in README.md',
      'Add a --json option to the CLI and mention it in CHANGELOG.md',
      'Support a `maxRetries` option in src/client.js; update the README',
    ])
      expect(askedLiterals(description)[0], description).toMatchObject({ implemented: true });
    for (const description of [
      'Document the `--dry-run` flag in README.md',
      'Update CHANGELOG.md to mention the new `--json` option',
      'Add the `--dry-run` flag to the README',
      'Add a `## Options` section to README.md listing the --out flag',
      'Add tests and run them with --coverage',
    ])
      for (const literal of askedLiterals(description))
        expect(literal.implemented, `${description}: ${literal.text}`).toBeUndefined();
  });
  it('reads unquoted names of parts to add, and entries of list files', () => {
    expect(askedLiterals('Add an Installation section to README.md')).toEqual([
      { text: 'Installation', code: false },
    ]);
    expect(askedLiterals('Add a default timeout setting to config.json')).toEqual([
      { text: 'timeout', code: false },
    ]);
    expect(askedLiterals('Add a Getting Started section to docs/guide.md')).toEqual([
      { text: 'Getting Started', code: false },
    ]);
    expect(askedLiterals('Add dist/ to .gitignore')).toEqual([{ text: 'dist/', code: true }]);
    expect(askedLiterals('Add node_modules to .dockerignore')).toEqual([
      { text: 'node_modules', code: true },
    ]);
    for (const description of [
      'Add a new section to README.md',
      'Add a section to README.md',
      'Add error handling to src/a.js',
      'Add logging to src/server.js',
      'Add isPrime to src/math.js',
      'Add a README.md section on installation',
    ])
      expect(askedLiterals(description), description).toEqual([]);
  });

  it('reads an unquoted flag asked of the docs', () => {
    expect(askedLiterals('Document the --verbose flag in README.md')).toEqual([
      { text: '--verbose', code: true },
    ]);
    expect(askedLiterals('Add a section to README.md listing the --out flag')).toEqual([
      { text: '--out', code: true },
    ]);
    expect(askedLiterals('Add tests and run them with --coverage')).toEqual([]);
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

describe('literalsAbsent', () => {
  const verbose = askedLiterals('Add a `--verbose` flag to src/cli.js');
  const at = (file: string, text: string) => [{ file, text }];

  it('does not count a code literal found only in a comment, or only in docs when code was asked', async () => {
    const asked = ['src/cli.js'];
    const description = 'Add a `--verbose` flag to src/cli.js';
    expect(
      await literalsAbsent(description, verbose, at('src/cli.js', '// --verbose\nrun();\n'), asked),
    ).toEqual(verbose);
    expect(
      await literalsAbsent(description, verbose, at('src/cli.js', '/* --verbose */\nrun();\n'), asked),
    ).toEqual(verbose);
    expect(await literalsAbsent(description, verbose, at('README.md', 'Pass `--verbose`.\n'), asked)).toEqual(
      verbose,
    );
    const bar = askedLiterals('Rename `foo` to `bar`');
    expect(
      await literalsAbsent('Rename `foo` to `bar`', bar, at('a.py', '# bar\ndef foo(): pass\n'), []),
    ).toEqual(bar);
  });

  it('does not count a literal found only in a test file unless only tests were asked', async () => {
    const test = { file: 'test/cli.test.js', text: "run(['--verbose']);\n" };
    const code = { file: 'src/cli.js', text: 'console.log(process.argv);\n' };
    const description = 'Add a `--verbose` flag to src/cli.js';
    expect(await literalsAbsent(description, verbose, [code, test], ['src/cli.js'])).toEqual(verbose);
    expect(await literalsAbsent('Add a `--verbose` flag to the CLI', verbose, [test], [])).toEqual(verbose);
    const fixture = { file: 'fixtures/args.json', text: '["--verbose"]\n' };
    expect(await literalsAbsent(description, verbose, [code, fixture], ['src/cli.js'])).toEqual(verbose);
    expect(
      await literalsAbsent(
        'Add a `--verbose` flag to src/cli.js and a test for it',
        verbose,
        [code, test],
        ['src/cli.js'],
      ),
    ).toEqual(verbose);
    expect(
      await literalsAbsent('Add a test for the `--verbose` flag', verbose, [test], ['test/cli.test.js']),
    ).toEqual([]);
    expect(
      await literalsAbsent(
        description,
        verbose,
        [{ ...code, text: "const V = '--verbose';\n" }, test],
        ['src/cli.js'],
      ),
    ).toEqual([]);
  });

  it('does not count docs for a flag asked of the code, even when the docs were asked too', async () => {
    const description = 'Add a `--dry-run` flag to src/cli.js and document it in README.md';
    const literals = askedLiterals(description);
    const readme = { file: 'README.md', text: 'Pass `--dry-run` to print what would be written.\n' };
    const comment = { file: 'src/cli.js', text: 'const args = process.argv; // TODO --dry-run\n' };
    const code = { file: 'src/cli.js', text: "const dryRun = process.argv.includes('--dry-run');\n" };
    const asked = ['src/cli.js', 'README.md'];
    expect(await literalsAbsent(description, literals, [readme], asked)).toHaveLength(1);
    expect(await literalsAbsent(description, literals, [readme, comment], asked)).toHaveLength(1);
    expect(await literalsAbsent(description, literals, [readme, code], asked)).toEqual([]);
    // clap derives `--dry-run` from a `dry_run` field.
    const rust = {
      file: 'src/main.rs',
      text: '#[derive(Parser)]\nstruct Args {\n    #[arg(long)]\n    dry_run: bool,\n}\n',
    };
    expect(await literalsAbsent(description, literals, [readme, rust], asked)).toEqual([]);
  });

  it('counts it in code, in a string, in docs asked for, and in a comment that was asked', async () => {
    const description = 'Add a `--verbose` flag to src/cli.js';
    expect(
      await literalsAbsent(description, verbose, at('src/cli.js', "const V = '--verbose';\n"), [
        'src/cli.js',
      ]),
    ).toEqual([]);
    expect(
      await literalsAbsent(
        'Document `--verbose` in README.md',
        askedLiterals('Document `--verbose` in README.md'),
        at('README.md', '`--verbose`\n'),
        ['README.md'],
      ),
    ).toEqual([]);
    const tag = askedLiterals('Add a `@deprecated` JSDoc tag to src/a.js');
    expect(
      await literalsAbsent(
        'Add a `@deprecated` JSDoc tag to src/a.js',
        tag,
        at('src/a.js', '/** @deprecated */\nf();\n'),
        ['src/a.js'],
      ),
    ).toEqual([]);
  });

  it('does not count docs that carry the literal only in an HTML comment', async () => {
    const description = 'Document the `--verbose` flag in README.md';
    const literals = askedLiterals(description);
    const readme = (text: string) => [{ file: 'README.md', text }];
    expect(
      await literalsAbsent(description, literals, readme('# demo\n\n<!-- --verbose: more -->\n'), [
        'README.md',
      ]),
    ).toEqual(literals);
    expect(
      await literalsAbsent(description, literals, readme('# demo\n\n`--verbose` prints more.\n'), [
        'README.md',
      ]),
    ).toEqual([]);
    expect(await codeOnly('page.html', 'a<!-- b\nc -->d')).toBe('a \nd');
    expect(await codeOnly('notes.txt', 'a<!-- b -->')).toBe('a<!-- b -->');
  });

  it('blanks whole-line comments of shell scripts, ignore lists, settings files and SQL', async () => {
    expect(await codeOnly('build.sh', '#!/bin/bash\n# set -e\necho "#x"\n')).toBe(
      '#!/bin/bash\n \necho "#x"\n',
    );
    expect(await codeOnly('.gitignore', 'node_modules/\n  # dist/\n')).toBe('node_modules/\n \n');
    expect(await codeOnly('m/002.sql', '-- ALTER TABLE a;\n/* x\ny */SELECT 1;\n')).toBe(' \n \nSELECT 1;\n');
    expect(await codeOnly('notes.txt', '# heading\n')).toBe('# heading\n');
  });

  it('does not count a flag only mentioned in help text; counts it declared by an option string or a name', async () => {
    const description = 'Add a `--dry-run` flag to the argument parser in cli.py';
    const dryRun = askedLiterals(description);
    const asked = ['cli.py'];
    const parser = (line: string) => [
      { file: 'cli.py', text: `import argparse\n\nparser = argparse.ArgumentParser()\n${line}\n` },
    ];
    expect(
      await literalsAbsent(description, dryRun, parser('parser.description = "tool (see --dry-run)"'), asked),
    ).toEqual(dryRun);
    expect(
      await literalsAbsent(description, dryRun, parser('parser.add_argument("-n", "--dry-run")'), asked),
    ).toEqual([]);
    expect(
      await literalsAbsent(
        description,
        dryRun,
        parser('parser.add_argument("--dry-run", help="no writes")'),
        asked,
      ),
    ).toEqual([]);
    expect(
      await literalsAbsent(
        'Add a `--dry-run` flag to src/cli.js',
        dryRun,
        [{ file: 'src/cli.js', text: "program.option('-d, --dry-run', 'print only');\n" }],
        ['src/cli.js'],
      ),
    ).toEqual([]);
  });
});
