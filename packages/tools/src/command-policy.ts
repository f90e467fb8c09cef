import { constants } from 'node:fs';
import { access, lstat } from 'node:fs/promises';
import path from 'node:path';
import { resolveInWorkspace } from './resolve-in-workspace';
import { ToolError } from './tool-error';

/**
 * Decides whether one program may run with the given arguments. Returns `undefined` to allow,
 * or a reason (shown to the model) to deny. `check` re-checks a nested command line with the
 * whole policy (for `pnpm exec`, `npx`).
 */
export type ProgramRule = (args: readonly string[], helpers: ProgramRuleHelpers) => string | undefined;

/** What a {@link ProgramRule} can use. */
export interface ProgramRuleHelpers {
  /** Packages `npx`, `npm exec` and `pnpm dlx` may run. */
  readonly npxPackages: ReadonlySet<string>;
  /** Checks a nested argv against the whole policy (allowlist and rules), for `pnpm exec`. */
  check(argv: readonly string[]): string | undefined;
  /** Applies only `program`'s argument rule (no allowlist), for what `npx` runs. */
  checkArguments(program: string, args: readonly string[]): string | undefined;
}

/** Which programs `run_command` may start and what reaches them. */
export interface CommandPolicy {
  /**
   * Programs that may run (bare names, resolved on `PATH`; `tsc` and `vitest` prefer the
   * workspace's `node_modules/.bin`). Default {@link defaultAllowedPrograms}.
   */
  allow?: readonly string[];
  /** Argument rules by program, replacing or adding to {@link defaultProgramRules}. */
  rules?: Readonly<Record<string, ProgramRule>>;
  /** Packages `npx` / `npm exec` / `pnpm dlx` may run. Default {@link defaultNpxPackages}. */
  npxPackages?: readonly string[];
  /** Extra environment variables for every command (e.g. `{ NODE_ENV: 'test' }`). */
  env?: Readonly<Record<string, string>>;
  /** Names of `process.env` variables to pass through on top of the base set. */
  passEnv?: readonly string[];
}

/** The programs `run_command` allows when no policy says otherwise. */
export const defaultAllowedPrograms: readonly string[] = [
  'node',
  'npm',
  'npx',
  'pnpm',
  'git',
  'tsc',
  'vitest',
  'ls',
  'cat',
  'echo',
  'rg',
  'grep',
  'find',
];

/** Packages `npx` may run by default (versions like `vitest@4` are allowed). */
export const defaultNpxPackages: readonly string[] = [
  'tsc',
  'typescript',
  'vitest',
  'tsx',
  '@biomejs/biome',
  'biome',
  'eslint',
  'prettier',
  'jest',
  'publint',
  '@arethetypeswrong/cli',
];

/** `process.env` variables every command receives (when set). Nothing else leaks through. */
export const baseEnvNames: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'TZ',
  'TMPDIR',
  'TEMP',
  'TMP',
  'SYSTEMROOT',
  'COMSPEC',
  'PATHEXT',
];

/** Fixed variables that make tools non-interactive, colourless and safer. */
const fixedEnv: Readonly<Record<string, string>> = {
  CI: '1',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_ALLOW_PROTOCOL: 'http:https:ssh:git',
};

const hasShortFlag = (arg: string, letters: string) =>
  /^-[a-zA-Z]+$/.test(arg) && [...arg.slice(1)].some((letter) => letters.includes(letter));
const isOption = (arg: string, ...names: string[]) =>
  names.some((name) => arg === name || arg.startsWith(`${name}=`));

