import { type ArgvGrammar, applyGrammar, denied, options } from './argv-grammar';
import type { ProgramRule } from './program-rules';

/**
 * Argument rules for the compilers and formatters that confirm syntax errors (the verifier's
 * SYNTAX check runs them): only their parse-only forms pass. Nothing here writes a file, runs
 * code, loads a plugin or reads options from a file.
 */

const gofmtGrammar: ArgvGrammar = {
  name: 'gofmt',
  // -e all errors, -l list files, -d diff, -s simplify: all print, none writes.
  long: {},
  short: { ...options('e l d s'), ...denied('w', 'it rewrites files: print with -d instead', 'flag') },
};

const rustfmtGrammar: ArgvGrammar = {
  name: 'rustfmt',
  long: {
    ...options('check quiet verbose version help'),
    edition: {
      arity: 'value',
      kind: 'text',
      check: (value) => (/^20\d\d$/.test(value) ? undefined : 'an edition is a year'),
    },
    emit: {
      arity: 'value',
      kind: 'text',
      check: (value) => (value === 'stdout' ? undefined : 'only "--emit stdout" (it writes nothing)'),
    },
  },
  short: { ...options('q v V h') },
};

const javacGrammar: ArgvGrammar = {
  name: 'javac',
  long: {
    'XDshould-stop.ifError': { arity: 'value', kind: 'text', check: parseOnly },
    'XDshould-stop.ifNoError': { arity: 'value', kind: 'text', check: parseOnly },
    'proc:none': { arity: 'flag' },
    'implicit:none': { arity: 'flag' },
    encoding: { arity: 'value', kind: 'text' },
    ...options('nowarn Xlint:none version help'),
  },
  singleDashLong: true,
};

function parseOnly(value: string): string | undefined {
  return value === 'PARSE' ? undefined : 'javac may only stop after parsing (PARSE)';
}

const javacRule: ProgramRule = (args, helpers) => {
  const parsed = applyGrammar(javacGrammar, args, helpers);
  if (parsed.error) return parsed.error;
  // "@file" reads more options from a file (annotation processors, plugins, output folders).
  if (parsed.positionals.some((positional) => positional.value.startsWith('@')))
    return '"javac @argfile" is not allowed: options come only from the command line.';
  const names = new Set(parsed.options.map((option) => option.name));
  for (const required of ['XDshould-stop.ifError', 'XDshould-stop.ifNoError', 'proc:none']) {
    if (!names.has(required))
      return `javac runs only as a parse check: add -XDshould-stop.ifError=PARSE -XDshould-stop.ifNoError=PARSE -proc:none (it writes no class files and runs no annotation processors).`;
  }
  return undefined;
};

const phpGrammar: ArgvGrammar = {
  name: 'php',
  long: { ...options('syntax-check no-php-ini version help') },
  short: { ...options('l n v h') },
};

const phpRule: ProgramRule = (args, helpers) => {
  const parsed = applyGrammar(phpGrammar, args, helpers);
  if (parsed.error) return parsed.error;
  const names = new Set(parsed.options.map((option) => option.name));
  const onlyInfo = parsed.positionals.length === 0 && (names.has('v') || names.has('version'));
  if (!onlyInfo && !names.has('l') && !names.has('syntax-check'))
    return 'php runs only as a syntax check ("php -l file.php" or "php -l" with the code on stdin): it never runs a script.';
  return undefined;
};

/** The rules for `gofmt`, `rustfmt`, `javac` and `php`, by program name. */
export const syntaxToolRules: Readonly<Record<string, ProgramRule>> = {
  gofmt: (args, helpers) => applyGrammar(gofmtGrammar, args, helpers).error,
  rustfmt: (args, helpers) => applyGrammar(rustfmtGrammar, args, helpers).error,
  javac: javacRule,
  php: phpRule,
};
