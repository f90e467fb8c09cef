import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type TypeScript from 'typescript';
import type { CodeLanguage, SourceTree } from '../code-parser';
import { loadTypeScript } from '../load-typescript';
import { type CommandResult, commandProblem } from '../run-command';

/** Runs a toolchain command (the SYNTAX protocol passes `ctx.run`: the workspace, the command policy). */
export type SyntaxCommandRunner = (
  argv: readonly string[],
  options?: { stdin?: string; env?: Record<string, string>; timeoutMs?: number },
) => Promise<CommandResult>;

/** What a toolchain said about a file the grammar reports errors in. */
export type ToolchainVerdict =
  /** The toolchain parsed the file: `errors` is empty when it is valid. */
  | { errors: string[]; by: string }
  /** The toolchain could not judge (not installed, refused by the command policy, too old…). */
  | { unavailable: string };

/** Where a toolchain runs: a runner, and the file's path for it (the file there holds the text). */
export interface ToolchainPlace {
  run: SyntaxCommandRunner;
  fileName: string;
}

/** What a toolchain check gets. */
export interface ToolchainInput {
  /** The file's name as given (its extension picks the language). */
  fileName: string;
  source: SourceTree;
  typescript: object | null | undefined;
  /** Where commands run; undefined when commands are off. Prepared on first use. */
  place(): Promise<ToolchainPlace | undefined>;
}

/** A language's own parser, asked to confirm or refute the errors the grammar reports. */
export interface SyntaxToolchain {
  /** How it shows in messages (`node --check`, `python3 -m py_compile`). */
  name: string;
  languages: readonly CodeLanguage[];
  check(input: ToolchainInput): Promise<ToolchainVerdict>;
}

const QUICK_MS = 15_000;
const SLOW_MS = 25_000;

const commandsOff = (name: string): ToolchainVerdict => ({ unavailable: `${name}: commands are off` });

/** The reason a command gave no verdict, or undefined when it ran to an exit code. */
function unavailable(name: string, result: CommandResult): ToolchainVerdict | undefined {
  const problem = commandProblem(result);
  return problem === undefined ? undefined : { unavailable: `${name} ${problem}` };
}

/** A workspace file as a command argument: `./-x.py` and `./@args.java` are files, not options. */
const fileArgument = (fileName: string) => `./${fileName.split(path.sep).join('/')}`;

const excerptOf = (output: string) => output.trim().split('\n').slice(0, 3).join(' ').slice(0, 300);

/** The verdict of a toolchain that ran to an exit code: 0 parses, else the errors it printed. */
function verdictOf(by: string, result: CommandResult, errors: string[]): ToolchainVerdict {
  if (result.exitCode === 0) return { errors: [], by };
  if (errors.length > 0) return { errors, by };
  return { unavailable: `${by} failed without a syntax error: ${excerptOf(result.output)}` };
}

