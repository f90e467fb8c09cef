import path from 'node:path';
import {
  type ArgvGrammar,
  applyGrammar,
  checkModuleSpecifier,
  denied,
  type OptionSpec,
  options,
} from './argv-grammar';
import { packageManagerConfigProblem } from './package-manager-config';
import { syntaxToolRules } from './syntax-tool-rules';
import { checkTypeScriptOutputs } from './typescript-outputs';

/**
 * Decides whether one program may run with the given arguments. Returns `undefined` to allow,
 * or a reason (shown to the model) to deny. A rule may be async (it may read the workspace).
 */
export type ProgramRule = (
  args: readonly string[],
  helpers: ProgramRuleHelpers,
) => string | undefined | Promise<string | undefined>;

/** What a {@link ProgramRule} can use. */
export interface ProgramRuleHelpers {
  /** Packages `npx`, `npm exec` and `pnpm dlx` may run. */
  readonly npxPackages: ReadonlySet<string>;
  /** The workspace's real path. */
  readonly root: string;
  /** The command's real working directory. */
  readonly cwd: string;
  /**
   * Checks a nested argv against the whole policy (allowlist and rules), for `pnpm exec`.
   * `offset` is where the nested argv starts in this rule's `args`.
   */
  check(argv: readonly string[], offset?: number): Promise<string | undefined>;
  /** Applies only `program`'s argument rule (no allowlist), for what `npx` runs. */
  checkArguments(program: string, args: readonly string[], offset?: number): Promise<string | undefined>;
  /** Marks `args[index]` as free text (a message, a pattern): the path checks skip it. */
  markText(index: number): void;
  /** Confines a path value (relative to the cwd) to the workspace; returns a reason when it escapes. */
  confine(value: string): Promise<string | undefined>;
}

/** The helpers for a rule that receives `args.slice(by)`. */
export function shiftHelpers(helpers: ProgramRuleHelpers, by: number): ProgramRuleHelpers {
  if (by === 0) return helpers;
  return {
    ...helpers,
    check: (argv, offset = 0) => helpers.check(argv, by + offset),
    checkArguments: (program, args, offset = 0) => helpers.checkArguments(program, args, by + offset),
    markText: (index) => helpers.markText(by + index),
  };
}

const inlineCode = 'it evaluates inline code: write a script file in the workspace and run it instead';
const debuggerPort = 'it opens a debugger port';

// ---------------------------------------------------------------------------------------------
// node and TypeScript runners
// ---------------------------------------------------------------------------------------------

const nodeLong: Record<string, OptionSpec> = {
  ...options(
    'test test-only test-force-exit test-update-snapshots experimental-test-coverage experimental-test-snapshots ' +
      'experimental-strip-types experimental-transform-types no-experimental-strip-types experimental-vm-modules ' +
      'experimental-detect-module no-experimental-detect-module experimental-require-module no-experimental-require-module ' +
      'experimental-wasm-modules experimental-import-meta-resolve experimental-json-modules experimental-specifier-resolution? ' +
      'no-warnings no-deprecation trace-warnings trace-deprecation trace-uncaught throw-deprecation pending-deprecation ' +
      'enable-source-maps preserve-symlinks preserve-symlinks-main abort-on-uncaught-exception expose-gc frozen-intrinsics ' +
      'no-addons no-global-search-paths jitless check version help zero-fill-buffers trace-exit trace-sigint ' +
      'experimental-permission permission allow-child-process allow-worker allow-wasi allow-addons',
  ),
  ...options(
    'stack-trace-limit= max-old-space-size= max-semi-space-size= unhandled-rejections= input-type= conditions= ' +
      'disable-proto= test-name-pattern= test-skip-pattern= test-concurrency= test-timeout= test-shard= ' +
      'test-coverage-include= test-coverage-exclude= test-coverage-lines= test-coverage-branches= test-coverage-functions= ' +
      'experimental-test-isolation= experimental-default-type= title= stack-size= run= secure-heap= secure-heap-min= ' +
      'dns-result-order= tls-min-v1.0 tls-max-v1.2 experimental-sqlite experimental-websocket',
    'text',
  ),
  ...options(
    'test-reporter-destination= cpu-prof-dir= heap-prof-dir= redirect-warnings= ' +
      'report-directory= report-dir= diagnostic-dir= allow-fs-read= allow-fs-write= icu-data-dir=',
  ),
  import: { arity: 'value', kind: 'module' },
  require: { arity: 'value', kind: 'module' },
  loader: { arity: 'value', kind: 'module' },
  'experimental-loader': { arity: 'value', kind: 'module' },
  'test-reporter': { arity: 'value', kind: 'module' },
  ...denied('eval print', inlineCode),
  ...denied('interactive', 'it starts a REPL', 'flag'),
  ...denied(
    'inspect inspect-brk inspect-wait inspect-port debug debug-brk debug-port inspect-publish-uid',
    debuggerPort,
    'optional',
  ),
  ...denied('watch watch-path watch-preserve-output', 'watch mode never ends', 'optional'),
  ...denied(
    'experimental-policy policy-integrity openssl-config openssl-shared-config snapshot-blob build-snapshot build-snapshot-config experimental-sea-config',
    'it loads or builds native configuration or code',
  ),
  ...denied(
    'experimental-network-imports experimental-network-inspection',
    'it loads code from the network',
    'flag',
  ),
  ...denied('env-file env-file-if-exists', 'an env file can set NODE_OPTIONS (inline code, loaders)'),
};

