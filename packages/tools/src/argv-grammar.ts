import type { ProgramRuleHelpers } from './program-rules';
/**
 * A small, deny-by-default model of a program's command line: which options exist, which take a
 * value (and how: `--opt=value`, `--opt value`, `-ovalue`, clustered `-abc`), what the value is
 * (a path to confine, free text, a module to load), and which options are refused. Anything the
 * grammar does not know is refused, and so is an abbreviation of a known option (git, GNU getopt
 * and npm accept unique prefixes: `--exe` is `--exec` to git, so the policy never guesses).
 */

/** What an option's value (or a positional argument) is. */
export type ValueKind =
  /** A file or folder: must resolve inside the workspace. */
  | 'path'
  /** Free text (a message, a pattern, a number): no path checks. */
  | 'text'
  /** A module to load (`--import`, `--require`): a workspace path or a package name, never a URL. */
  | 'module';

/** One option of a grammar. */
export interface OptionSpec {
  /** `flag`: no value; `value`: needs one; `optional`: only attached (`--opt=v`, `-ov`). */
  arity: 'flag' | 'value' | 'optional';
  /** What the value is. Default `path` (checked like any argument). */
  kind?: ValueKind;
  /** When set, the option is refused with this reason. */
  deny?: string;
  /** Extra check of the value: a reason to refuse it, or undefined. */
  check?: (value: string) => string | undefined;
}

/** A program's command line. */
export interface ArgvGrammar {
  /** The program's name in messages (`git commit`). */
  name: string;
  /** Long options, without the leading dashes. */
  long: Readonly<Record<string, OptionSpec>>;
  /** Short options (one character each). */
  short?: Readonly<Record<string, OptionSpec>>;
  /** Long options may also be written with one dash (`tsc -outDir`). */
  singleDashLong?: boolean;
  /** Option names compare case-insensitively (`tsc --OUTDIR`). */
  ignoreCase?: boolean;
  /** `_` and `-` are the same in option names (`node --experimental_loader`). */
  underscores?: boolean;
  /** The first positional argument ends the options (node's script, git's subcommand). */
  stopAtPositional?: boolean;
  /** What positional arguments are. Default `path`. */
  positionals?: ValueKind;
  /** Options the grammar does not list: refused (default) or allowed (still path-checked). */
  unknownOptions?: 'deny' | 'allow';
  /** Options from `--` on are positionals. Default true. */
  doubleDash?: boolean;
  /** `--no-<option>` negates any known option that is not refused (git). */
  negatable?: boolean;
}

/** A parsed option. */
export interface ParsedOption {
  /** The canonical name (`exec`, `m`). */
  name: string;
  value: string | undefined;
  spec: OptionSpec;
  /** Index of the argument that holds the value (for attached values, the option itself). */
  valueIndex: number | undefined;
}

/** What {@link parseArgv} found. */
export interface ParsedArgv {
  options: ParsedOption[];
  /** Positional arguments with their index. */
  positionals: { value: string; index: number }[];
  /** Index of the first argument not parsed (`stopAtPositional`), or `args.length`. */
  stoppedAt: number;
  /** Indexes of arguments that are free text (no path checks). */
  textIndexes: Set<number>;
  /** Why the command line is refused. */
  error?: string;
}

function canonical(grammar: ArgvGrammar, name: string): string {
  let out = grammar.underscores ? name.replace(/_/g, '-') : name;
  if (grammar.ignoreCase) out = out.toLowerCase();
  return out;
}

function lookupLong(grammar: ArgvGrammar, name: string): { key: string; spec: OptionSpec } | undefined {
  const wanted = canonical(grammar, name);
  for (const [key, spec] of Object.entries(grammar.long)) {
    if (canonical(grammar, key) === wanted) return { key, spec };
  }
  if (grammar.negatable && wanted.startsWith('no-')) {
    const negated = lookupLong({ ...grammar, negatable: false }, wanted.slice(3));
    if (negated && negated.spec.deny === undefined)
      return { key: `no-${negated.key}`, spec: { arity: 'flag' } };
  }
  return undefined;
}

/** Known long names that `name` abbreviates (a proper prefix). */
function abbreviates(grammar: ArgvGrammar, name: string): string[] {
  const wanted = canonical(grammar, name);
  if (wanted === '') return [];
  const names = Object.keys(grammar.long);
  if (grammar.negatable) names.push(...names.map((key) => `no-${key}`));
  return names.filter((key) => {
    const full = canonical(grammar, key);
    return full.length > wanted.length && full.startsWith(wanted);
  });
}