/** git subcommands run_command allows; anything else (including aliases) is denied. */
const gitSubcommands: ReadonlySet<string> = new Set([
  'add',
  'am',
  'apply',
  'archive',
  'blame',
  'branch',
  'cat-file',
  'check-ignore',
  'checkout',
  'cherry-pick',
  'clean',
  'clone',
  'commit',
  'config',
  'describe',
  'diff',
  'fetch',
  'for-each-ref',
  'format-patch',
  'grep',
  'help',
  'init',
  'log',
  'ls-files',
  'ls-remote',
  'ls-tree',
  'merge',
  'merge-base',
  'mv',
  'notes',
  'pull',
  'push',
  'rebase',
  'reflog',
  'remote',
  'reset',
  'restore',
  'rev-list',
  'rev-parse',
  'revert',
  'rm',
  'shortlog',
  'show',
  'show-ref',
  'stash',
  'status',
  'switch',
  'symbolic-ref',
  'tag',
  'version',
  'worktree',
]);

/** Subcommands where `-u` names an upload-pack program (for `add`, `push`, `status`… it is harmless). */
const gitTransportSubcommands: ReadonlySet<string> = new Set(['clone', 'fetch', 'pull', 'ls-remote']);

const gitRule: ProgramRule = (args) => {
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (!arg.startsWith('-')) break;
    if (isOption(arg, '-c', '--config-env'))
      return `"git ${arg}" sets configuration for one command, which can run arbitrary programs (core.pager, core.sshCommand, alias.*).`;
    if (arg.startsWith('-c')) return `"git ${arg}" sets configuration, which can run arbitrary programs.`;
    if (isOption(arg, '-C', '--git-dir', '--work-tree', '--namespace') || arg.startsWith('-C'))
      return `"git ${arg}" points git at another folder: use the cwd argument instead.`;
    if (isOption(arg, '--exec-path')) return '"git --exec-path" changes where git finds its helper programs.';
    if (isOption(arg, '--upload-pack', '--receive-pack'))
      return `"git ${arg}" runs a custom remote helper program.`;
  }
  const subcommand = args[index];
  if (subcommand === undefined) return undefined;
  if (!gitSubcommands.has(subcommand)) {
    return `"git ${subcommand}" is not allowed (unknown subcommands may be aliases that run shell commands). Allowed: ${[...gitSubcommands].join(', ')}.`;
  }
  const rest = args.slice(index + 1);
  for (const arg of rest) {
    if (/^(ext|fd)::/i.test(arg)) return `The git transport "${arg}" runs arbitrary commands.`;
    if (isOption(arg, '--upload-pack', '--receive-pack') || arg.startsWith('--exec'))
      return `"git ${subcommand} ${arg}" runs a custom program.`;
    if (subcommand === 'rebase' && (arg === '-x' || hasShortFlag(arg, 'x')))
      return '"git rebase -x" runs a shell command after each commit.';
    if (gitTransportSubcommands.has(subcommand) && (arg === '-u' || arg.startsWith('-u')))
      return `"git ${subcommand} -u" names a custom upload-pack program.`;
    if (subcommand === 'clone' && (isOption(arg, '-c', '--config', '--template') || /^-c./.test(arg)))
      return `"git clone ${arg}" sets configuration or hooks for the new repository.`;
    if (subcommand === 'grep' && (isOption(arg, '--open-files-in-pager') || arg.startsWith('-O')))
      return '"git grep -O" runs a pager program.';
    if (subcommand === 'archive' && isOption(arg, '--remote'))
      return '"git archive --remote" runs on another host.';
    if (subcommand === 'diff' || subcommand === 'log' || subcommand === 'show') {
      if (arg === '--ext-diff') return `"git ${subcommand} --ext-diff" runs an external diff program.`;
    }
  }
  if (subcommand === 'config') {
    const readOnly = rest.some(
      (arg) => isOption(arg, '--get', '--get-all', '--get-regexp', '--list', '--show-origin') || arg === '-l',
    );
    const newReadOnly = rest[0] === 'get' || rest[0] === 'list';
    if (!readOnly && !newReadOnly) {
      return '"git config" may only read (--get, --get-all, --get-regexp, --list): configuration can define aliases, hooks and pagers that run programs.';
    }
    if (rest.some((arg) => isOption(arg, '--global', '--system', '--file', '-f', '--blob')))
      return '"git config" may only read the repository configuration.';
  }
  return undefined;
};