const nodeShort: Record<string, OptionSpec> = {
  ...options('c h v'),
  ...options('C=', 'text'),
  r: { arity: 'value', kind: 'module' },
  ...denied('e p', inlineCode),
  ...denied('i', 'it starts a REPL', 'flag'),
};

/** `node [options] [script [args]]`: options before the script only. */
export const nodeGrammar: ArgvGrammar = {
  name: 'node',
  long: nodeLong,
  short: nodeShort,
  underscores: true,
  stopAtPositional: true,
};

/** `tsx [options] script`: node's options plus tsx's own. */
export const tsxGrammar: ArgvGrammar = {
  name: 'tsx',
  long: { ...nodeLong, ...options('tsconfig='), ...options('no-cache clear-screen no-clear-screen') },
  short: nodeShort,
  underscores: true,
  stopAtPositional: true,
};

const nodeRule: ProgramRule = (args, helpers) => applyGrammar(nodeGrammar, args, helpers).error;
const tsxRule: ProgramRule = (args, helpers) => {
  const parsed = applyGrammar(tsxGrammar, args, helpers);
  if (parsed.error) return parsed.error;
  const first = args[parsed.stoppedAt];
  if (first === 'watch') return '"tsx watch" never ends: run the script once.';
  return undefined;
};

// ---------------------------------------------------------------------------------------------
// Python
// ---------------------------------------------------------------------------------------------

/** Modules `python3 -m` may run: test, type-check, lint and format tools. */
export const defaultPythonModules: readonly string[] = [
  'pytest',
  'unittest',
  'doctest',
  'mypy',
  'pyright',
  'ruff',
  'black',
  'isort',
  'flake8',
  'pylint',
  'pyflakes',
  'py_compile',
  'compileall',
  'json.tool',
];

const pythonGrammar: ArgvGrammar = {
  name: 'python3',
  long: { ...options('help version'), ...denied('check-hash-based-pycs', 'not needed') },
  short: {
    ...options('B E I O P q s S u v b h V'),
    ...options('W=', 'text'),
    ...denied('c', inlineCode),
    ...denied('X', 'implementation options are not allowed', 'value'),
    ...denied('i', 'it starts a REPL', 'flag'),
    ...denied('d', 'parser debugging is not needed', 'flag'),
    m: {
      arity: 'value',
      kind: 'text',
      check: (module) =>
        defaultPythonModules.includes(module)
          ? undefined
          : `module runners other than ${defaultPythonModules.join(', ')} are refused (${JSON.stringify(module)} could start a server, install packages or run inline code)`,
    },
  },
  stopAtPositional: true,
};

const pythonRule: ProgramRule = (args, helpers) => {
  const parsed = applyGrammar(pythonGrammar, args, helpers);
  return parsed.error;
};

// ---------------------------------------------------------------------------------------------
// TypeScript compiler and test / lint / format tools
// ---------------------------------------------------------------------------------------------

const tscOutputs =
  'outDir outFile out declarationDir tsBuildInfoFile generateTrace generateCpuProfile rootDir baseUrl';
const tscGrammar: ArgvGrammar = {
  name: 'tsc',
  long: {
    ...Object.fromEntries(
      tscOutputs.split(' ').map((name) => [name, { arity: 'value', kind: 'path' } as OptionSpec]),
    ),
    project: { arity: 'value', kind: 'path' },
    ...options(
      'build noEmit pretty listFiles listEmittedFiles version help all showConfig force dry verbose clean init',
    ),
    ...denied('watch', 'watch mode never ends', 'flag'),
    ...denied('plugins', 'compiler plugins load code', 'value'),
  },
  short: {
    ...options('b d v h'),
    ...options('t= m=', 'text'),
    p: { arity: 'value', kind: 'path' },
    ...denied('w', 'watch mode never ends', 'flag'),
  },
  singleDashLong: true,
  ignoreCase: true,
  unknownOptions: 'allow',
};