/** The TypeScript compiler's parser, in process (the optional `typescript` peer). */
const typeScriptParser: SyntaxToolchain = {
  name: 'TypeScript parser',
  languages: ['javascript', 'typescript', 'tsx'],
  async check({ fileName, source, typescript }) {
    const ts =
      typescript === undefined
        ? loadTypeScript()
        : ((typescript ?? undefined) as typeof TypeScript | undefined);
    if (!ts) return { unavailable: 'the optional typescript package is not installed' };
    const output = ts.transpileModule(source.text, {
      fileName,
      reportDiagnostics: true,
      compilerOptions: {
        target: ts.ScriptTarget.Latest,
        module: ts.ModuleKind.ESNext,
        jsx: ts.JsxEmit.Preserve,
        allowJs: true,
      },
    });
    const errors = (output.diagnostics ?? [])
      .filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error)
      .map((diagnostic) => {
        const position =
          diagnostic.file && diagnostic.start !== undefined
            ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start)
            : undefined;
        const where = position ? `${position.line + 1}:${position.character + 1}` : '';
        return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`.trim();
      });
    return { errors, by: `TypeScript ${ts.version} parser` };
  },
};

function hasJsx(source: SourceTree): boolean {
  let found = false;
  source.tree.iterate({
    enter: (node) => {
      if (found) return false;
      if (node.name.startsWith('JSX')) found = true;
      return undefined;
    },
  });
  return found;
}

/**
 * `node --check` on the text (stdin), as an ES module and then as CommonJS: valid JavaScript
 * in either is not a syntax error. Never for JSX, which Node does not parse.
 */
const nodeCheck: SyntaxToolchain = {
  name: 'node --check',
  languages: ['javascript'],
  async check({ fileName, source, place }) {
    if (/\.jsx$/i.test(fileName) || hasJsx(source)) return { unavailable: 'node --check does not parse JSX' };
    const run = (await place())?.run;
    if (!run) return commandsOff('node --check');
    let moduleErrors: string[] = [];
    for (const inputType of ['module', 'commonjs']) {
      const result = await run(['node', '--check', `--input-type=${inputType}`], {
        stdin: source.text,
        timeoutMs: QUICK_MS,
      });
      const problem = unavailable('node --check', result);
      if (problem) return problem;
      if (result.exitCode === 0) return { errors: [], by: 'node --check' };
      if (inputType === 'module') {
        // `[stdin]:3`, the line, a caret under the column, then `SyntaxError: Unexpected token ';'`.
        const where = /\[stdin\]:(\d+)\n.*\n( *)\^/.exec(result.output);
        const message = /^SyntaxError: .*$/m.exec(result.output)?.[0];
        if (!where || !message)
          return { unavailable: `node --check failed without a syntax error: ${excerptOf(result.output)}` };
        moduleErrors = [`${where[1]}:${(where[2]?.length ?? 0) + 1} ${message}`];
      }
    }
    return { errors: moduleErrors, by: 'node --check' };
  },
};

/**
 * The workspace's own `tsc` (project settings ignored): parses the file alone and reports the
 * compiler's syntax errors (TS1xxx) in it. `--listFiles` proves the file was read.
 */
const workspaceTsc: SyntaxToolchain = {
  name: 'tsc',
  languages: ['javascript', 'typescript', 'tsx'],
  async check({ place }) {
    const where = await place();
    if (!where) return commandsOff('tsc');
    const { run, fileName } = where;
    const result = await run(
      [
        'tsc',
        '--noEmit',
        '--pretty',
        'false',
        '--listFiles',
        '--noResolve',
        '--noLib',
        '--skipLibCheck',
        '--allowJs',
        '--jsx',
        'preserve',
        '--target',
        'esnext',
        '--module',
        'esnext',
        '--moduleResolution',
        'bundler',
        '--moduleDetection',
        'force',
        fileArgument(fileName),
      ],
      { timeoutMs: SLOW_MS },
    );
    const problem = unavailable('tsc', result);
    if (problem) return problem;
    const normalized = fileName.split(path.sep).join('/');
    const lines = result.output.split('\n').map((line) => line.trim());
    if (
      !lines.some((line) => line.split(path.sep).join('/').endsWith(`/${normalized}`) || line === normalized)
    )
      return { unavailable: `tsc did not read the file: ${excerptOf(result.output)}` };
    const errors: string[] = [];
    for (const line of lines) {
      const match = /^(.*)\((\d+),(\d+)\): error (TS1\d{3}): (.*)$/.exec(line);
      if (match?.[1]?.split(path.sep).join('/').endsWith(normalized))
        errors.push(`${match[2]}:${match[3]} ${match[5]} (${match[4]})`);
    }
    return { errors, by: 'tsc' };
  },
};

/**
 * `python3 -P -m py_compile`: compiles without running. `-P` (Python 3.11+) keeps the workspace
 * off the module path, so a `py_compile.py` there is never imported. The bytecode it must write
 * goes to a cache folder of this check alone (`PYTHONPYCACHEPREFIX`), never into the workspace,
 * removed after: a folder shared between checks (or with anyone who can write the temporary
 * folder) could hold a forged `py_compile` bytecode that Python would load, and nothing there
 * would be read again anyway.
 */
const pyCompile: SyntaxToolchain = {
  name: 'python3 -m py_compile',
  languages: ['python'],
  async check({ place }) {
    const where = await place();
    if (!where) return commandsOff('python3');
    const { run, fileName } = where;
    // Sandboxed, the folder is in the command's own `/tmp`; otherwise in this machine's.
    const cache = path.join(os.tmpdir(), `closedloop-py-compile-${randomUUID()}`);
    let result: CommandResult;
    try {
      result = await run(['python3', '-P', '-m', 'py_compile', fileArgument(fileName)], {
        env: { PYTHONPYCACHEPREFIX: cache },
        timeoutMs: QUICK_MS,
      });
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
    const problem = unavailable('python3', result);
    if (problem) return problem;
    const message = /\b((?:Syntax|Indentation|Tab)Error): (.*)$/m.exec(result.output);
    const line = /line (\d+)/.exec(result.output)?.[1] ?? '0';
    return verdictOf(
      'python3 -m py_compile',
      result,
      message ? [`${line} ${message[1]}: ${message[2]}`] : [],
    );
  },
};

/** `gofmt -e` on the text (stdin): parses and prints, writes nothing. */
const gofmt: SyntaxToolchain = {
  name: 'gofmt -e',
  languages: ['go'],
  async check({ source, place }) {
    const run = (await place())?.run;
    if (!run) return commandsOff('gofmt');
    const result = await run(['gofmt', '-e'], { stdin: source.text, timeoutMs: QUICK_MS });
    const problem = unavailable('gofmt', result);
    if (problem) return problem;
    const errors = [...result.output.matchAll(/<standard input>:(\d+):(\d+): (.*)/g)].map(
      (match) => `${match[1]}:${match[2]} ${match[3]}`,
    );
    return verdictOf('gofmt', result, errors);
  },
};

/**
 * `rustfmt` on the text (stdin), for the 2021, 2024 and 2015 editions in turn: valid in one
 * edition is not a syntax error (`async` is an identifier in 2015, a keyword later).
 */
const rustfmt: SyntaxToolchain = {
  name: 'rustfmt',
  languages: ['rust'],
  async check({ source, place }) {
    const run = (await place())?.run;
    if (!run) return commandsOff('rustfmt');
    let firstErrors: string[] | undefined;
    for (const edition of ['2021', '2024', '2015']) {
      const result = await run(['rustfmt', '--edition', edition, '--emit', 'stdout'], {
        stdin: source.text,
        timeoutMs: QUICK_MS,
      });
      const problem = unavailable('rustfmt', result);
      if (problem) return problem;
      if (result.exitCode === 0) return { errors: [], by: `rustfmt (edition ${edition})` };
      const errors = [
        ...result.output.matchAll(/^error(?:\[\w+\])?: (.*)\n\s*--> <stdin>:(\d+):(\d+)/gm),
      ].map((match) => `${match[2]}:${match[3]} ${match[1]}`);
      if (errors.length === 0)
        return { unavailable: `rustfmt failed without a syntax error: ${excerptOf(result.output)}` };
      firstErrors ??= errors;
    }
    return { errors: firstErrors ?? [], by: 'rustfmt' };
  },
};

/** `javac` stopped after parsing (no class files, no annotation processors). */
const javac: SyntaxToolchain = {
  name: 'javac',
  languages: ['java'],
  async check({ place }) {
    const where = await place();
    if (!where) return commandsOff('javac');
    const { run, fileName } = where;
    const result = await run(
      [
        'javac',
        '-XDshould-stop.ifError=PARSE',
        '-XDshould-stop.ifNoError=PARSE',
        '-proc:none',
        '-implicit:none',
        '-encoding',
        'UTF-8',
        fileArgument(fileName),
      ],
      { timeoutMs: SLOW_MS },
    );
    const problem = unavailable('javac', result);
    if (problem) return problem;
    // A JDK older than the code: its errors say the syntax is new, not that it is wrong.
    const tooOld = /preview feature|not supported in -source|use -source \d+ or higher|--enable-preview/;
    if (result.exitCode !== 0 && tooOld.test(result.output))
      return { unavailable: `the installed javac is older than this syntax: ${excerptOf(result.output)}` };
    const errors = [...result.output.matchAll(/^.*?:(\d+): error: (.*)$/gm)].map(
      (match) => `${match[1]} ${match[2]}`,
    );
    return verdictOf('javac', result, errors);
  },
};

/** `php -n -l` on the text (stdin): lints, never runs, reads no php.ini. */
const phpLint: SyntaxToolchain = {
  name: 'php -l',
  languages: ['php'],
  async check({ source, place }) {
    const run = (await place())?.run;
    if (!run) return commandsOff('php -l');
    const result = await run(['php', '-n', '-l'], { stdin: source.text, timeoutMs: QUICK_MS });
    const problem = unavailable('php', result);
    if (problem) return problem;
    const errors = [...result.output.matchAll(/Parse error: (.*?) in .*? on line (\d+)/g)].map(
      (match) => `${match[2]} ${match[1]}`,
    );
    return verdictOf('php -l', result, errors);
  },
};

/** The toolchains that can confirm the grammar's errors, in the order they are tried. */
export const SYNTAX_TOOLCHAINS: readonly SyntaxToolchain[] = [
  typeScriptParser,
  nodeCheck,
  workspaceTsc,
  pyCompile,
  gofmt,
  rustfmt,
  javac,
  phpLint,
];