const ripgrepRule: ProgramRule = (args) => {
  for (const arg of args) {
    if (arg === '--') break;
    if (isOption(arg, '--pre')) return '"rg --pre" runs a preprocessor program on every file.';
    if (isOption(arg, '--hostname-bin')) return '"rg --hostname-bin" runs a program.';
    if (isOption(arg, '--follow') || hasShortFlag(arg, 'L'))
      return `"rg ${arg}" follows symbolic links out of the workspace.`;
  }
  return undefined;
};

const grepRule: ProgramRule = (args) => {
  for (const arg of args) {
    if (arg === '--') break;
    if (isOption(arg, '--dereference-recursive') || hasShortFlag(arg, 'R'))
      return `"grep ${arg}" follows symbolic links out of the workspace: use -r.`;
  }
  return undefined;
};

const lsRule: ProgramRule = (args) => {
  for (const arg of args) {
    if (arg === '--') break;
    if (isOption(arg, '--dereference') || hasShortFlag(arg, 'L'))
      return `"ls ${arg}" follows symbolic links out of the workspace.`;
  }
  return undefined;
};

const findRule: ProgramRule = (args) => {
  const denied = new Set([
    '-exec',
    '-execdir',
    '-ok',
    '-okdir',
    '-delete',
    '-fprint',
    '-fprint0',
    '-fprintf',
    '-fls',
  ]);
  for (const arg of args) {
    if (denied.has(arg))
      return `"find ${arg}" runs commands or writes/deletes files; find is read-only here.`;
    if (arg === '-L' || arg === '-follow')
      return `"find ${arg}" follows symbolic links out of the workspace.`;
  }
  return undefined;
};

const nodeRule: ProgramRule = (args) => {
  for (const arg of args) {
    if (arg === '--' || !arg.startsWith('-')) break; // the script and its own arguments
    if (isOption(arg, '-e', '--eval', '-p', '--print') || hasShortFlag(arg, 'ep'))
      return `"node ${arg}" evaluates inline code: write a script file in the workspace and run it instead.`;
    if (arg.startsWith('--inspect') || arg.startsWith('--debug'))
      return `"node ${arg}" opens a debugger port.`;
  }
  return undefined;
};

function packageName(spec: string): string {
  const at = spec.lastIndexOf('@');
  return at > 0 ? spec.slice(0, at) : spec;
}

/** Rules for what `npx <package>` runs, by package name. */
const npxBinaries: Readonly<Record<string, string>> = { typescript: 'tsc', tsx: 'node' };

const npxRule: ProgramRule = (args, helpers) => {
  let index = 0;
  const extraPackages: string[] = [];
  for (; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (!arg.startsWith('-')) break;
    if (isOption(arg, '-c', '--call', '--shell', '--script-shell', '--node-options'))
      return `"npx ${arg}" runs a shell command or sets node options.`;
    if (arg === '-p' || arg === '--package') {
      extraPackages.push(args[index + 1] ?? '');
      index++;
    } else if (arg.startsWith('--package=')) extraPackages.push(arg.slice('--package='.length));
  }
  const allowed = () => [...helpers.npxPackages].join(', ');
  for (const spec of extraPackages) {
    if (!helpers.npxPackages.has(packageName(spec)))
      return `"npx --package ${spec}" is not allowed. Allowed packages: ${allowed()}.`;
  }
  const target = args[index];
  if (target === undefined) return '"npx" needs a package to run.';
  const name = packageName(target);
  const binOfExtra = extraPackages.some((spec) => packageName(spec).split('/').pop() === name);
  if (!helpers.npxPackages.has(name) && !binOfExtra)
    return `"npx ${name}" is not allowed. Allowed packages: ${allowed()}.`;
  const binary = npxBinaries[name] ?? name.split('/').pop() ?? name;
  return helpers.checkArguments(binary, args.slice(index + 1));
};