const tscRule: ProgramRule = (args, helpers) => {
  const parsed = applyGrammar(tscGrammar, args, helpers);
  if (parsed.error) return parsed.error;
  const names = new Set(parsed.options.map((option) => option.name));
  const project = parsed.options.find((option) => option.name === 'project' || option.name === 'p')?.value;
  return checkTypeScriptOutputs({
    root: helpers.root,
    cwd: helpers.cwd,
    build: names.has('build') || names.has('b'),
    project,
    positionals: parsed.positionals.map((positional) => positional.value),
  });
};

const serverAndDebug = (name: string) => ({
  ...denied(
    'ui ui-port ui-host open api inspect inspect-brk debug',
    `"${name}" would start a server or a debugger`,
    'optional',
  ),
});

const vitestGrammar: ArgvGrammar = {
  name: 'vitest',
  long: {
    ...serverAndDebug('vitest'),
    ...options('config= root= dir= outputFile= coverage.reportsDirectory='),
    ...options('watch? standalone?', 'text'),
    reporter: { arity: 'value', kind: 'module' },
    // The type checker is a program vitest runs (`tsc`, `vue-tsc`, or any executable named here).
    'typecheck.checker': {
      arity: 'value',
      kind: 'text',
      check: (value) =>
        value === 'tsc' || value === 'vue-tsc'
          ? undefined
          : `${JSON.stringify(value)} is not tsc or vue-tsc: vitest would run it as a program`,
    },
  },
  short: { w: { arity: 'flag' } },
  unknownOptions: 'allow',
};

const vitestRule: ProgramRule = (args, helpers) => {
  const parsed = applyGrammar(vitestGrammar, args, helpers);
  if (parsed.error) return parsed.error;
  const watching = parsed.options.find(
    (option) => ['watch', 'w', 'standalone'].includes(option.name) && option.value !== 'false',
  );
  const command = parsed.positionals[0]?.value;
  if (watching !== undefined || command === 'watch' || command === 'dev')
    return `"vitest ${watching === undefined ? command : `${watching.name.length === 1 ? '-' : '--'}${watching.name}`}" is not allowed: watch mode never ends (use "vitest run").`;
  return undefined;
};

/** jest's `--config` / `-c`: a file, never inline JSON (which can name any module to load). */
const jestConfig: OptionSpec = {
  arity: 'value',
  kind: 'path',
  check: (value) =>
    value.trim().replace(/^=/, '').trim().startsWith('{')
      ? 'an inline JSON configuration can load any code'
      : undefined,
};

const jestGrammar: ArgvGrammar = {
  name: 'jest',
  long: {
    ...denied('watch watchAll', 'watch mode never ends', 'flag'),
    config: jestConfig,
    ...options('rootDir= outputFile= coverageDirectory= roots='),
    ...Object.fromEntries(
      'testRunner setupFiles setupFilesAfterEnv globalSetup globalTeardown reporters testEnvironment testResultsProcessor resolver transform'
        .split(' ')
        .map((name) => [name, { arity: 'value', kind: 'module' } as OptionSpec]),
    ),
  },
  short: { c: jestConfig },
  unknownOptions: 'allow',
};

const eslintGrammar: ArgvGrammar = {
  name: 'eslint',
  long: {
    ...options('config= rulesdir= resolve-plugins-relative-to= output-file= ignore-path= cache-location='),
    ...denied(
      'inspect-config mcp',
      '"eslint" would start a server (the config inspector, an MCP server)',
      'flag',
    ),
    plugin: { arity: 'value', kind: 'module' },
    format: { arity: 'value', kind: 'module' },
    parser: { arity: 'value', kind: 'module' },
  },
  short: {
    c: { arity: 'value', kind: 'path' },
    o: { arity: 'value', kind: 'path' },
    f: { arity: 'value', kind: 'module' },
  },
  unknownOptions: 'allow',
};

const prettierGrammar: ArgvGrammar = {
  name: 'prettier',
  long: {
    ...options('config= ignore-path= cache-location='),
    plugin: { arity: 'value', kind: 'module' },
  },
  unknownOptions: 'allow',
};

const biomeGrammar: ArgvGrammar = {
  name: 'biome',
  long: { ...options('config-path= log-file= stdin-file-path=') },
  unknownOptions: 'allow',
};