function describeOption(grammar: ArgvGrammar, dashes: string, name: string): string {
  return `"${grammar.name} ${dashes}${name}"`;
}

/**
 * Parses `args` with `grammar`. Refuses (in `error`) unknown options (unless
 * `unknownOptions: 'allow'`), abbreviations of known ones, options with a `deny` reason, values
 * that fail their check, and a missing value.
 */
export function parseArgv(grammar: ArgvGrammar, args: readonly string[]): ParsedArgv {
  const parsed: ParsedArgv = { options: [], positionals: [], stoppedAt: args.length, textIndexes: new Set() };
  const fail = (error: string): ParsedArgv => ({ ...parsed, error });
  const accept = (
    name: string,
    spec: OptionSpec,
    value: string | undefined,
    valueIndex: number | undefined,
    shown: string,
  ) => {
    if (spec.deny !== undefined) return `${shown} is not allowed: ${spec.deny}`;
    if (value !== undefined && spec.kind === 'module') {
      const reason = checkModuleSpecifier(value);
      if (reason !== undefined) return `${shown} is not allowed: ${reason}.`;
    }
    if (value !== undefined && spec.check) {
      const reason = spec.check(value);
      if (reason !== undefined) return `${shown} is not allowed: ${reason}`;
    }
    if (value !== undefined && valueIndex !== undefined && spec.kind === 'text')
      parsed.textIndexes.add(valueIndex);
    parsed.options.push({ name, value, spec, valueIndex });
    return undefined;
  };
  let onlyPositionals = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    const positional = () => {
      parsed.positionals.push({ value: arg, index });
      if (grammar.positionals === 'text' || grammar.positionals === 'module') parsed.textIndexes.add(index);
    };
    if (onlyPositionals || arg === '-' || !arg.startsWith('-')) {
      if (grammar.stopAtPositional && !onlyPositionals) {
        parsed.stoppedAt = index;
        return parsed;
      }
      positional();
      continue;
    }
    if (arg === '--' && grammar.doubleDash !== false) {
      onlyPositionals = true;
      if (grammar.stopAtPositional) {
        parsed.stoppedAt = index + 1;
        return parsed;
      }
      continue;
    }
    const long = arg.startsWith('--') || (grammar.singleDashLong === true && arg.length > 2);
    if (long) {
      const dashes = arg.startsWith('--') ? '--' : '-';
      const body = arg.slice(dashes.length);
      const equals = body.indexOf('=');
      const name = equals === -1 ? body : body.slice(0, equals);
      const attached = equals === -1 ? undefined : body.slice(equals + 1);
      const found = lookupLong(grammar, name);
      // `--api.port=1` (cac's dotted options: vitest) sets `--api`: refused when `--api` is.
      const dotted = name.indexOf('.');
      const base = found === undefined && dotted > 0 ? lookupLong(grammar, name.slice(0, dotted)) : undefined;
      if (base?.spec.deny !== undefined)
        return fail(`${describeOption(grammar, dashes, name)} is not allowed: ${base.spec.deny}`);
      if (found === undefined) {
        // `-abc` with singleDashLong: fall through to the short options when they exist.
        if (dashes === '-' && grammar.short && [...name].every((letter) => grammar.short?.[letter])) {
          // handled below as a cluster
        } else {
          const longer = abbreviates(grammar, name);
          if (longer.length > 0) {
            const denied = longer.filter((key) => grammar.long[key]?.deny !== undefined);
            return fail(
              `${describeOption(grammar, dashes, name)} is an abbreviation (${grammar.name.split(' ')[0]} reads unique prefixes: ${longer
                .slice(0, 4)
                .map((key) => `--${key}`)
                .join(
                  ', ',
                )})${denied.length > 0 ? `, and ${denied.map((key) => `--${key}`).join(', ')} is refused` : ''}; write options in full.`,
            );
          }
          if (grammar.unknownOptions === 'allow') continue;
          return fail(
            `${describeOption(grammar, dashes, name)} is not an option this policy knows (unknown options are refused).`,
          );
        }
      } else {
        const { key, spec } = found;
        const shown = describeOption(grammar, dashes, key);
        if (spec.arity === 'flag') {
          if (attached !== undefined && spec.deny === undefined) return fail(`${shown} takes no value.`);
          const error = accept(key, spec, undefined, undefined, shown);
          if (error) return fail(error);
          continue;
        }
        if (attached !== undefined) {
          const error = accept(key, spec, attached, index, shown);
          if (error) return fail(error);
          continue;
        }
        if (spec.arity === 'optional') {
          const error = accept(key, spec, undefined, undefined, shown);
          if (error) return fail(error);
          continue;
        }
        if (index + 1 >= args.length) {
          if (spec.deny !== undefined) return fail(`${shown} is not allowed: ${spec.deny}`);
          return fail(`${shown} needs a value.`);
        }
        index++;
        const error = accept(key, spec, args[index], index, shown);
        if (error) return fail(error);
        continue;
      }
    }
    // Short options, possibly clustered: `-abc`, `-ovalue`, `-o value`.
    const letters = arg.slice(1);
    for (let at = 0; at < letters.length; at++) {
      const letter = letters[at] as string;
      const spec = grammar.short?.[letter];
      const shown = describeOption(grammar, '-', letter);
      if (spec === undefined) {
        if (grammar.unknownOptions === 'allow' && !/[^A-Za-z0-9]/.test(letter)) continue;
        return fail(
          `${shown}${letters.length > 1 ? ` (in "${arg}")` : ''} is not an option this policy knows (unknown options are refused).`,
        );
      }
      if (spec.arity === 'flag') {
        const error = accept(letter, spec, undefined, undefined, shown);
        if (error) return fail(error);
        continue;
      }
      const rest = letters.slice(at + 1);
      if (rest !== '') {
        const value = rest.startsWith('=') && spec.arity === 'optional' ? rest.slice(1) : rest;
        const error = accept(letter, spec, value, index, shown);
        if (error) return fail(error);
        break;
      }
      if (spec.arity === 'optional') {
        const error = accept(letter, spec, undefined, undefined, shown);
        if (error) return fail(error);
        break;
      }
      if (index + 1 >= args.length) {
        if (spec.deny !== undefined) return fail(`${shown} is not allowed: ${spec.deny}`);
        return fail(`${shown} needs a value.`);
      }
      index++;
      const error = accept(letter, spec, args[index], index, shown);
      if (error) return fail(error);
      break;
    }
  }
  return parsed;
}

