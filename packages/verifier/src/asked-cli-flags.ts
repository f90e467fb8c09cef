import { codeOnly, codeWithoutStrings } from './asked-literals';
import { type ChangedText, SCRIPT_FILE } from './changed-text';
import { escapeRegExp } from './escape-reg-exp';

/**
 * A command-line flag asked for ("add a --verbose flag that prints each file", "a `--dry-run`
 * option"): declaring it — `argv.includes('--verbose')`, `add_argument('--verbose')`,
 * `@click.option('--dry-run')`, `parseArgs({ options: { verbose: … } })` — does nothing until
 * the program reads its value somewhere (`if (verbose)`, `args.verbose`, `values.verbose`).
 */

const FLAG = /(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?![\w-])/g;
const FLAG_ASK =
  /\b(?:add|support|accept|implement|introduce|create|new|expose|wire)\w*\b[^.;\n]*?(?:flag|option|switch|argument|cli)\b|\b(?:flag|option|switch)\b[^.;\n]*?\b(?:add|support|accept|implement|introduce)\w*/i;

/** What the flag is to do, after it ("… that prints each file", "… to skip writing"): only then is reading it asked. */
const BEHAVIOUR =
  /\b(?:that|which|so(?:\s+that)?|when\s+(?:set|given|passed|present|used)|to\s+(?:print|skip|show|log|enable|disable|turn|make|output|write|run|use|limit|set|control|suppress|force|ignore|include|exclude|list|stop|keep|avoid|only))\b/i;

/** The long flags (without dashes) a description asks a program to take and to act on. */
export function askedCliFlags(description: string): string[] {
  const names = new Set<string>();
  for (const clause of description.split(/(?<=[.;])\s+|\n/)) {
    if (
      !FLAG_ASK.test(clause) ||
      /\b(?:run|rerun|invoke|call|execute)\s+`?(?:npm|npx|pnpm|yarn|node|python\d?|pytest|git|docker|make)\b/i.test(
        clause,
      )
    )
      continue;
    for (const match of clause.matchAll(FLAG))
      if (
        match[1] !== undefined &&
        !/^(?:help|version)$/.test(match[1]) &&
        BEHAVIOUR.test(clause.slice((match.index ?? 0) + match[0].length))
      )
        names.add(match[1]);
  }
  return [...names];
}

/** The names a flag's value goes by in code: `dry-run` → `dry_run`, `dryRun`, `dry-run` (as a key). */
export function flagValueNames(flag: string): string[] {
  const camel = flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
  return [...new Set([flag.replace(/-/g, '_'), camel])];
}

/** Where a name is only declared, not read: a binding, an options entry, a parameter. */
function declarations(code: string, name: string): number {
  const n = escapeRegExp(name);
  const patterns = [
    `\\b(?:const|let|var)\\s+${n}\\s*=`,
    `\\b(?:const|let|var)\\s*\\{[^}]*?(?<![\\w$])${n}(?![\\w$])[^}]*\\}\\s*=`,
    `(?<![\\w$.])${n}\\s*:\\s*\\{`,
    `^\\s*${n}\\s*=(?!=)`,
    `\\bdef\\s+\\w+\\s*\\([^)]*?(?<![\\w$])${n}(?![\\w$])`,
    `\\bfunction\\s*\\w*\\s*\\([^)]*?(?<![\\w$])${n}(?![\\w$])`,
  ];
  return patterns.reduce((sum, pattern) => sum + (code.match(new RegExp(pattern, 'gm'))?.length ?? 0), 0);
}

/** Where a flag is declared in a code text: the `--flag` string, or an options entry of its name. */
function declares(code: string, codeNoStrings: string, flag: string): boolean {
  if (new RegExp(`["'\`][^"'\`\\n]*(?<![\\w-])--${escapeRegExp(flag)}(?![\\w-])[^"'\`\\n]*["'\`]`).test(code))
    return true;
  return flagValueNames(flag).some((name) =>
    new RegExp(`(?<![\\w$.])${escapeRegExp(name)}\\s*:\\s*\\{[^}]*\\btype\\s*:`).test(codeNoStrings + code),
  );
}

/**
 * The changed files that declare the flag when no code the step changed reads its value (a name
 * used beyond its declaration); none when it is read, or no changed file declares it. Reads in
 * files the step did not change are the caller's to look for.
 */
export async function unreadCliFlag(changed: readonly ChangedText[], flag: string): Promise<string[]> {
  const declaring: string[] = [];
  let reads = 0;
  for (const { file, after } of changed) {
    if (!SCRIPT_FILE.test(file)) continue;
    const code = await codeOnly(file, after);
    const bare = await codeWithoutStrings(file, after);
    if (declares(code, bare, flag)) declaring.push(file);
    if (HANDED_ON.test(bare)) reads += 1;
    for (const name of [...flagValueNames(flag), ...destinations(code, flag)]) {
      const uses = bare.match(new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`, 'g'))?.length ?? 0;
      // `opts['dry-run']`, `args["dry_run"]`, `getattr(args, "verbose")`: read by a string key.
      const keyed =
        code.match(
          new RegExp(
            `(?:\\[|getattr\\([^,]+,|\\.get\\(|\\.opts\\(\\)\\.)\\s*["'\`]?(?:${escapeRegExp(name)}|${escapeRegExp(flag)})["'\`]?\\s*[\\]),]`,
            'g',
          ),
        )?.length ?? 0;
      reads += Math.max(0, uses - declarations(bare, name)) + keyed;
    }
  }
  return reads > 0 ? [] : declaring;
}

/** Options handed on whole (`vars(args)`, `**kwargs`, `...values`): any of them may be read there. */
const HANDED_ON = /\bvars\s*\(|\*\*\s*\w|\.\.\.\s*(?:values|args|argv|opts|options|flags)\b/;

/** The other names an option's value is kept under: argparse's `dest="chatty"`. */
function destinations(code: string, flag: string): string[] {
  const line = new RegExp(`["'\`]--${escapeRegExp(flag)}["'\`][^\\n]*\\bdest\\s*=\\s*["'](\\w+)["']`).exec(
    code,
  );
  return line?.[1] === undefined ? [] : [line[1]];
}