const biomeRule: ProgramRule = (args, helpers) => {
  const parsed = applyGrammar(biomeGrammar, args, helpers);
  if (parsed.error) return parsed.error;
  const command = parsed.positionals[0]?.value;
  const allowed = ['check', 'lint', 'format', 'ci', 'version', 'explain', 'rage'];
  if (command !== undefined && !allowed.includes(command))
    return `"biome ${command}" is not allowed (allowed: ${allowed.join(', ')}; "biome start/lsp-proxy" start a server).`;
  return undefined;
};

const playwrightRule: ProgramRule = (args, helpers) => {
  const parsed = applyGrammar(
    {
      name: 'playwright test',
      long: { ...serverAndDebug('playwright'), ...options('config= output=') },
      short: { c: { arity: 'value', kind: 'path' } },
      unknownOptions: 'allow',
    },
    args,
    helpers,
  );
  if (parsed.error) return parsed.error;
  const command = parsed.positionals[0]?.value;
  if (command !== 'test' && command !== '--version')
    return `"playwright ${command ?? ''}" is not allowed: only "playwright test" runs (codegen, show-report, open and install start servers, browsers or downloads).`;
  return undefined;
};

// ---------------------------------------------------------------------------------------------
// Searching and reading files
// ---------------------------------------------------------------------------------------------

const followsLinks = 'it follows symbolic links out of the workspace (use -r)';

/** GNU grep. It accepts unique prefixes of long options, so abbreviations are refused. */
export const grepGrammar: ArgvGrammar = {
  name: 'grep',
  long: {
    ...options(
      'recursive ignore-case no-ignore-case line-number files-with-matches files-without-match count invert-match ' +
        'word-regexp line-regexp extended-regexp fixed-strings basic-regexp perl-regexp only-matching quiet silent ' +
        'no-messages no-filename with-filename text null null-data byte-offset initial-tab line-buffered version help',
    ),
    ...options(
      'regexp= include= exclude= exclude-dir= after-context= before-context= context= max-count= binary-files= ' +
        'directories= devices= label= color? colour?',
      'text',
    ),
    ...options('file= exclude-from='),
    ...denied('dereference-recursive', followsLinks, 'flag'),
  },
  short: {
    ...options('r i n l L c v w x E F G P o q s h H a I z Z b T U y V'),
    ...options('e= A= B= C= m= d= D=', 'text'),
    ...options('f='),
    ...denied('R', followsLinks, 'flag'),
  },
};

const grepRule: ProgramRule = (args, helpers) => {
  const parsed = applyGrammar(grepGrammar, args, helpers);
  if (parsed.error) return parsed.error;
  const hasPattern = parsed.options.some((option) => ['e', 'f', 'regexp', 'file'].includes(option.name));
  const first = parsed.positionals[0];
  if (!hasPattern && first) helpers.markText(first.index);
  return undefined;
};

/** ripgrep. */
export const ripgrepGrammar: ArgvGrammar = {
  name: 'rg',
  long: {
    ...options(
      'ignore-case smart-case case-sensitive line-number no-line-number files-with-matches files-without-match count ' +
        'count-matches invert-match word-regexp line-regexp fixed-strings type-list hidden no-ignore no-ignore-vcs ' +
        'no-ignore-parent no-ignore-dot no-ignore-global no-heading heading with-filename no-filename json vimgrep ' +
        'only-matching files pcre2 multiline multiline-dotall column no-column trim unrestricted text null null-data quiet ' +
        'stats passthru no-config debug trace search-zip no-messages byte-offset crlf version help invert-match ' +
        'files-with-matches no-unicode binary',
    ),
    ...options(
      'regexp= glob= iglob= type= type-not= type-add= after-context= before-context= context= max-count= max-depth= ' +
        'max-filesize= max-columns= sort= sortr= color= colors= replace= threads= encoding= engine= path-separator= ' +
        'field-match-separator= field-context-separator= context-separator=',
      'text',
    ),
    ...options('ignore-file= file='),
    ...denied('follow', followsLinks, 'flag'),
    ...denied('pre pre-glob hostname-bin', 'it runs a program on the files it searches', 'value'),
  },
  short: {
    ...options('i s S n N l c v w x F o u H I h P U a q z 0'),
    ...options('e= g= t= T= A= B= C= m= j= M= r= E=', 'text'),
    ...options('f='),
    ...denied('L', followsLinks, 'flag'),
  },
};

const ripgrepRule: ProgramRule = (args, helpers) => {
  const parsed = applyGrammar(ripgrepGrammar, args, helpers);
  if (parsed.error) return parsed.error;
  const hasPattern = parsed.options.some((option) =>
    ['e', 'f', 'regexp', 'file', 'files', 'type-list'].includes(option.name),
  );
  const first = parsed.positionals[0];
  if (!hasPattern && first) helpers.markText(first.index);
  return undefined;
};