/**
 * Builds option specs from a compact list: `name` is a flag, `name=` takes a value, `name?`
 * takes an optional attached value; `kind` applies to the valued ones.
 *
 * @example options('stat? output= name-only', 'text') // { stat: optional, output: value, 'name-only': flag }
 */
export function options(list: string, kind: ValueKind = 'path'): Record<string, OptionSpec> {
  const out: Record<string, OptionSpec> = {};
  for (const entry of list.split(/\s+/)) {
    if (entry === '') continue;
    if (entry.endsWith('=')) out[entry.slice(0, -1)] = { arity: 'value', kind };
    else if (entry.endsWith('?')) out[entry.slice(0, -1)] = { arity: 'optional', kind };
    else out[entry] = { arity: 'flag' };
  }
  return out;
}

/** Refused options from a list of names: `deny('exec upload-pack', 'runs a program')` (all take values). */
export function denied(
  list: string,
  reason: string,
  arity: OptionSpec['arity'] = 'value',
): Record<string, OptionSpec> {
  const out: Record<string, OptionSpec> = {};
  for (const name of list.split(/\s+/)) if (name !== '') out[name] = { arity, deny: reason };
  return out;
}

/** True when a module specifier is a URL or a scheme (`data:`, `http:`, `file:`, `node:`). */
export function isUrlSpecifier(value: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(value) && !/^[a-z]:[\\/]/i.test(value);
}

/** Check for `kind: 'module'` values: a workspace path or a package name, never a URL or inline code. */
export function checkModuleSpecifier(raw: string): string | undefined {
  // `-r=x` and quoted forms are not what a program reads, but never let them hide a URL.
  const value = raw.replace(/^[='"\s]+/, '');
  if (value.trim() === '') return 'an empty module';
  if (isUrlSpecifier(value))
    return `${JSON.stringify(value.slice(0, 40))} is a URL; only modules in the workspace (a relative path or an installed package) can be loaded`;
  if (/[\s;`$(){}]/.test(value))
    return `${JSON.stringify(value.slice(0, 40))} is not a module path or package name`;
  return undefined;
}

/** Applies a grammar: refuses what it refuses, and exempts its text values from path checks. */
export function applyGrammar(
  grammar: ArgvGrammar,
  args: readonly string[],
  helpers: Pick<ProgramRuleHelpers, 'markText'>,
): ParsedArgv {
  const parsed = parseArgv(grammar, args);
  for (const index of parsed.textIndexes) helpers.markText(index);
  return parsed;
}
