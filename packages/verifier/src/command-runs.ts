import path from 'node:path';
import type { ToolCallRecord } from '@closedloop/plan';
import { splitCommandLine } from './split-command-line';

/** A command a ledger call ran, with how it ended (read from the tool's own result, never the model). */
export interface CommandRun {
  argv: string[];
  /** Normalised identity: `npm test`, `pnpm run test` and `yarn test` share one. */
  key: string;
  /** `null` when it was killed, timed out, never started, or the result shows no exit code. */
  exitCode: number | null;
  /** Exit 0 (and the tool call itself succeeded). */
  passed: boolean;
  /** A non-zero exit, a timeout, a kill, or a tool call that failed (not run, crashed). */
  failed: boolean;
  /** The tool reported the run ended by its timeout or a signal (`timed out after`, `killed by`). */
  killed?: boolean;
  /** Looks around (`ls`, `cat`, `grep`, `git status`, `--version`): its failure contradicts nothing. */
  exploratory: boolean;
  /** A test runner (`npm test`, `vitest`, `pytest`, `node --test`, `go test`…). */
  test: boolean;
  /** The tool's result or error text. */
  output: string;
}

const SHELL_TOOL =
  /^(?:run|exec|execute|sh|bash|zsh|shell|cmd|powershell|terminal|command|run_command|run_shell|shell_exec|execute_command|run_terminal_cmd)$/i;

const EXPLORATORY_PROGRAMS: ReadonlySet<string> = new Set([
  'ls',
  'cat',
  'echo',
  'pwd',
  'grep',
  'egrep',
  'rg',
  'ag',
  'find',
  'fd',
  'head',
  'tail',
  'wc',
  'which',
  'whereis',
  'type',
  'file',
  'stat',
  'tree',
  'env',
  'printenv',
  'date',
  'true',
  'false',
  'test',
  '[',
  'diff',
  'cmp',
  'sort',
  'uniq',
  'cut',
  'less',
  'more',
  'du',
  'df',
  'id',
  'whoami',
  'uname',
  'hostname',
]);

const GIT_READ =
  /^(?:status|log|diff|show|rev-parse|ls-files|ls-tree|blame|grep|describe|shortlog|reflog|cat-file)$/;
const NPM_READ = /^(?:ls|list|view|info|show|outdated|config|why|explain|search|help|root|prefix|bin)$/;
const HELP_FLAGS = /^(?:--version|-v|-V|--help|-h|version|help)$/;
const TEST_COMMAND =
  /(?:^|\s)(?:vitest|jest|mocha|ava|tap|pytest|py\.test|nose2|phpunit|rspec|karma|playwright\s+test|cypress\s+run)(?:\s|$)|(?:^|\s)node\s+(?:[^\s]+\s+)*--test\b|(?:^|\s)(?:go|cargo|deno|bun|dotnet|mix|swift|zig)\s+test\b|(?:^|\s)(?:npm|pnpm|yarn|bun)\s+(?:run\s+|run-script\s+)?(?:t|test|tests|test:[\w:-]+)(?:\s|$)|(?:^|\s)python3?\s+-m\s+(?:pytest|unittest)\b|(?:^|\s)make\s+(?:test|check)\b/;

/** The program's base name (`/usr/bin/node` → `node`). */
function programOf(argv: readonly string[]): string {
  return path.basename(argv[0] ?? '');
}

/** Strips runners that only launch another program: `npx`, `pnpm exec`, `npm exec`, `yarn dlx`. */
function unwrap(argv: readonly string[]): string[] {
  let rest = [...argv];
  for (let depth = 0; depth < 3; depth += 1) {
    const program = programOf(rest);
    if (program === 'npx' || program === 'bunx') {
      const start = rest.findIndex((arg, index) => index > 0 && !arg.startsWith('-'));
      rest = start === -1 ? [] : rest.slice(start);
      continue;
    }
    if (
      (program === 'pnpm' || program === 'npm' || program === 'yarn') &&
      (rest[1] === 'exec' || rest[1] === 'dlx')
    ) {
      rest = rest.slice(2).filter((arg) => arg !== '--');
      continue;
    }
    break;
  }
  return rest;
}

/** Flags that only change how a command prints, not what it checks. */
const NOISE_FLAG =
  /^(?:--silent|-s|--quiet|-q|--color|--no-color|--colors|--reporter(?:=.*)?|--verbose|-v|--run|--ci|--no-watch|--watch=false|--passWithNoTests)$/;

/**
 * The identity of a command for "the same command succeeded later": package-manager scripts
 * are one (`npm test` = `npm run test` = `pnpm test` = `yarn test`), launchers are removed
 * (`npx vitest run` = `vitest run`), and output-only flags are ignored.
 */
export function commandKey(argv: readonly string[]): string {
  const plain = unwrap(argv);
  const program = programOf(plain);
  const args = plain.slice(1).filter((arg) => !NOISE_FLAG.test(arg));
  if (program === 'npm' || program === 'pnpm' || program === 'yarn' || program === 'bun') {
    let script: string | undefined;
    let rest: string[] = [];
    const first = args[0];
    if (first === 'run' || first === 'run-script') {
      script = args[1];
      rest = args.slice(2);
    } else if (first === 't' || first === 'test' || first === 'tst') {
      script = 'test';
      rest = args.slice(1);
    } else if (
      first !== undefined &&
      (program === 'yarn' || program === 'pnpm' || program === 'bun') &&
      !first.startsWith('-')
    ) {
      script = first;
      rest = args.slice(1);
    }
    if (script !== undefined) return ['script', script, ...rest.filter((arg) => arg !== '--')].join(' ');
  }
  if (program === 'python' || program === 'python3') return ['python', ...args].join(' ');
  return [program, ...args].join(' ');
}