const lsGrammar: ArgvGrammar = {
  name: 'ls',
  long: {
    ...options(
      'all almost-all human-readable si recursive reverse directory classify inode size numeric-uid-gid ' +
        'group-directories-first full-time literal escape no-group author help version',
    ),
    ...options(
      'sort= time= color? format= ignore= hide= time-style= indicator-style= quoting-style= width= block-size=',
      'text',
    ),
    ...denied(
      'dereference dereference-command-line dereference-command-line-symlink-to-dir',
      followsLinks,
      'flag',
    ),
  },
  short: {
    ...options('a A l h R t S r 1 d F p i s n g o G c u U X v x m Q b B k C f'),
    ...options('I= T= w=', 'text'),
    ...denied('L H', followsLinks, 'flag'),
  },
};

const catGrammar: ArgvGrammar = {
  name: 'cat',
  long: options(
    'number number-nonblank squeeze-blank show-all show-ends show-tabs show-nonprinting help version',
  ),
  short: options('n b s A E T v e t u'),
};

const echoRule: ProgramRule = (args, helpers) => {
  for (let index = 0; index < args.length; index++) helpers.markText(index);
  return undefined;
};

const findValueText = new Set([
  '-name',
  '-iname',
  '-path',
  '-ipath',
  '-regex',
  '-iregex',
  '-lname',
  '-ilname',
  '-wholename',
  '-iwholename',
  '-printf',
  '-type',
  '-xtype',
  '-size',
  '-perm',
  '-user',
  '-group',
  '-mtime',
  '-mmin',
  '-atime',
  '-amin',
  '-ctime',
  '-cmin',
  '-used',
  '-maxdepth',
  '-mindepth',
  '-links',
  '-inum',
  '-uid',
  '-gid',
  '-regextype',
  '-fstype',
  '-context',
]);
const findValuePath = new Set(['-newer', '-anewer', '-cnewer', '-samefile', '-files0-from']);
const findFlags = new Set([
  '-print',
  '-print0',
  '-ls',
  '-prune',
  '-quit',
  '-true',
  '-false',
  '-empty',
  '-readable',
  '-writable',
  '-executable',
  '-depth',
  '-d',
  '-xdev',
  '-mount',
  '-noleaf',
  '-daystart',
  '-nouser',
  '-nogroup',
  '-ignore_readdir_race',
  '-noignore_readdir_race',
  '-warn',
  '-nowarn',
  '-not',
  '!',
  '-a',
  '-and',
  '-o',
  '-or',
  '(',
  ')',
  ',',
  '-help',
  '--help',
  '-version',
  '--version',
]);
const findDenied: Readonly<Record<string, string>> = {
  '-exec': 'runs commands',
  '-execdir': 'runs commands',
  '-ok': 'runs commands',
  '-okdir': 'runs commands',
  '-delete': 'deletes files',
  '-fprint': 'writes files',
  '-fprint0': 'writes files',
  '-fprintf': 'writes files',
  '-fls': 'writes files',
  '-follow': followsLinks,
};

const findRule: ProgramRule = (args, helpers) => {
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '-L' || arg === '-H') return `"find ${arg}" is not allowed: ${followsLinks}.`;
    if (arg === '-P') continue;
    if (arg.startsWith('-D')) return '"find -D" debug options are not allowed.';
    if (/^-O\d$/.test(arg)) continue;
    break;
  }
  // Start points: paths until the expression begins.
  for (; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg.startsWith('-') || arg === '(' || arg === '!' || arg === ')') break;
  }
  for (; index < args.length; index++) {
    const arg = args[index] as string;
    const why = findDenied[arg];
    if (why !== undefined) return `"find ${arg}" is not allowed: it ${why}; find is read-only here.`;
    if (findFlags.has(arg)) continue;
    if (findValueText.has(arg) || /^-newer[aBcmt][aBcmt]$/.test(arg)) {
      if (index + 1 >= args.length) return `"find ${arg}" needs a value.`;
      helpers.markText(++index);
      continue;
    }
    if (findValuePath.has(arg)) {
      if (index + 1 >= args.length) return `"find ${arg}" needs a value.`;
      index++;
      continue;
    }
    return `"find ${arg}" is not an expression this policy knows (unknown primaries are refused).`;
  }
  return undefined;
};

// ---------------------------------------------------------------------------------------------
// Package managers
// ---------------------------------------------------------------------------------------------

function packageName(spec: string): string {
  const at = spec.lastIndexOf('@');
  return at > 0 ? spec.slice(0, at) : spec;
}

