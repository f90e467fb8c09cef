import { describe, expect, it } from 'vitest';
import { askedCliFlags, flagValueNames, unreadCliFlag } from './asked-cli-flags';

describe('askedCliFlags', () => {
  it.each([
    ['Add a --verbose flag to src/cli.js that prints each file', ['verbose']],
    ['Support a `--dry-run` option that skips writing', ['dry-run']],
    ['Run npm test -- --coverage', []],
    ['Add a `--dry-run` flag to the argument parser in cli.py', []],
    ['Add a --quiet flag to suppress the output', ['quiet']],
    ['Fix the typo in the --help text', []],
  ])('%s → %j', (description, flags) => {
    expect(askedCliFlags(description)).toEqual(flags);
  });
});

describe('flagValueNames', () => {
  it('gives the snake and camel names', () => {
    expect(flagValueNames('dry-run')).toEqual(['dry_run', 'dryRun']);
    expect(flagValueNames('verbose')).toEqual(['verbose']);
  });
});

describe('unreadCliFlag', () => {
  const one = (file: string, after: string) => [{ file, before: undefined, after }];
  it.each([
    ['cli.js', "const verbose = process.argv.includes('--verbose');\nfor (const f of files) count++;\n"],
    ['cli.js', "const { values } = parseArgs({ options: { verbose: { type: 'boolean' } } });\n"],
    ['cli.py', 'parser.add_argument("--verbose", action="store_true")\nargs = parser.parse_args()\n'],
    ['cli.py', '@click.option("--verbose", is_flag=True)\ndef main(path, verbose):\n    print(path)\n'],
    ['cli.js', "program.option('-v, --verbose');\n// if (opts.verbose) log(file)\n"],
  ])('finds the flag unread in %s: %s', async (file, after) => {
    expect(await unreadCliFlag(one(file, after), 'verbose')).toEqual([file]);
  });

  it.each([
    ['cli.js', "const verbose = process.argv.includes('--verbose');\nif (verbose) console.log(f);\n"],
    [
      'cli.js',
      "const { values } = parseArgs({ options: { verbose: { type: 'boolean' } } });\nif (values.verbose) log();\n",
    ],
    ['cli.py', 'parser.add_argument("--verbose", action="store_true")\nif args.verbose:\n    print(p)\n'],
    [
      'cli.py',
      '@click.option("--verbose", is_flag=True)\ndef main(path, verbose):\n    if verbose:\n        print(path)\n',
    ],
    ['cli.js', "program.option('-v, --verbose');\nconst { verbose } = program.opts();\nrun({ verbose });\n"],
    ['cli.js', 'const x = 1;\n'],
  ])('accepts %s: %s', async (file, after) => {
    expect(await unreadCliFlag(one(file, after), 'verbose')).toEqual([]);
  });
});

describe('unreadCliFlag with options handed on', () => {
  it.each([
    ['cli.py', 'parser.add_argument("--verbose", action="store_true")\nrun(**vars(parser.parse_args()))\n'],
    [
      'cli.py',
      'parser.add_argument("-v", "--verbose", dest="chatty", action="store_true")\nif args.chatty:\n    print(1)\n',
    ],
  ])('accepts %s: %s', async (file, after) => {
    expect(await unreadCliFlag([{ file, before: undefined, after }], 'verbose')).toEqual([]);
  });

  it('does not ask for --help or --version to be read', () => {
    expect(
      askedCliFlags('Add a --version flag that prints the version and a --help option that lists them'),
    ).toEqual([]);
  });
});