/** True when a command only looks around: its failure is exploration, not a contradiction. */
export function isExploratoryCommand(argv: readonly string[]): boolean {
  const plain = unwrap(argv);
  const program = programOf(plain);
  const args = plain.slice(1);
  if (EXPLORATORY_PROGRAMS.has(program)) return true;
  if (args.length > 0 && args.every((arg) => HELP_FLAGS.test(arg))) return true;
  const first = args.find((arg) => !arg.startsWith('-'));
  if (program === 'git') {
    if (first === undefined || GIT_READ.test(first)) return true;
    if (first === 'branch' || first === 'remote' || first === 'tag' || first === 'stash')
      return (
        args.filter((arg) => !arg.startsWith('-')).length === 1 &&
        !args.some((arg) => /^-(?:d|D|m|M|c|C)$|^--(?:delete|move|copy)$/.test(arg))
      );
    if (first === 'config') return args.includes('--get') || args.includes('--list') || args.includes('-l');
    return false;
  }
  if (program === 'npm' || program === 'pnpm' || program === 'yarn')
    return first !== undefined && NPM_READ.test(first);
  if (
    program === 'node' ||
    program === 'python' ||
    program === 'python3' ||
    program === 'deno' ||
    program === 'bun'
  )
    return (
      args.some((arg) => /^(?:-e|--eval|-p|--print|-c)$/.test(arg)) && !args.some((arg) => arg === '--test')
    );
  if (program === 'sed') return !args.some((arg) => /^-i/.test(arg));
  return false;
}

/** True when a command runs a test suite. */
export function isTestCommand(argv: readonly string[]): boolean {
  return TEST_COMMAND.test(` ${unwrap(argv).join(' ')} `);
}

function argvOf(call: ToolCallRecord): string[] | undefined {
  const args = call.args;
  if (typeof args !== 'object' || args === null) return undefined;
  const record = args as Record<string, unknown>;
  const argv = record.argv ?? record.args;
  if (Array.isArray(argv) && argv.length > 0 && argv.every((item) => typeof item === 'string')) {
    const command = record.command;
    if (typeof command === 'string' && command.trim() !== '' && argv !== record.argv)
      return [...splitCommandLine(command), ...(argv as string[])];
    return argv as string[];
  }
  for (const key of ['command', 'cmd', 'script', 'commandLine', 'command_line']) {
    const value = record[key];
    if (typeof value === 'string' && value.trim() !== '') return splitCommandLine(value);
    if (Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string'))
      return value as string[];
  }
  return undefined;
}

/**
 * The status line of `run_command`'s result: the last `(cwd: …, exit code N, T ms)` line before
 * the output sections, so neither a quoted argument nor the program's own output can forge it.
 */
function statusLine(text: string): { exitCode: number | null; killed: boolean } | undefined {
  const end =
    /\n(?:--- stdout ---|--- stderr ---|\(no output\))/.exec(text)?.index ?? Math.min(text.length, 4000);
  const header = text.slice(0, end);
  let found: RegExpExecArray | undefined;
  const pattern =
    /^\(cwd: [^\n]*?, (?:exit code (-?\d+)|(timed out after|killed by)[^\n]*?), \d+(?:\.\d+)? ms\)$/gm;
  for (let match = pattern.exec(header); match !== null; match = pattern.exec(header)) found = match;
  if (found === undefined) return undefined;
  return found[1] !== undefined
    ? { exitCode: Number(found[1]), killed: false }
    : { exitCode: null, killed: true };
}

/**
 * Reads the exit code a command tool reported (`run_command`: `(cwd: ., exit code 2, 31 ms)`;
 * other tools: `exit code: 2`, `"exitCode": 2`…). `null` when the text shows none.
 */
export function exitCodeOf(text: string): number | null {
  const status = statusLine(text);
  if (status !== undefined) return status.exitCode;
  const head = text.slice(0, 2000);
  const generic =
    /\bexit(?:ed)?(?:\s+with)?\s*(?:code|status)?\s*[:=]?\s*(-?\d+)\b|"exit_?[cC]ode"\s*:\s*(-?\d+)|\breturn(?:ed)?\s+code\s*[:=]?\s*(-?\d+)/i.exec(
      head,
    );
  if (!generic) return null;
  const value = generic[1] ?? generic[2] ?? generic[3];
  return value === undefined ? null : Number(value);
}

/**
 * The command a ledger call ran, when it is a command tool (`run_command`, a shell-like name, or
 * arguments with `argv` / `command`), with its exit code as the tool reported it.
 */
export function commandRunOf(call: ToolCallRecord): CommandRun | undefined {
  if (call.status === 'pending') return undefined;
  const argv = argvOf(call);
  if (argv === undefined) return undefined;
  const shellLike = SHELL_TOOL.test(call.tool) || /command|shell|exec|terminal|bash/i.test(call.tool);
  const record = call.args as Record<string, unknown>;
  if (!shellLike && !Array.isArray(record.argv) && typeof record.command !== 'string') return undefined;
  const output = call.status === 'success' ? (call.result ?? '') : (call.error ?? call.result ?? '');
  const exitCode = call.status === 'success' ? exitCodeOf(output) : null;
  const killed = call.status === 'success' && statusLine(output)?.killed === true;
  return {
    argv,
    key: commandKey(argv),
    exitCode,
    passed: call.status === 'success' && exitCode === 0,
    failed: call.status === 'error' || killed || (exitCode !== null && exitCode !== 0),
    ...(killed ? { killed: true } : {}),
    exploratory: isExploratoryCommand(argv),
    test: isTestCommand(argv),
    output,
  };
}