/**
 * Why the version part of a package spec (`tsc@5`, `vitest@^2.1 || latest`) is refused: it must be
 * a version, range or dist-tag. After the name, npm also takes an alias (`tsc@npm:other`), a path
 * (`tsc@file:../x`), a URL or a git repository, which would run another package under an allowed
 * name.
 */
function packageVersionProblem(spec: string): string | undefined {
  const at = spec.lastIndexOf('@');
  if (at <= 0) return undefined;
  const version = spec.slice(at + 1);
  if (/^[A-Za-z0-9._^~<>=|*+ -]*$/.test(version)) return undefined;
  return `"${spec}" is not a version, range or tag of the package: aliases (npm:), paths (file:), URLs and git repositories are refused.`;
}

/** What `npx <package>` runs, by package name (default: the package's own name). */
const npxBinaries: Readonly<Record<string, string>> = { typescript: 'tsc', '@biomejs/biome': 'biome' };

const shellOptions = 'it runs a custom shell, node options or configuration';

const npxGrammar: ArgvGrammar = {
  name: 'npx',
  long: {
    // `--offline` / `--prefer-offline` only keep npx off the network.
    ...options(
      'no-install yes no quiet workspaces include-workspace-root ignore-existing offline prefer-offline',
    ),
    // A workspace's name or folder: a folder is confined like any path.
    ...options('workspace='),
    package: { arity: 'value', kind: 'text' },
    ...denied(
      'call shell script-shell node-options prefix userconfig globalconfig registry cache',
      shellOptions,
    ),
  },
  short: {
    ...options('y q'),
    ...options('w='),
    p: { arity: 'value', kind: 'text' },
    ...denied('c', shellOptions),
  },
  stopAtPositional: true,
};

/**
 * `npx [options] <package> [args]`. `outerPackages`: the `--package` values of an `npm exec` /
 * `npm x` around it (npm reads `--package` anywhere on its command line), held to the same rule.
 */
async function checkNpx(
  args: readonly string[],
  helpers: ProgramRuleHelpers,
  outerPackages: readonly string[] = [],
): Promise<string | undefined> {
  const parsed = applyGrammar(npxGrammar, args, helpers);
  if (parsed.error) return parsed.error;
  const allowed = () => [...helpers.npxPackages].join(', ');
  const extraPackages = [
    ...outerPackages,
    ...parsed.options
      .filter((option) => option.name === 'package' || option.name === 'p')
      .map((option) => option.value ?? ''),
  ];
  for (const spec of extraPackages) {
    if (!helpers.npxPackages.has(packageName(spec)))
      return `"npx --package ${spec}" is not allowed. Allowed packages: ${allowed()}.`;
    const problem = packageVersionProblem(spec);
    if (problem) return problem;
  }
  const target = args[parsed.stoppedAt];
  if (target === undefined) return '"npx" needs a package to run.';
  const targetProblem = packageVersionProblem(target);
  if (targetProblem) return targetProblem;
  const name = packageName(target);
  const binOfExtra = extraPackages.some((spec) => packageName(spec).split('/').pop() === name);
  if (!helpers.npxPackages.has(name) && !binOfExtra)
    return `"npx ${name}" is not allowed. Allowed packages: ${allowed()}.`;
  const binary = npxBinaries[name] ?? name.split('/').pop() ?? name;
  return helpers.checkArguments(binary, args.slice(parsed.stoppedAt + 1), parsed.stoppedAt + 1);
}

const npxRule: ProgramRule = (args, helpers) => checkNpx(args, helpers);

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
  'll',
  'view',
  'info',
  'show',
  'outdated',
  'pack',
  'init',
  'create',
  'audit',
  'explain',
  'why',
  'prune',
  'dedupe',
  'rebuild',
  'query',
  'root',
  'prefix',
  'config',
  'exec',
  'x',
]);

const npmGrammar: ArgvGrammar = {
  name: 'npm',
  long: {
    ...options(
      'save save-dev save-optional save-peer save-exact save-prod no-save ignore-scripts if-present silent quiet verbose ' +
        'json parseable long all production legacy-peer-deps strict-peer-deps no-audit no-fund audit fund prefer-offline ' +
        'prefer-online offline dry-run package-lock-only no-package-lock workspaces include-workspace-root ' +
        'foreground-scripts force yes no no-install install-links no-optional no-progress progress no-color help version ' +
        'no-workspaces global-style install-strategy? omit-lockfile-registry-resolved',
    ),
    ...options(
      'omit= include= depth= loglevel= audit-level= tag= before= registry= package= access=',
      'text',
    ),
    // A workspace's name or folder: a folder is confined like any path.
    ...options('workspace='),
    ...denied('global location', 'it touches the global installation'),
    ...denied(
      'call shell script-shell node-options userconfig globalconfig prefix cache git init-module editor browser viewer ' +
        'onload-script node-gyp sign-git-commit sign-git-tag logs-dir',
      shellOptions,
    ),
  },
  short: {
    ...options('D S E O B s q d y a l'),
    ...options('w='),
    ...denied('g', 'it touches the global installation', 'flag'),
    ...denied('c', shellOptions),
  },
};