const npmSubcommands: ReadonlySet<string> = new Set([
  'install',
  'i',
  'ci',
  'add',
  'uninstall',
  'un',
  'remove',
  'rm',
  'update',
  'up',
  'test',
  't',
  'run',
  'run-script',
  'start',
  'stop',
  'restart',
  'ls',
  'list',
  'view',
  'info',
  'outdated',
  'pack',
  'init',
  'audit',
  'explain',
  'why',
  'prune',
  'dedupe',
  'rebuild',
  'query',
  'root',
  'prefix',
  'version',
  'help',
  'config',
  'exec',
  'x',
]);

const npmRule: ProgramRule = (args, helpers) => {
  for (const arg of args) {
    if (arg === '--') break;
    if (arg === '-g' || isOption(arg, '--global', '--location'))
      return `"npm ${arg}" touches the global installation.`;
    if (isOption(arg, '--script-shell', '--node-options', '--call', '-c', '--shell'))
      return `"npm ${arg}" runs a custom shell or node options.`;
  }
  const index = args.findIndex((arg) => !arg.startsWith('-'));
  const subcommand = index === -1 ? undefined : args[index];
  if (subcommand === undefined) return undefined;
  if (!npmSubcommands.has(subcommand)) {
    return `"npm ${subcommand}" is not allowed (publishing, login, tokens and global changes are off). Allowed: ${[...npmSubcommands].join(', ')}.`;
  }
  const rest = args.slice(index + 1);
  if (subcommand === 'config' && !['get', 'list', 'ls'].includes(rest[0] ?? ''))
    return '"npm config" may only read (get, list).';
  if (subcommand === 'exec' || subcommand === 'x') return npxRule(rest, helpers);
  return undefined;
};

const pnpmSubcommands: ReadonlySet<string> = new Set([
  'install',
  'i',
  'add',
  'remove',
  'rm',
  'uninstall',
  'update',
  'up',
  'run',
  'test',
  't',
  'start',
  'exec',
  'dlx',
  'list',
  'ls',
  'why',
  'outdated',
  'audit',
  'init',
  'build',
  'rebuild',
  'prune',
  'dedupe',
  'root',
  'bin',
  'help',
  'typecheck',
  'lint',
]);

const pnpmOptionsWithValue: ReadonlySet<string> = new Set([
  '--filter',
  '-F',
  '-C',
  '--dir',
  '--workspace-dir',
  '--reporter',
]);

const pnpmRule: ProgramRule = (args, helpers) => {
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] ?? '';
    if (!arg.startsWith('-')) break;
    if (pnpmOptionsWithValue.has(arg)) index++;
  }
  for (const arg of args.slice(0, index + 1)) {
    if (arg === '-g' || isOption(arg, '--global')) return `"pnpm ${arg}" touches the global installation.`;
    if (isOption(arg, '-c', '--shell-mode', '--script-shell', '--node-options'))
      return `"pnpm ${arg}" runs a custom shell or node options.`;
  }
  const subcommand = args[index];
  if (subcommand === undefined) return undefined;
  if (!pnpmSubcommands.has(subcommand)) {
    return `"pnpm ${subcommand}" is not allowed (run package scripts with "pnpm run <script>"). Allowed: ${[...pnpmSubcommands].join(', ')}.`;
  }
  const rest = args.slice(index + 1);
  // What follows the program of exec/dlx/run belongs to that program; check only pnpm's options.
  const passesThrough = subcommand === 'exec' || subcommand === 'dlx' || subcommand === 'run';
  for (const arg of rest) {
    if (arg === '--' || (passesThrough && !arg.startsWith('-'))) break;
    if (arg === '-g' || isOption(arg, '--global'))
      return `"pnpm ${subcommand} ${arg}" touches the global installation.`;
    if (isOption(arg, '-c', '--shell-mode', '--script-shell', '--node-options'))
      return `"pnpm ${subcommand} ${arg}" runs a custom shell or node options.`;
  }
  if (subcommand === 'dlx') return npxRule(rest, helpers);
  if (subcommand === 'exec') {
    const inner = rest.findIndex((arg) => !arg.startsWith('-'));
    if (inner === -1) return '"pnpm exec" needs a program.';
    return helpers.check(rest.slice(inner));
  }
  return undefined;
};

