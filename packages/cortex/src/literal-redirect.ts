/**
 * A command whose whole effect is known from its text: a shell that writes a literal to one file —
 * `sh -c 'echo done >> log.txt'`, `bash -c "printf 'a b' > out.txt"`. Resume judges such a call
 * like a `write_file` (the file as it was, as the command was to leave it, or cut off between),
 * instead of asking whether a command that changed the workspace did all it was for: a shell
 * killed after it created its file and before it wrote to it changed the workspace too.
 */

/** What a literal redirect writes: `text`, appended to `path` or replacing what it held. */
export interface LiteralRedirect {
  /** As written in the command: relative to the command's working folder. */
  path: string;
  text: string;
  append: boolean;
}

const SHELLS = new Set(['sh', 'bash', 'dash', '/bin/sh', '/bin/bash', '/usr/bin/bash', '/bin/dash']);
/** A bare word the shell leaves as it is (no expansion, glob, escape or operator). */
const BARE = /^[A-Za-z0-9_.,:=+@%/-]+$/;

/** Splits `script` into words and redirect operators, or `undefined` when it is more than that. */
function words(script: string): string[] | undefined {
  const out: string[] = [];
  let at = 0;
  while (at < script.length) {
    const rest = script.slice(at);
    const space = /^[ \t]+/.exec(rest);
    if (space) {
      at += space[0].length;
      continue;
    }
    const operator = /^>>?/.exec(rest);
    if (operator) {
      out.push(operator[0]);
      at += operator[0].length;
      continue;
    }
    // One word: bare parts and quoted parts joined (`a'b c'` is one word).
    let word = '';
    while (at < script.length && !/[ \t>]/.test(script[at]!)) {
      const part = script.slice(at);
      const single = /^'([^']*)'/.exec(part);
      const double = /^"([^"$`\\!]*)"/.exec(part);
      const bare = /^[A-Za-z0-9_.,:=+@%/-]+/.exec(part);
      const found = single ?? double ?? bare;
      if (!found) return undefined;
      word += found === bare ? found[0] : found[1];
      at += found[0].length;
    }
    out.push(word);
  }
  return out;
}

/**
 * The literal redirect `argv` is — a shell running one `echo` or `printf` of literal text into a
 * file with `>` or `>>` — or `undefined` for anything else (variables, escapes, globs, several
 * commands, a format with `%`).
 */
export function literalRedirectOf(argv: unknown): LiteralRedirect | undefined {
  if (!Array.isArray(argv) || argv.length !== 3 || argv.some((part) => typeof part !== 'string'))
    return undefined;
  const [shell, flag, script] = argv as [string, string, string];
  if (!SHELLS.has(shell) || flag !== '-c') return undefined;
  const parts = words(script.trim());
  if (parts === undefined || parts.length < 3) return undefined;
  const operator = parts.at(-2)!;
  const path = parts.at(-1)!;
  if ((operator !== '>' && operator !== '>>') || !BARE.test(path)) return undefined;
  const [program, ...args] = parts.slice(0, -2);
  if (args.some((arg) => arg === '>' || arg === '>>' || arg.includes('\\'))) return undefined;
  let text: string;
  if (program === 'echo') {
    const noNewline = args[0] === '-n';
    const printed = noNewline ? args.slice(1) : args;
    // An argument a shell's echo may read as its options is not printed the same everywhere.
    if (printed.some((arg) => /^-[neE]+$/.test(arg))) return undefined;
    text = printed.join(' ') + (noNewline ? '' : '\n');
  } else if (program === 'printf') {
    if (args.length !== 1 || args[0]!.includes('%') || args[0]!.startsWith('-')) return undefined;
    text = args[0]!;
  } else {
    return undefined;
  }
  return { path, text, append: operator === '>>' };
}