const npmRule: ProgramRule = async (args, helpers) => {
  const dashDash = args.indexOf('--');
  const own = dashDash === -1 ? args : args.slice(0, dashDash);
  const parsed = applyGrammar(npmGrammar, own, helpers);
  if (parsed.error) return parsed.error;
  const [subcommand, ...rest] = parsed.positionals;
  if (subcommand === undefined) return undefined;
  if (!npmSubcommands.has(subcommand.value)) {
    return `"npm ${subcommand.value}" is not allowed (publishing, login, tokens and global changes are off). Allowed: ${[...npmSubcommands].join(', ')}.`;
  }
  switch (subcommand.value) {
    case 'config':
      if (!['get', 'list', 'ls'].includes(rest[0]?.value ?? ''))
        return '"npm config" may only read (get, list).';
      break;
    case 'init':
    case 'create':
      if (rest.length > 0)
        return `"npm ${subcommand.value} <initializer>" runs a package: use "npm init -y".`;
      break;
    case 'exec':
    case 'x': {
      // `npm exec --package=<spec> -- <bin>` installs and runs <spec>: held to the npx rule too.
      const packages = parsed.options
        .filter((option) => option.name === 'package')
        .map((option) => option.value ?? '');
      if (dashDash === -1) {
        const target = rest[0];
        if (target === undefined) return '"npm exec" needs a package to run.';
        return checkNpx(args.slice(target.index), shiftHelpers(helpers, target.index), packages);
      }
      return checkNpx(args.slice(dashDash + 1), shiftHelpers(helpers, dashDash + 1), packages);
    }
  }
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
  'build',
  'rebuild',
  'prune',
  'dedupe',
  'root',
  'bin',
  'typecheck',
  'lint',
]);

const pnpmGrammar: ArgvGrammar = {
  name: 'pnpm',
  long: {
    ...options(
      'workspace-root recursive silent frozen-lockfile no-frozen-lockfile prefer-offline offline save-dev save-prod ' +
        'save-optional save-exact save-peer ignore-scripts if-present parallel stream aggregate-output no-bail bail ' +
        'sort no-sort prod dev no-optional lockfile-only fix-lockfile json long parseable help version',
    ),
    ...options('filter= reporter= workspace-concurrency= depth= loglevel=', 'text'),
    dir: { arity: 'value', kind: 'path' },
    ...denied('global', 'it touches the global installation', 'flag'),
    ...denied(
      'shell-mode script-shell node-options store-dir virtual-store-dir global-dir config',
      shellOptions,
    ),
  },
  short: {
    ...options('w r s D P O E'),
    ...options('F=', 'text'),
    C: { arity: 'value', kind: 'path' },
    ...denied('g', 'it touches the global installation', 'flag'),
    ...denied('c', shellOptions, 'flag'),
  },
  stopAtPositional: true,
};

async function pnpmLike(
  program: 'pnpm' | 'yarn',
  grammar: ArgvGrammar,
  subcommands: ReadonlySet<string>,
  args: readonly string[],
  helpers: ProgramRuleHelpers,
): Promise<string | undefined> {
  const parsed = applyGrammar(grammar, args, helpers);
  if (parsed.error) return parsed.error;
  const subcommand = args[parsed.stoppedAt];
  if (subcommand === undefined) return undefined;
  if (!subcommands.has(subcommand)) {
    return `"${program} ${subcommand}" is not allowed (run package scripts with "${program} run <script>"). Allowed: ${[...subcommands].join(', ')}.`;
  }
  const restStart = parsed.stoppedAt + 1;
  const rest = args.slice(restStart);
  const restHelpers = shiftHelpers(helpers, restStart);
  if (subcommand === 'dlx') return npxRule(rest, restHelpers);
  if (subcommand === 'exec') {
    const inner = applyGrammar({ ...grammar, name: `${program} exec` }, rest, restHelpers);
    if (inner.error) return inner.error;
    let start = inner.stoppedAt;
    if (rest[start] === '--') start++;
    const target = rest.slice(start);
    if (target.length === 0) return `"${program} exec" needs a program.`;
    return restHelpers.check(target, start);
  }
  // Everything after a script's name belongs to the script (`pnpm test --watch`).
  if (scriptRunners.has(subcommand)) {
    if (subcommand !== 'run') return undefined;
    return applyGrammar({ ...grammar, name: `${program} run` }, rest, restHelpers).error;
  }
  return applyGrammar(
    { ...grammar, name: `${program} ${subcommand}`, stopAtPositional: false },
    rest,
    restHelpers,
  ).error;
}