/** Built-in argument rules (programs without a rule only get the path checks). */
export const defaultProgramRules: Readonly<Record<string, ProgramRule>> = {
  git: gitRule,
  rg: ripgrepRule,
  grep: grepRule,
  ls: lsRule,
  find: findRule,
  node: nodeRule,
  npx: npxRule,
  npm: npmRule,
  pnpm: pnpmRule,
};

/** The policy with defaults filled in. */
export interface ResolvedCommandPolicy {
  readonly allow: ReadonlySet<string>;
  readonly rules: Readonly<Record<string, ProgramRule>>;
  readonly npxPackages: ReadonlySet<string>;
  readonly env: Readonly<Record<string, string>>;
  readonly passEnv: readonly string[];
}

/** Fills a {@link CommandPolicy} with the defaults. */
export function resolveCommandPolicy(policy: CommandPolicy = {}): ResolvedCommandPolicy {
  for (const program of policy.allow ?? []) {
    if (!/^[a-zA-Z0-9._+-]+$/.test(program)) {
      throw new ToolError({
        code: 'invalid-definition',
        message: `Command policy: ${JSON.stringify(program)} is not a bare program name.`,
      });
    }
  }
  return {
    allow: new Set(policy.allow ?? defaultAllowedPrograms),
    rules: { ...defaultProgramRules, ...policy.rules },
    npxPackages: new Set(policy.npxPackages ?? defaultNpxPackages),
    env: { ...policy.env },
    passEnv: [...(policy.passEnv ?? [])],
  };
}

/** The environment a command gets: the base names and `passEnv` from `source`, then fixed and policy values. */
export function commandEnv(
  policy: ResolvedCommandPolicy,
  source: Readonly<Record<string, string | undefined>> = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of [...baseEnvNames, ...policy.passEnv]) {
    const value = source[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...fixedEnv, ...policy.env };
}

function denied(argv: readonly string[], reason: string): ToolError {
  return new ToolError({
    code: 'command-denied',
    message: `Command ${JSON.stringify(argv)} is denied: ${reason}`,
    details: { argv, reason },
  });
}

/** Checks program and argument rules (no file system access). Returns a reason or undefined. */
function checkRules(policy: ResolvedCommandPolicy, argv: readonly string[], depth = 0): string | undefined {
  if (depth > 4) return 'commands nested too deeply.';
  const [program, ...args] = argv;
  if (program === undefined || program === '') return 'the argv array is empty.';
  if (!/^[a-zA-Z0-9._+-]+$/.test(program))
    return `the program must be a bare name from the allowlist, not a path (${JSON.stringify(program)}).`;
  if (!policy.allow.has(program)) {
    return `"${program}" is not an allowed program. Allowed: ${[...policy.allow].join(', ')}. There is no shell: pipes, redirects, globs and && do not work.`;
  }
  const rule = policy.rules[program];
  if (rule === undefined) return undefined;
  return rule(args, helpersFor(policy, depth));
}

function helpersFor(policy: ResolvedCommandPolicy, depth: number): ProgramRuleHelpers {
  return {
    npxPackages: policy.npxPackages,
    check: (nested) => checkRules(policy, nested, depth + 1),
    checkArguments: (program, args) => {
      if (depth > 4) return 'commands nested too deeply.';
      return policy.rules[program]?.(args, helpersFor(policy, depth + 1));
    },
  };
}

const allowedOutsidePaths: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

