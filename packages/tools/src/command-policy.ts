import { constants } from 'node:fs';
import { access, lstat } from 'node:fs/promises';
import path from 'node:path';
import { gitProtectedReason, inGitDirectory } from './git-repository';
import { gitRule } from './git-rule';
import { builtinProgramRules, type ProgramRule, type ProgramRuleHelpers } from './program-rules';
import { resolveInWorkspace } from './resolve-in-workspace';
import { ToolError } from './tool-error';

export type { ProgramRule, ProgramRuleHelpers } from './program-rules';

/** Which programs may run and what reaches them. */
export interface CommandPolicy {
  /**
   * Programs that may run (bare names, resolved on `PATH`; test, build and lint tools prefer the
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

/** The programs commands may start when no policy says otherwise. */
export const defaultAllowedPrograms: readonly string[] = [
  'node',
  'npm',
  'npx',
  'pnpm',
  'yarn',
  'git',
  'tsc',
  'tsx',
  'vitest',
  'jest',
  'eslint',
  'biome',
  'prettier',
  'playwright',
  'python3',
  // Parse-only forms (see their rules): they confirm syntax errors for the verifier.
  'gofmt',
  'rustfmt',
  'javac',
  'php',
  'ls',
  'cat',
  'echo',
  'rg',
  'grep',
  'find',
];

/** Programs looked up in the workspace's `node_modules/.bin` before `PATH`. */
export const localBinPrograms: ReadonlySet<string> = new Set([
  'tsc',
  'tsx',
  'vitest',
  'jest',
  'eslint',
  'biome',
  'prettier',
  'playwright',
]);

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

/** Fixed variables that make tools non-interactive, colourless, and git blind to global config. */
const fixedEnv: Readonly<Record<string, string>> = {
  CI: '1',
  NO_COLOR: '1',
  FORCE_COLOR: '0',
  TERM: 'dumb',
  PAGER: 'cat',
  GIT_PAGER: 'cat',
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  GIT_TERMINAL_PROMPT: '0',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_ALLOW_PROTOCOL: 'http:https:ssh:git',
  // What git shows is the repository's real history: a command may write `refs/replace/*` or
  // `info/grafts` (the git directory is writable), which would make `git diff`, `git show`,
  // `git status` and `git log` show other commits — forged evidence for the verifier.
  GIT_NO_REPLACE_OBJECTS: '1',
  GIT_GRAFT_FILE: '/dev/null',
  NO_UPDATE_NOTIFIER: '1',
  npm_config_update_notifier: 'false',
  // `npx` and `npm exec` never install a missing package (in CI they would, without asking).
  npm_config_yes: 'false',
};

/** Built-in argument rules (programs without a rule only get the path checks). */
export const defaultProgramRules: Readonly<Record<string, ProgramRule>> = {
  ...builtinProgramRules,
  git: gitRule,
};

const resolvedMarker = Symbol.for('closedloop.tools.resolved-command-policy');

/** The policy with defaults filled in. */
export interface ResolvedCommandPolicy {
  readonly allow: ReadonlySet<string>;
  readonly rules: Readonly<Record<string, ProgramRule>>;
  readonly npxPackages: ReadonlySet<string>;
  readonly env: Readonly<Record<string, string>>;
  readonly passEnv: readonly string[];
}

/** True for a policy {@link resolveCommandPolicy} built. */
export function isResolvedCommandPolicy(policy: unknown): policy is ResolvedCommandPolicy {
  return typeof policy === 'object' && policy !== null && resolvedMarker in policy;
}

/** Fills a {@link CommandPolicy} with the defaults. */
export function resolveCommandPolicy(policy: CommandPolicy = {}): ResolvedCommandPolicy {
  for (const program of policy.allow ?? []) {
    if (!/^[a-zA-Z0-9._+-]+$/.test(program) || program === '.' || program === '..') {
      throw new ToolError({
        code: 'invalid-definition',
        message: `Command policy: ${JSON.stringify(program)} is not a bare program name.`,
      });
    }
  }
  return {
    [resolvedMarker]: true,
    allow: new Set(policy.allow ?? defaultAllowedPrograms),
    rules: { ...defaultProgramRules, ...policy.rules },
    npxPackages: new Set(policy.npxPackages ?? defaultNpxPackages),
    env: { ...policy.env },
    passEnv: [...(policy.passEnv ?? [])],
  } as ResolvedCommandPolicy;
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

const maxNesting = 4;

interface RuleContext {
  policy: ResolvedCommandPolicy;
  root: string;
  cwd: string;
  /** Indexes (in the top-level args) of free-text arguments. */
  text: Set<number>;
}

/** Checks program and argument rules. Returns a reason or undefined. */
async function checkRules(
  context: RuleContext,
  argv: readonly string[],
  offset: number,
  depth: number,
): Promise<string | undefined> {
  if (depth > maxNesting) return 'commands nested too deeply.';
  const [program, ...args] = argv;
  if (program === undefined || program === '') return 'the argv array is empty.';
  if (!/^[a-zA-Z0-9._+-]+$/.test(program) || program === '.' || program === '..')
    return `the program must be a bare name from the allowlist, not a path (${JSON.stringify(program)}).`;
  if (!context.policy.allow.has(program)) {
    return `"${program}" is not an allowed program. Allowed: ${[...context.policy.allow].join(', ')}. There is no shell: pipes, redirects, globs and && do not work.`;
  }
  return checkArguments(context, program, args, offset + 1, depth);
}

async function checkArguments(
  context: RuleContext,
  program: string,
  args: readonly string[],
  offset: number,
  depth: number,
): Promise<string | undefined> {
  if (depth > maxNesting) return 'commands nested too deeply.';
  const rule = context.policy.rules[program];
  if (rule === undefined) return undefined;
  return rule(args, helpersFor(context, offset, depth));
}

function helpersFor(context: RuleContext, offset: number, depth: number): ProgramRuleHelpers {
  return {
    npxPackages: context.policy.npxPackages,
    root: context.root,
    cwd: context.cwd,
    check: (nested, nestedOffset = 0) => checkRules(context, nested, offset + nestedOffset, depth + 1),
    checkArguments: (program, args, nestedOffset = 0) =>
      checkArguments(context, program, args, offset + nestedOffset, depth + 1),
    markText: (index) => context.text.add(offset + index),
    confine: async (value) => confinePath(context.root, context.cwd, value),
  };
}

const allowedOutsidePaths: ReadonlySet<string> = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

const localProtocol = String.raw`(?:file|link|portal|exec|patch|workspace|git\+file|npm)`;
const protocolAtStart = new RegExp(`^${localProtocol}:(.*)$`, 'is');
const protocolAfterName = new RegExp(`^[^:]*?@${localProtocol}:(.*)$`, 'is');

/**
 * The local path behind a package manager's or git's local protocol, or undefined: `link:/etc`,
 * `portal:../x`, `exec:./x`, `git+file:///srv/repo`, `name@file:/y`, `npm:x@link:/y` name folders
 * as surely as `file:` does (pnpm and yarn make `link:` and `portal:` packages symbolic links to
 * them). A URL with a host (`git+file://host/x`) is not a local path.
 */
function protocolPath(candidate: string, depth = 0): string | undefined {
  const slashed = candidate.replace(/\\/g, '/');
  // At the start (`link:/x`) or after a package name (`name@file:/x`, `@scope/name@link:/x`).
  const match = protocolAtStart.exec(slashed) ?? protocolAfterName.exec(slashed);
  if (match === null || depth > 4) return undefined;
  const rest = match[1] as string;
  // `scheme:///path` (an empty host) is a local path; `scheme://host/…` is not.
  if (rest.startsWith('///')) return rest.slice(2);
  if (rest.startsWith('//'))
    return /^\/\/localhost\//i.test(rest) ? rest.slice('//localhost'.length) : undefined;
  // A nested protocol (`npm:x@file:/y`) or the path itself.
  return protocolPath(rest, depth + 1) ?? (rest === '' ? undefined : rest);
}

function pathCandidates(arg: string): string[] {
  const candidates = [arg];
  const equals = arg.indexOf('=');
  if (equals > 0) candidates.push(arg.slice(equals + 1));
  // `-o/tmp/x`, `-f../x`: a short option with an attached value.
  if (/^-[A-Za-z][^=]/.test(arg) && !arg.startsWith('--')) candidates.push(arg.slice(2));
  for (const candidate of [...candidates]) {
    const local = protocolPath(candidate);
    if (local !== undefined && local !== candidate) candidates.push(local);
  }
  return candidates.filter((candidate) => candidate !== '' && !candidate.startsWith('-'));
}

function looksLikePath(candidate: string): boolean {
  const slashed = candidate.replace(/\\/g, '/');
  return (
    slashed.startsWith('/') ||
    slashed.startsWith('~') ||
    /^[a-z]:/i.test(slashed) ||
    /^file:/i.test(slashed) ||
    /(^|\/|=|:)\.\.(\/|$)/.test(slashed) ||
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

/**
 * True when `candidate` (relative to `cwd`) or one of its leading folders exists: `out/new.txt`
 * names a file that does not exist yet, but if `out` is a symbolic link to `/etc`, a program
 * writing `out/new.txt` (`git mv a out/new.txt`, `git log --output=out/x`) writes in `/etc`.
 */
async function existsOrLeadsThroughExisting(cwd: string, candidate: string): Promise<boolean> {
  const segments = candidate.replace(/\\/g, '/').split('/');
  for (let count = segments.length; count >= 1; count--) {
    const prefix = segments.slice(0, count).join('/');
    if (prefix === '' || prefix === '.') continue;
    if (await exists(path.resolve(cwd, prefix))) return true;
  }
  return false;
}

/**
 * A path that starts with an environment variable or another user's home folder (`$HOME/x`,
 * `${PWD}/../x`, `%USERPROFILE%\\x`, `~root/x`). There is no shell, but some programs expand these
 * themselves — pytest's `-o cache_dir=$HOME/x` writes in the home folder — so they would name a
 * folder outside the workspace that no check here sees.
 */
const expandedByPrograms =
  /^(?:\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|%[A-Za-z_][A-Za-z0-9_]*%|~[A-Za-z0-9._-]+)(?:[\\/]|$)/;

/** Programs that only read: naming a git directory's files to them is harmless. */
const readers: ReadonlySet<string> = new Set(['cat', 'ls', 'grep', 'rg', 'find', 'echo']);

/** Returns why `candidate` (relative to `cwd`) escapes the workspace, or undefined. */
async function confinePath(root: string, cwd: string, candidate: string): Promise<string | undefined> {
  if (allowedOutsidePaths.has(candidate)) return undefined;
  const realRoot = await resolveInWorkspace(root, '.');
  const cwdFromRoot = path.relative(realRoot, cwd);
  const slashed = candidate.replace(/\\/g, '/');
  const standalone = path.isAbsolute(slashed) || /^([a-z]:|~|file:)/i.test(slashed);
  const userPath =
    standalone || cwdFromRoot === ''
      ? candidate.replace(/^file:(\/\/)?/i, '')
      : `${cwdFromRoot}/${candidate}`;
  try {
    await resolveInWorkspace(root, userPath);
    return undefined;
  } catch (error) {
    if (ToolError.isInstance(error) && error.code === 'path-escape')
      return String(error.details.reason ?? 'it points outside the workspace');
    throw error;
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
 * its arguments pass the program's rule (deny by default: unknown options, abbreviations of
 * known ones, inline code, module URLs, symlink-following, program-running options are
 * refused), and every argument that is or contains a path (absolute, `..`, `~`, encoded,
 * `--opt=path`, `-opath`, or an existing file) resolves inside the workspace (symlinks followed)
 * — except arguments a rule marks as free text (a commit message, a search pattern). Throws
 * `ToolError`: `command-denied`, `path-escape` for a cwd outside the root, `execution-failed`
 * for a cwd that does not exist. The verifier's guard can call it to pre-check a `run_command`.
 */
export async function checkCommand(
  argv: readonly string[],
  options: { root: string; cwd?: string; policy?: CommandPolicy | ResolvedCommandPolicy },
): Promise<CheckedCommand> {
  const policy = isResolvedCommandPolicy(options.policy)
    ? options.policy
    : resolveCommandPolicy(options.policy as CommandPolicy | undefined);
  if (!Array.isArray(argv) || argv.some((arg) => typeof arg !== 'string'))
    throw denied([], 'argv must be an array of strings.');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL cannot be passed to a process
  if (argv.some((arg) => /\u0000/.test(arg))) throw denied(argv, 'arguments cannot contain NUL bytes.');

  const cwd = await resolveInWorkspace(options.root, options.cwd ?? '.');
  const realRoot = await resolveInWorkspace(options.root, '.');
  const context: RuleContext = { policy, root: realRoot, cwd, text: new Set() };
  const reason = await checkRules(context, argv, -1, 0);
  if (reason !== undefined) throw denied(argv, reason);
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
  const [program = '', ...args] = argv;
  if (!readers.has(program)) {
    // A program writes where it runs (`git archive -o pre-commit` in `.git/hooks`): not in a git
    // directory — a `.git` folder, or a bare repository below the root (git itself refuses to
    // work in a bare one: `safe.bareRepository=explicit`).
    const segments = path
      .relative(realRoot, cwd)
      .split(path.sep)
      .filter((segment) => segment !== '');
    const inRepository =
      segments.some((segment) => segment.toLowerCase() === '.git') ||
      (program !== 'git' && (await inGitDirectory(realRoot, segments)));
    if (inRepository)
      throw denied(
        argv,
        `the cwd ${JSON.stringify(options.cwd ?? '.')} is refused: it is inside a git directory (its config and hooks can run commands); run the command from the work tree.`,
      );
  }
  const gitPath = /(?:^|[\\/])(?:\.git|hooks|config|HEAD|objects|refs)(?:[\\/]|$)/i;
  for (const [index, arg] of args.entries()) {
    if (context.text.has(index)) continue;
    for (const candidate of pathCandidates(arg)) {
      if (allowedOutsidePaths.has(candidate)) continue;
      const variable = expandedByPrograms.exec(candidate)?.[0].replace(/[\\/]$/, '');
      if (variable !== undefined)
        throw denied(
          argv,
          `the argument ${JSON.stringify(arg)} is refused: it starts with ${variable}, which some programs expand themselves (to a folder outside the workspace); there is no shell, so write the path relative to the workspace.`,
        );
      const mayBeGit = !readers.has(program) && gitPath.test(candidate);
      if (!mayBeGit && !looksLikePath(candidate) && !(await existsOrLeadsThroughExisting(cwd, candidate)))
        continue;
      const why = await confinePath(options.root, cwd, candidate);
      if (why !== undefined) throw denied(argv, `the argument ${JSON.stringify(arg)} is refused: ${why}.`);
      if (mayBeGit) {
        // Whatever writes there could plant a hook or a config that runs programs later.
        const target = path.resolve(cwd, candidate.replace(/^file:(\/\/)?/i, ''));
        const protectedWhy = await gitProtectedReason(realRoot, target);
        if (protectedWhy !== undefined)
          throw denied(argv, `the argument ${JSON.stringify(arg)} is refused: ${protectedWhy}.`);
      }
    }
  }
  return { program, args, cwd };
}