/** Subcommands that run a package script: what follows the script name is the script's. */
const scriptRunners: ReadonlySet<string> = new Set([
  'run',
  'test',
  't',
  'start',
  'build',
  'lint',
  'typecheck',
]);

const pnpmRule: ProgramRule = (args, helpers) =>
  pnpmLike('pnpm', pnpmGrammar, pnpmSubcommands, args, helpers);

const yarnSubcommands: ReadonlySet<string> = new Set([
  'install',
  'add',
  'remove',
  'run',
  'test',
  'build',
  'lint',
  'typecheck',
  'why',
  'list',
  'info',
  'dlx',
  'exec',
]);

const yarnGrammar: ArgvGrammar = {
  name: 'yarn',
  long: {
    ...options(
      'frozen-lockfile immutable immutable-cache dev exact peer optional silent ignore-scripts offline prefer-offline ' +
        'json production non-interactive help version',
    ),
    ...options('mode=', 'text'),
    cwd: { arity: 'value', kind: 'path' },
    ...denied('global', 'it touches the global installation', 'flag'),
    ...denied('use-yarnrc global-folder cache-folder modules-folder', shellOptions),
  },
  short: { ...options('D E P O s') },
  stopAtPositional: true,
};

const yarnRule: ProgramRule = (args, helpers) =>
  pnpmLike('yarn', yarnGrammar, yarnSubcommands, args, helpers);

/** Options of npm, pnpm and yarn that name the project folder the package manager works in. */
const projectFolderOptions = new Set(['--dir', '-C', '--cwd', '--prefix', '--workspace', '-w']);

/**
 * `rule`, then the configuration files the package manager would read (`.npmrc`, `.yarnrc`,
 * `.yarnrc.yml`, `pnpm-workspace.yaml`, from its folder up to the workspace root): none may name
 * a program or code to run ({@link packageManagerConfigProblem}).
 */
function withProjectConfig(rule: ProgramRule): ProgramRule {
  return async (args, helpers) => {
    const problem = await rule(args, helpers);
    if (problem !== undefined) return problem;
    const folders = [helpers.cwd];
    const end = args.indexOf('--') === -1 ? args.length : args.indexOf('--');
    for (let index = 0; index < end; index++) {
      const arg = args[index] as string;
      const equals = arg.indexOf('=');
      const name = arg.startsWith('--') && equals !== -1 ? arg.slice(0, equals) : arg;
      if (!projectFolderOptions.has(name)) continue;
      const value = name === arg ? args[index + 1] : arg.slice(equals + 1);
      if (value !== undefined) folders.push(path.resolve(helpers.cwd, value));
    }
    for (const cwd of folders) {
      const found = await packageManagerConfigProblem({ root: helpers.root, cwd });
      if (found !== undefined) return found;
    }
    return undefined;
  };
}

/** Rules for what `npx <package>` runs when its binary has no rule of its own. */
export const npxBinaryNames = npxBinaries;

/** Built-in argument rules (a program in the allowlist without a rule only gets the path checks). */
export const builtinProgramRules: Readonly<Record<string, ProgramRule>> = {
  node: nodeRule,
  tsx: tsxRule,
  python3: pythonRule,
  python: pythonRule,
  tsc: tscRule,
  vitest: vitestRule,
  jest: (args, helpers) => applyGrammar(jestGrammar, args, helpers).error,
  eslint: (args, helpers) => applyGrammar(eslintGrammar, args, helpers).error,
  prettier: (args, helpers) => applyGrammar(prettierGrammar, args, helpers).error,
  biome: biomeRule,
  playwright: playwrightRule,
  grep: grepRule,
  rg: ripgrepRule,
  ls: (args, helpers) => applyGrammar(lsGrammar, args, helpers).error,
  cat: (args, helpers) => applyGrammar(catGrammar, args, helpers).error,
  echo: echoRule,
  find: findRule,
  npx: withProjectConfig(npxRule),
  npm: withProjectConfig(npmRule),
  pnpm: withProjectConfig(pnpmRule),
  yarn: withProjectConfig(yarnRule),
  ...syntaxToolRules,
};

export { applyGrammar, checkModuleSpecifier };