function pathCandidates(arg: string): string[] {
  const candidates = [arg];
  const equals = arg.indexOf('=');
  if (arg.startsWith('-') && equals > 0) candidates.push(arg.slice(equals + 1));
  return candidates.filter((candidate) => candidate !== '' && !candidate.startsWith('-'));
}

function looksLikePath(candidate: string): boolean {
  const slashed = candidate.replace(/\\/g, '/');
  return (
    slashed.startsWith('/') ||
    slashed.startsWith('~') ||
    /^[a-z]:/i.test(slashed) ||
    /^file:/i.test(slashed) ||
    /(^|\/)\.\.(\/|$)/.test(slashed) ||
    /%2e|%2f|%5c/i.test(slashed) ||
    slashed !== slashed.normalize('NFKC')
  );
}

async function exists(target: string): Promise<boolean> {
  try {
    await lstat(target);
    return true;
  } catch {
    return false;
  }
}

/** What {@link checkCommand} approved. */
export interface CheckedCommand {
  program: string;
  args: string[];
  /** Absolute real cwd inside the root. */
  cwd: string;
}

/**
 * Checks a command line against a policy before it runs: the program is a bare allowed name,
 * its arguments pass the program's rule, and every argument that is or contains a path
 * (absolute, `..`, `~`, encoded, or an existing file) resolves inside the workspace (symlinks
 * followed). Throws `ToolError`: `command-denied`, `path-escape` for a cwd outside the root,
 * `execution-failed` for a cwd that does not exist. The verifier's guard can call it to
 * pre-check a `run_command` call.
 */
export async function checkCommand(
  argv: readonly string[],
  options: { root: string; cwd?: string; policy?: CommandPolicy | ResolvedCommandPolicy },
): Promise<CheckedCommand> {
  const policy =
    options.policy !== undefined && 'allow' in options.policy && options.policy.allow instanceof Set
      ? (options.policy as ResolvedCommandPolicy)
      : resolveCommandPolicy(options.policy as CommandPolicy | undefined);
  if (!Array.isArray(argv) || argv.some((arg) => typeof arg !== 'string'))
    throw denied([], 'argv must be an array of strings.');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL cannot be passed to a process
  if (argv.some((arg) => /\u0000/.test(arg))) throw denied(argv, 'arguments cannot contain NUL bytes.');
  const reason = checkRules(policy, argv);
  if (reason !== undefined) throw denied(argv, reason);

  const cwd = await resolveInWorkspace(options.root, options.cwd ?? '.');
  try {
    await access(cwd, constants.R_OK);
  } catch (error) {
    throw new ToolError({
      code: 'execution-failed',
      message: `The cwd ${JSON.stringify(options.cwd ?? '.')} does not exist. Use list_dir to see the folders.`,
      details: { cwd: options.cwd ?? '.' },
      cause: error,
    });
  }
  const realRoot = await resolveInWorkspace(options.root, '.');
  const cwdFromRoot = path.relative(realRoot, cwd);
  const [program = '', ...args] = argv;
  for (const arg of args) {
    for (const candidate of pathCandidates(arg)) {
      if (allowedOutsidePaths.has(candidate)) continue;
      const pathLike = looksLikePath(candidate);
      if (!pathLike && !(await exists(path.resolve(cwd, candidate)))) continue;
      const slashed = candidate.replace(/\\/g, '/');
      const standalone = path.isAbsolute(slashed) || /^([a-z]:|~|file:)/i.test(slashed);
      const userPath = standalone || cwdFromRoot === '' ? candidate : `${cwdFromRoot}/${candidate}`;
      try {
        await resolveInWorkspace(options.root, userPath);
      } catch (error) {
        if (ToolError.isInstance(error) && error.code === 'path-escape') {
          const why = String(error.details.reason ?? 'it points outside the workspace');
          throw denied(argv, `the argument ${JSON.stringify(arg)} is refused: ${why}.`);
        }
        throw error;
      }
    }
  }
  return { program, args, cwd };
}
