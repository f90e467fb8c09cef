import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type CodeLanguage, parsedLanguageOf, parseSource, treeErrors } from '../code-parser';
import { runCommand } from '../run-command';
import { SYNTAX_TOOLCHAINS, type SyntaxCommandRunner, type ToolchainPlace } from './syntax-toolchains';

export type { SyntaxCommandRunner } from './syntax-toolchains';

/**
 * Languages whose syntax SYNTAX judges. C++ is parsed for symbols only: without the
 * preprocessor's view, macros make valid code look broken.
 */
export const SYNTAX_LANGUAGES: ReadonlySet<CodeLanguage> = new Set([
  'javascript',
  'typescript',
  'tsx',
  'python',
  'go',
  'rust',
  'java',
  'php',
]);

const JSON_FILE = /\.json$/i;

/** True when {@link checkSyntax} judges files with this name. */
export function canCheckSyntax(fileName: string): boolean {
  if (JSON_FILE.test(fileName)) return true;
  const language = parsedLanguageOf(fileName);
  return language !== undefined && SYNTAX_LANGUAGES.has(language);
}

/** How one file's syntax was judged. */
export interface SyntaxCheck {
  /**
   * `valid`: it parses; `invalid`: syntax errors, confirmed by the language's own toolchain
   * (or JSON.parse); `unconfirmed`: the grammar reports errors that no toolchain could confirm
   * (the grammar may not know newer syntax, so this is no verdict); `unsupported`: no parser.
   */
  status: 'valid' | 'invalid' | 'unconfirmed' | 'unsupported';
  /** `line:column message` (the column may be missing): the confirmed errors, or the grammar's. */
  errors: string[];
  /** Who decided: `lezer grammar`, `JSON.parse`, `TypeScript 5.9.3 parser`, `node --check`, `tsc`… */
  checkedBy?: string;
  /** For `unconfirmed`: why each toolchain could not judge. */
  reason?: string;
}

/** Options of {@link checkSyntax}. */
export interface SyntaxCheckOptions {
  /**
   * The TypeScript compiler that confirms JS/TS errors the grammar reports. Default: the
   * optional `typescript` peer when installed; `null` never uses it. Typed loosely (the
   * `typescript` module itself) so these types do not need TypeScript installed.
   */
  typescript?: object | null;
  /**
   * Where the language's toolchain runs (`node --check`, `tsc`, `python3 -m py_compile`,
   * `gofmt -e`, `rustfmt`, `javac`, `php -l`). A runner: in the workspace, through its command
   * policy (the SYNTAX protocol passes `ctx.run`); the file name is then relative to the
   * workspace and the file holds `text`. Default: a private temporary folder holding only the
   * file, with the product's default command policy. `null`: no commands (only the in-process
   * TypeScript parser can confirm).
   */
  run?: SyntaxCommandRunner | null;
}

/**
 * Judges the syntax of one source file. The lezer grammar reads it first; when it reports errors
 * (its recovery leaves error nodes), the language's own toolchain decides, because a grammar can
 * lag behind the language: the TypeScript parser (in process) and then `node --check` or the
 * workspace's `tsc` for JS/TS, `python3 -m py_compile`, `gofmt -e`, `rustfmt`, `javac` (stopped
 * after parsing), `php -l`. When none can run, the result is `unconfirmed` — never `invalid` on
 * the grammar's word alone, never `valid`. JSON is judged by `JSON.parse`.
 *
 * @example
 * await checkSyntax('a.py', 'def f(:\n    pass\n');
 * // { status: 'invalid', errors: ['1 SyntaxError: invalid syntax'], checkedBy: 'python3 -m py_compile' }
 */
export async function checkSyntax(
  fileName: string,
  text: string,
  options: SyntaxCheckOptions = {},
): Promise<SyntaxCheck> {
  if (JSON_FILE.test(fileName)) {
    try {
      JSON.parse(text);
      return { status: 'valid', errors: [], checkedBy: 'JSON.parse' };
    } catch (error) {
      return {
        status: 'invalid',
        errors: [error instanceof Error ? error.message : String(error)],
        checkedBy: 'JSON.parse',
      };
    }
  }
  const language = parsedLanguageOf(fileName);
  const source =
    language !== undefined && SYNTAX_LANGUAGES.has(language) ? await parseSource(fileName, text) : undefined;
  if (!source) return { status: 'unsupported', errors: [] };
  const errors = treeErrors(source);
  if (errors.length === 0) return { status: 'valid', errors: [], checkedBy: 'lezer grammar' };
  const reasons: string[] = [];
  let folder: string | undefined;
  let prepared: Promise<ToolchainPlace | undefined> | undefined;
  const place = (): Promise<ToolchainPlace | undefined> => {
    prepared ??= (async () => {
      if (options.run === null) return undefined;
      if (options.run) return { run: options.run, fileName };
      folder = await mkdtemp(path.join(os.tmpdir(), 'closedloop-syntax-'));
      const root = folder;
      const name = path.basename(fileName);
      await writeFile(path.join(root, name), text);
      return { run: (argv, runOptions) => runCommand({ argv, cwd: root, ...runOptions }), fileName: name };
    })();
    return prepared;
  };
  try {
    for (const toolchain of SYNTAX_TOOLCHAINS) {
      if (!toolchain.languages.includes(source.language)) continue;
      const verdict = await toolchain.check({ fileName, source, typescript: options.typescript, place });
      if ('unavailable' in verdict) {
        reasons.push(verdict.unavailable);
        continue;
      }
      return verdict.errors.length === 0
        ? { status: 'valid', errors: [], checkedBy: verdict.by }
        : { status: 'invalid', errors: verdict.errors, checkedBy: verdict.by };
    }
  } finally {
    if (folder) await rm(folder, { recursive: true, force: true });
  }
  return { status: 'unconfirmed', errors, checkedBy: 'lezer grammar', reason: reasons.join('; ') };
}

/**
 * Syntax errors of one source file (`line:column message`; empty when it parses), judged by
 * {@link checkSyntax}. `undefined` when it cannot tell: no parser for the language, or grammar
 * errors no toolchain could confirm.
 *
 * @example
 * await syntaxErrors('a.json', '{"a": 1,}'); // ["Expected double-quoted property name …"]
 */
export async function syntaxErrors(
  fileName: string,
  text: string,
  options: SyntaxCheckOptions = {},
): Promise<string[] | undefined> {
  const check = await checkSyntax(fileName, text, options);
  return check.status === 'valid' || check.status === 'invalid' ? check.errors : undefined;
}
