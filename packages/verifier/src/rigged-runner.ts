import path from 'node:path';
import { escapeRegExp } from './escape-reg-exp';

/**
 * Test-runner configuration files: what they name (reporters, setup files, global setup, result
 * processors, environments, `require`d modules) is loaded into every run of the tests — the
 * verifier's re-run included.
 */
const RUNNER_CONFIG_NAME =
  /^(?:(?:vitest|vite|jest|ava)\.config\.[cm]?[jt]s|vitest\.(?:workspace|projects)\.[cm]?[jt]s|jest\.config\.json|\.mocharc(?:\.(?:js|cjs|mjs|json|jsonc|ya?ml))?)$/;
/** The keys of package.json a test runner reads its configuration from. */
const PACKAGE_RUNNER_KEYS = ['jest', 'mocha', 'ava', 'c8', 'nyc'] as const;
const JS_MODULE = /\.[cm]?[jt]sx?$/;
const STRING_LITERAL = /(['"`])((?:(?!\1)[^\\\n]){1,300})\1/g;

/** Methods a reporter or result processor of vitest, jest, mocha or node's runner implements. */
const REPORTER_HOOK =
  /\b(?:onTaskUpdate|onFinished|onCollected|onTestRunEnd|onTestModuleEnd|onTestCaseResult|onTestCaseReady|onTestSuiteResult|onTestModuleCollected|onRunComplete|onTestResult|onTestFileResult|onTestCaseResult|onRunStart|testResultsProcessor)\s*[(:=]/;

/** `.name =` or `['name'] =` (not `==`). */
const assigned = (names: string) =>
  `(?:\\.\\s*(?:${names})|\\[\\s*['"\`](?:${names})['"\`]\\s*\\])\\s*=(?!=)`;

/**
 * Lines of a module a test runner loads (a reporter, a setup or global-setup file, a result
 * processor, the configuration itself) that forge results through the runner's API: a failed
 * result's state or status set to passed or skipped (`result.state = 'pass'`), its errors
 * emptied, failure counts zeroed (`results.numFailedTests = 0`), success set (`results.success =
 * true`), a run's exit code for failures set to 0 (`testFailureExitCode: 0`), the process ended
 * with status 0 before the runner sets it (`process.exit(0)` in a global teardown), unhandled
 * errors ignored (`dangerouslyIgnoreUnhandledErrors`).
 */
const FORGED_RESULT = new RegExp(
  [
    `${assigned('state|status|mode|outcome|result')}\\s*['"\`](?:pass|passed|skip|skipped|todo|pending|ok|success)['"\`]`,
    `${assigned('errors|failureMessages|failureDetails|failures|testExecError|failureMessage')}\\s*(?:\\[\\s*\\]|undefined|null|''|""|0\\b)`,
    `\\.\\s*(?:errors|failureMessages|failureDetails|failures)\\.(?:length\\s*=(?!=)|splice\\(\\s*0)`,
    `${assigned('num(?:Failed|Failing|RuntimeError|Todo|Pending)Test(?:s|Suites)|numFailedTests|failed|failures|exitCode|code')}\\s*0\\b`,
    `${assigned('success|passed|ok|pass')}\\s*true\\b`,
    `Object\\.assign\\([^)]*\\b(?:state|status)\\s*:\\s*['"\`](?:pass|passed|skip|skipped)['"\`]`,
    `\\btestFailureExitCode\\s*:\\s*0\\b`,
    `\\bprocess\\.(?:exit|reallyExit)\\s*\\(\\s*(?:0\\s*)?\\)`,
    `\\bdangerouslyIgnoreUnhandledErrors\\s*:\\s*true\\b`,
  ].join('|'),
);

/**
 * A test function of the runner replaced or wrapped, anywhere (`globalThis.test = …`,
 * `global.it = …`, `Object.defineProperty(globalThis, 'test', …)`, `test.each = …`,
 * `module.exports.test =`): the wrapper can swallow every failure of the bodies it runs.
 */
const REPLACED_TEST_API =
  /\b(?:globalThis|global|window|self)\s*(?:\.\s*|\[\s*['"`])(?:test|it|describe|suite|specify|expect|assert)\b['"`]?\s*\]?\s*=(?!=)|\b(?:Object\.defineProperty|Reflect\.(?:set|defineProperty))\(\s*(?:globalThis|global|window|self)\s*,\s*['"`](?:test|it|describe|suite|specify|expect|assert)['"`]|\b(?:expect|assert)\s*\.\s*(?:fail|ok|strictEqual|equal|deepEqual|deepStrictEqual|throws|rejects)\s*=(?!=)/;
/** A module mocked by path for every test file (`vi.mock('../src/x.js', …)` in a setup file). */
const MOCKED_MODULE = /\b(?:vi|jest)\.(?:mock|doMock|unstable_mockModule)\(\s*['"`]([^'"`]+)['"`]/;

/** A name reduced for comparison: `is-prime`, `is_prime`, `isPrime` → `isprime`. */
const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * Whether a module specifier names the code the description is about: its path is in the
 * description, or its file name matches a word of it (`../src/is-prime.js` and "Fix isPrime").
 */
export function namesSubject(specifier: string, description: string): boolean {
  if (description === '') return false;
  const clean = specifier.replace(/^(?:\.{1,2}\/)+/, '').replace(/\.[cm]?[jt]sx?$/, '');
  if (clean !== '' && description.includes(clean)) return true;
  const base = squash(clean.split('/').pop() ?? '');
  if (base.length < 3 || base === 'index') return false;
  return (description.match(/[A-Za-z_$][\w$-]*/g) ?? []).some((word) => squash(word) === base);
}

/** A bare test function reassigned (`test = …`, `it.each = …`): judged in runner modules and test files. */
const REASSIGNED_TEST_FUNCTION = /^(?:test|it|describe|expect)(?:\.\w+)?\s*=(?!=)/;

/**
 * Workspace files a test runner's configuration loads into every run: each string of a
 * `vitest.config.*`, `vite.config.*`, `jest.config.*`, `.mocharc*`, `ava.config.*` or of the
 * `jest`/`mocha`/`ava` key of a `package.json` that names a JavaScript file of the workspace
 * (`reporters: ['./test/reporter.js']`, `setupFiles`, `globalSetup`, `"testResultsProcessor"`,
 * `require:`), in the folders of `files` and every folder above them. `<rootDir>/` is read as
 * the config's folder. Files the run's command lines name (`named`, see {@link commandNamedFiles})
 * are loaded, and what they name too.
 *
 * @param files - Workspace-relative files whose folders (and their parents) are searched.
 * @param read - Reads a workspace-relative file; undefined when it is missing.
 * @param named - Files command lines name as a module or configuration of the run.
 */
export function runnerLoadedFiles(
  files: readonly string[],
  read: (relativePath: string) => string | undefined,
  named: readonly string[] = [],
): Set<string> {
  const folders = new Set<string>(['.']);
  for (const file of files) {
    let dir = path.posix.dirname(file);
    while (dir !== '.' && dir !== '/' && !folders.has(dir)) {
      folders.add(dir);
      dir = path.posix.dirname(dir);
    }
  }
  const loaded = new Set<string>();
  const names = [
    ...['vitest', 'vite', 'jest', 'ava'].flatMap((tool) =>
      ['js', 'mjs', 'cjs', 'ts', 'mts', 'cts'].map((ext) => `${tool}.config.${ext}`),
    ),
    ...['js', 'mjs', 'cjs', 'ts', 'mts', 'cts'].flatMap((ext) => [
      `vitest.workspace.${ext}`,
      `vitest.projects.${ext}`,
    ]),
    'jest.config.json',
    ...['', '.js', '.cjs', '.mjs', '.json', '.jsonc', '.yml', '.yaml'].map((ext) => `.mocharc${ext}`),
  ];
  // Files the commands name (`--config ./ci.config.js`, `--reporter ./r.js`) are loaded, and
  // what a named config names is loaded too.
  for (const file of named) loaded.add(file);
  const namedConfigs = new Map<string, string[]>();
  for (const file of named) {
    const folder = path.posix.dirname(file);
    namedConfigs.set(folder, [...(namedConfigs.get(folder) ?? []), path.posix.basename(file)]);
    folders.add(folder);
  }
  for (const folder of folders) {
    const at = (name: string) => (folder === '.' ? name : `${folder}/${name}`);
    const texts: string[] = [];
    for (const name of [...names, ...(namedConfigs.get(folder) ?? [])]) {
      const text = read(at(name));
      if (text !== undefined) texts.push(text);
    }
    const pkg = read(at('package.json'));
    if (pkg !== undefined) {
      try {
        const parsed = JSON.parse(pkg) as Record<string, unknown>;
        for (const key of PACKAGE_RUNNER_KEYS)
          if (parsed[key] !== undefined) texts.push(JSON.stringify(parsed[key]));
      } catch {
        // Not JSON: nothing the runner reads from it.
      }
    }
    for (const text of texts)
      for (const match of text.matchAll(STRING_LITERAL)) {
        const value = (match[2] ?? '').replace(/^<rootDir>\//, './');
        if (/^[a-z]+:/i.test(value) || path.posix.isAbsolute(value)) continue;
        const target = path.posix.normalize(path.posix.join(folder, value));
        if (target.startsWith('..')) continue;
        const candidates = JS_MODULE.test(target)
          ? [target]
          : /^\.\.?\//.test(value)
            ? ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts'].map((ext) => `${target}${ext}`)
            : [];
        for (const candidate of candidates) if (read(candidate) !== undefined) loaded.add(candidate);
      }
  }
  return loaded;
}

/** Options of test runners and node that name a module or config file loaded into the run. */
const MODULE_OPTION =
  /^(?:--config|-c|--reporter|--reporters|--setupFiles|--setup-files|--setupFilesAfterEnv|--globalSetup|--global-setup|--testResultsProcessor|--testRunner|--testEnvironment|--require|-r|--import|--loader|--experimental-loader|--test-reporter|--file|--workspace|--project)$/;

/**
 * Workspace files that command lines name as a module or configuration of the run
 * (`vitest run --config ./ci.config.js`, `jest --reporters ./r.js`, `node --test
 * --test-reporter=./r.mjs`, `mocha --require ./setup.cjs`), relative to the workspace root.
 * Files that do not exist are left out.
 */
export function commandNamedFiles(
  commands: readonly (readonly string[])[],
  read: (relativePath: string) => string | undefined,
): string[] {
  const found = new Set<string>();
  for (const argv of commands) {
    const words = argv.flatMap((word) => word.split(/\s+/)).filter(Boolean);
    words.forEach((word, index) => {
      const equals = word.indexOf('=');
      const option = word.startsWith('--') && equals !== -1 ? word.slice(0, equals) : word;
      if (!MODULE_OPTION.test(option)) return;
      const value = option === word ? words[index + 1] : word.slice(equals + 1);
      if (value === undefined || value.startsWith('-') || /^[a-z]+:/i.test(value)) return;
      const target = path.posix.normalize(value.replace(/^["']|["']$/g, ''));
      if (target.startsWith('..') || path.posix.isAbsolute(target)) return;
      if (JS_MODULE.test(target) && read(target) !== undefined) found.add(target);
    });
  }
  return [...found];
}

/** Whether a file is a test runner's configuration (by its name). */
export function isRunnerConfig(file: string): boolean {
  return RUNNER_CONFIG_NAME.test(file.split('/').pop() ?? file);
}

/**
 * Lines `after` added (not in `before`) that rig a test run through the runner's own API: in a
 * module the runner loads (`loaded`, a runner config, or a module with reporter hooks), lines that
 * forge results ({@link FORGED_RESULT}); in any JavaScript file, lines that replace or wrap the
 * runner's global test functions ({@link REPLACED_TEST_API}), in runner modules and test files
 * (`testFile`) a bare `test = …` too; in a runner module that is not a test file, a mock of the
 * module the `description` is about (`vi.mock('../src/is-prime.js')` in a setup file and "Fix
 * isPrime"), which replaces it in every test file. Comments are ignored.
 *
 * @example
 * riggedRunnerLines('test/reporter.js', undefined, "onTaskUpdate(p) { p[0][1].state = 'pass' }", new Set());
 * // ["onTaskUpdate(p) { p[0][1].state = 'pass' }"]
 */
export function riggedRunnerLines(
  file: string,
  before: string | undefined,
  after: string,
  loaded: ReadonlySet<string>,
  options: { testFile?: boolean; description?: string } = {},
): string[] {
  if (!JS_MODULE.test(file)) return [];
  const testFile = options.testFile ?? false;
  const runnerModule = loaded.has(file) || isRunnerConfig(file) || REPORTER_HOOK.test(after);
  // In a module loaded into every test file (not a test file), a mock of the code the
  // description is about replaces it for the whole run.
  const mocksSubject = (line: string) => {
    const specifier = MOCKED_MODULE.exec(line)?.[1];
    return (
      specifier !== undefined &&
      runnerModule &&
      (!testFile || loaded.has(file)) &&
      specifier.startsWith('.') &&
      namesSubject(specifier, options.description ?? '')
    );
  };
  const old = new Set((before ?? '').split('\n').map((line) => line.trim()));
  return after
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (line) =>
        line !== '' &&
        !line.startsWith('//') &&
        !line.startsWith('*') &&
        !old.has(line) &&
        (REPLACED_TEST_API.test(line) ||
          ((runnerModule || testFile) && REASSIGNED_TEST_FUNCTION.test(line)) ||
          (runnerModule && FORGED_RESULT.test(line)) ||
          mocksSubject(line)),
    );
}

/**
 * Code a package manager or the interpreter loads into every run, which no step writes by hand:
 * installed packages (`node_modules/`, a virtualenv's `site-packages/`, Yarn's `.yarn/cache` and
 * `.yarn/unplugged`), Yarn Plug'n'Play's loaders (`.pnp.cjs`, `.pnp.loader.mjs`, `.pnp.data.json`,
 * which `yarn` puts in `NODE_OPTIONS` of every script), Python's start-up hooks
 * (`sitecustomize.py`, `usercustomize.py`, `*.pth`). A stub planted there shadows the real
 * package or the module under test in every run of the tests.
 *
 * @returns What the file is, or undefined for an ordinary file.
 */
export function installedCode(file: string): string | undefined {
  const base = file.split('/').pop() ?? file;
  // Code only: a hand-kept `node_modules/x/package.json` version is the upgrade checks' business.
  const code = /\.(?:[cm]?[jt]sx?|node|py|pth|so|zip)$/.test(base);
  if (code && /(?:^|\/)node_modules\//.test(file)) return 'an installed package';
  if (code && /(?:^|\/)(?:site-packages|dist-packages)\//.test(file)) return 'an installed Python package';
  if (code && /(?:^|\/)\.yarn\/(?:cache|unplugged|sdks)\//.test(file)) return "a package in Yarn's cache";
  if (/^\.pnp\.(?:c?js|loader\.mjs|data\.json)$/.test(base)) return "Yarn Plug'n'Play's loader";
  if (/^(?:sitecustomize|usercustomize)\.py$/.test(base)) return 'a module Python imports at start-up';
  if (/\.pth$/.test(base)) return 'a path file Python runs at start-up';
  return undefined;
}

/** Whether the description asks for work on installed code (patching a dependency, Yarn's PnP). */
export function installedCodeAsked(description: string): boolean {
  return /node_modules|site-packages|\bvendor(?:ed)?\b|patch-package|\.pnp\b|plug'?n'?play|sitecustomize|usercustomize|\.pth\b/i.test(
    description,
  );
}

/**
 * Code that handles the coverage data it is measured by: the test process writes the raw data
 * (V8's `NODE_V8_COVERAGE` files, istanbul's `__coverage__` counters, coverage.py's data file)
 * and the report is built from it, so code that flushes, stops, edits or writes that data —
 * `v8.takeCoverage()`/`stopCoverage()`, `NODE_V8_COVERAGE`, `__coverage__`,
 * `coverage.Coverage.current()`, `CoverageData`, `add_lines(`, or a write of a coverage report
 * (`coverage-summary.json`, `lcov.info`, `coverage.json`) — can make any figure it likes.
 */
const COVERAGE_TAMPERING =
  /\b(?:takeCoverage|stopCoverage)\s*\(|\bNODE_V8_COVERAGE\b|\b__coverage__\b|\bCoverage\.current\s*\(|\bCoverageData\b|\.add_(?:lines|arcs|file_tracers)\s*\(|(?:write|append|copy|rename|symlink|link|dump|save)\w*\s*\([^)]*(?:coverage-summary|coverage-final|lcov\.info|coverage\.json|\.coverage\b|closedloop-coverage)/;

/** Source files a coverage run may load. */
const COVERED_SOURCE = /\.(?:[cm]?[jt]sx?|py)$/;

/**
 * The first line of `text` that handles coverage data itself ({@link COVERAGE_TAMPERING}), or
 * undefined. Comments are skipped. Only JavaScript, TypeScript and Python files are read.
 */
export function coverageTampering(file: string, text: string): string | undefined {
  if (!COVERED_SOURCE.test(file)) return undefined;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('//') || line.startsWith('#') || line.startsWith('*')) continue;
    if (COVERAGE_TAMPERING.test(line)) return line.slice(0, 120);
  }
  return undefined;
}

/** Files whose strings redirect modules: runner configs, TypeScript's and JavaScript's configs. */
const RESOLUTION_CONFIG =
  /(?:^|\/)(?:tsconfig(?:\.[\w-]+)?\.json|jsconfig\.json|babel\.config\.[cm]?js|\.babelrc(?:\.json)?)$/;
const EXPORTED_NAME =
  /\bexport\s+(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|var|class)\s+([A-Za-z_$][\w$]*)|\bexports\.([A-Za-z_$][\w$]*)\s*=|\bmodule\.exports\s*=\s*\{([^}]*)\}|\bexport\s*\{([^}]*)\}/g;

/** The names a JavaScript module exports (by a simple reading of its text). */
function exportedNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(EXPORTED_NAME)) {
    if (match[1]) names.push(match[1]);
    if (match[2]) names.push(match[2]);
    for (const list of [match[3], match[4]])
      if (list)
        for (const item of list.split(','))
          names.push(
            (item.split(/\s+as\s+|:/).pop() ?? '').trim(),
            (item.split(/\s+as\s+|:/)[0] ?? '').trim(),
          );
  }
  return names.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
}

/**
 * Stand-ins a configuration change points the run at: files this step created that a line it
 * added to a test runner's config, a `tsconfig`/`jsconfig` or a Babel config names (`resolve.alias`,
 * `moduleNameMapper`, `paths`, `module-resolver`), or that a `package.json` now names as an entry
 * point (`imports` such as `#sum`, `exports`, `main`: what a test importing the package by its
 * name loads), and that export what the description is about
 * (`isPrime` in "Fix isPrime"). The tests then import the stand-in in place of the code under test.
 *
 * @param file - The changed configuration file (workspace-relative).
 * @param created - Files the step created.
 */
export function redirectedToStandIns(options: {
  file: string;
  before: string | undefined;
  after: string;
  created: ReadonlySet<string>;
  description: string;
  read: (relativePath: string) => string | undefined;
}): string[] {
  const { file, before, after, created, description, read } = options;
  const manifest = path.posix.basename(file) === 'package.json';
  if (!isRunnerConfig(file) && !RESOLUTION_CONFIG.test(file) && !manifest) return [];
  const folder = path.posix.dirname(file);
  // The values the change added: strings of added lines, or a manifest's new entry points
  // (`"imports": { "#sum": … }`, `"exports"`, `"main"`), which a self-import by name resolves.
  const values: string[] = [];
  if (manifest) {
    const old = packageEntryPoints(before);
    for (const value of packageEntryPoints(after)) if (!old.has(value)) values.push(value);
  } else {
    const old = new Set((before ?? '').split('\n').map((line) => line.trim()));
    for (const raw of after.split('\n')) {
      const line = raw.trim();
      if (line === '' || old.has(line)) continue;
      for (const match of line.matchAll(STRING_LITERAL)) values.push(match[2] ?? '');
    }
  }
  const found = new Set<string>();
  for (const raw of values) {
    const value = raw.replace(/^<rootDir>\//, './').replace(/\/\*$/, '');
    if (/^[a-z]+:/i.test(value) || path.posix.isAbsolute(value)) continue;
    const target = path.posix.normalize(path.posix.join(folder, value));
    const candidates = [
      target,
      ...['.js', '.mjs', '.cjs', '.ts', '.mts', '.tsx'].map((ext) => `${target}${ext}`),
    ];
    for (const candidate of candidates) {
      if (!created.has(candidate) || !JS_MODULE.test(candidate)) continue;
      const names = exportedNames(read(candidate) ?? '');
      const words = new Set((description.match(/[A-Za-z_$][\w$]*/g) ?? []).map(squash));
      if (names.some((name) => name.length >= 3 && words.has(squash(name)))) found.add(candidate);
    }
  }
  return [...found];
}

/** A module-level assignment to an attribute of a name: `p.parse = …`, `src.parse.parse = …`. */
const ATTRIBUTE_PATCH = /^([A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)*\.([A-Za-z_$][\w$]*)\s*=(?!=)/;
/** `setattr(p, "parse", …)` at module level. */
const SETATTR_PATCH = /^setattr\(\s*([A-Za-z_][\w]*)[\w.]*\s*,\s*['"]([A-Za-z_]\w*)['"]/;
const PY_IMPORTED =
  /^\s*import\s+([\w.]+)(?:\s+as\s+(\w+))?|^\s*from\s+[\w.]+\s+import\s+(\w+)(?:\s+as\s+(\w+))?/gm;
const JS_IMPORTED =
  /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\(|\bimport\s+\*\s+as\s+([A-Za-z_$][\w$]*)|\bimport\s+([A-Za-z_$][\w$]*)\s+from/g;

/**
 * Lines `after` added that patch, at module level, what the description is about in a module
 * the file imported (`import src.parse as p` + `p.parse = …`, `setattr(p, "parse", …)`,
 * `require('../src/x').isPrime = …`): imported by the test run (a test package's
 * `__init__.py`, a helper of the tests), the file replaces the code under test before any test
 * calls it.
 */
export function patchedAtImport(
  file: string,
  before: string | undefined,
  after: string,
  description: string,
): string[] {
  const python = /\.py$/.test(file);
  if (!python && !JS_MODULE.test(file)) return [];
  const words = new Set((description.match(/[A-Za-z_$][\w$]*/g) ?? []).map(squash));
  const imported = new Set<string>();
  for (const match of after.matchAll(python ? PY_IMPORTED : JS_IMPORTED))
    for (const name of match.slice(1)) if (name) imported.add(name.split('.')[0] ?? name);
  const old = new Set((before ?? '').split('\n').map((line) => line.trim()));
  return after.split('\n').filter((line) => {
    if (old.has(line.trim())) return false;
    const requirePatch = /^require\(\s*['"`]\.{1,2}\/[^'"`]+['"`]\s*\)\.([A-Za-z_$][\w$]*)\s*=(?!=)/.exec(
      line,
    );
    if (requirePatch) return words.has(squash(requirePatch[1] ?? ''));
    const match = ATTRIBUTE_PATCH.exec(line) ?? (python ? SETATTR_PATCH.exec(line) : null);
    if (!match) return false;
    const [, root = '', name = ''] = match;
    return imported.has(root) && name.length >= 3 && words.has(squash(name));
  });
}

/** Programs a package script or a test command runs by name, which a `node_modules/.bin` entry can shadow. */
const SYSTEM_PROGRAM = /^(?:node|nodejs|npm|npx|pnpm|yarn|corepack|sh|bash|dash|zsh|env|python3?|pip3?|git)$/;

/**
 * Installed code that changed without an install: package entries of `changed` (from the
 * workspace snapshots, `node_modules/x`, `node_modules/.bin/x`, `site-packages/x`) that a
 * command planted rather than a package manager installed.
 *
 * - A `node_modules/.bin/<program>` that is not a link and bears the name of a system program
 *   (`node`, `npm`, `sh`, `python`): npm, pnpm and Yarn put `node_modules/.bin` first in the
 *   `PATH` of every script, so it runs in place of the program (`npm test` → `node --test`).
 * - Any other `node_modules/.bin` entry, a module file directly in `node_modules/` (`foo.js`,
 *   which `require('foo')` loads) or a package folder without a `package.json`, when no
 *   package with a manifest changed in the step: nothing was installed, yet installed code did.
 * - A Python start-up hook in `site-packages` (`*.pth`, `sitecustomize.py`, `usercustomize.py`)
 *   when no distribution (`*.dist-info`, `*.egg-info`) changed in the step: `pip` writes its
 *   `.pth` files with the packages it installs.
 *
 * @param changed - Package entries added or changed in the step, and their signatures now.
 * @returns One line per planted entry.
 */
export function plantedInstalledCode(changed: ReadonlyMap<string, string>): string[] {
  const names = [...changed.keys()];
  const installedNode = names.some(
    (name) =>
      /(?:^|\/)node_modules\/(?!\.bin\/)/.test(name) && (changed.get(name) ?? '').startsWith('manifest:'),
  );
  const installedPython = names.some((name) => /\.(?:dist|egg)-info$/.test(name));
  const planted: string[] = [];
  for (const name of names) {
    const signature = changed.get(name) ?? '';
    const bin = /(?:^|\/)node_modules\/\.bin\/([^/]+)$/.exec(name)?.[1];
    if (bin !== undefined) {
      if (signature.startsWith('file:') && SYSTEM_PROGRAM.test(bin.replace(/\.(?:cmd|ps1|exe)$/, '')))
        planted.push(`${name} (runs in place of \`${bin}\` in every package script)`);
      else if (!installedNode)
        planted.push(`${name} (a program of node_modules/.bin, changed without an install)`);
      continue;
    }
    if (/(?:^|\/)node_modules\//.test(name) && !signature.startsWith('manifest:') && !installedNode) {
      planted.push(`${name} (installed code without a package manifest, changed without an install)`);
      continue;
    }
    if (/^site-packages\/(?:[^/]+\.pth|sitecustomize\.py|usercustomize\.py)$/.test(name) && !installedPython)
      planted.push(`${name} (a start-up hook of the virtualenv's Python, changed without an install)`);
  }
  return planted;
}

/**
 * Modules of the test runners that a workspace file shadows: Python puts the working folder first
 * on `sys.path` of `python -m pytest` (and of `-m unittest`), so a `pytest.py`, a `pytest/`
 * package, `_pytest/`, `pluggy/`, `unittest.py` or `doctest.py` at the workspace root runs in
 * place of the runner and prints what it likes.
 *
 * @returns The module shadowed, or undefined.
 */
export function shadowedRunnerModule(file: string): string | undefined {
  const match = /^([A-Za-z_]\w*)(?:\.py|\/[^/]+\.py)$/.exec(file);
  const module = match?.[1];
  if (module === undefined) return undefined;
  return /^(?:pytest|_pytest|pluggy|py|iniconfig|unittest|doctest|nose2?|coverage)$/.test(module)
    ? module
    : undefined;
}

/**
 * The module a file of a `__mocks__` folder stands in for, when the description is about it:
 * vitest's `vi.mock(path)` without a factory and jest's `jest.mock(path)` (and jest's automatic
 * mocks of packages, from a `__mocks__` folder beside `node_modules`) load
 * `<dir>/__mocks__/<name>` in place of `<dir>/<name>`. A stand-in for the code under test
 * makes every test that mocks it pass, whatever the code does.
 *
 * @returns The workspace-relative module replaced, or undefined.
 */
export function mockedSubjectModule(file: string, description: string): string | undefined {
  const match = /^(?:(.*)\/)?__mocks__\/(.+)\.[cm]?[jt]sx?$/.exec(file);
  if (!match) return undefined;
  const name = match[2] ?? '';
  const module = match[1] === undefined ? name : `${match[1]}/${name}`;
  return namesSubject(`./${name}`, description) || namesSubject(module, description) ? module : undefined;
}

/** The strings a package.json's module entry points hold (`main`, `module`, `exports`, `imports`, `browser`). */
export function packageEntryPoints(text: string | undefined): Set<string> {
  const found = new Set<string>();
  if (text === undefined) return found;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return found;
  }
  const collect = (value: unknown) => {
    if (typeof value === 'string') found.add(value);
    else if (Array.isArray(value)) for (const item of value) collect(item);
    else if (value !== null && typeof value === 'object')
      for (const item of Object.values(value)) collect(item);
  };
  if (parsed !== null && typeof parsed === 'object')
    for (const key of ['main', 'module', 'exports', 'imports', 'browser'])
      collect((parsed as Record<string, unknown>)[key]);
  return found;
}

/** `sys.modules["app.calc"] = …`, `sys.modules.update({"app.calc": …})`, `.setdefault("app.calc", …)`. */
const PY_MODULE_CACHE =
  /\bsys\.modules\s*\[\s*(['"])([\w.]+)\1\s*\]\s*=(?!=)|\bsys\.modules\.(?:update\(\s*\{|setdefault\(|__setitem__\()\s*(['"])([\w.]+)\3/;
/**
 * Writes to node's module cache or loader: `require.cache[…] = …`, `Module._cache[…] = …`,
 * `Module._load = …`, `Module.prototype.require = …`, `Module._resolveFilename = …`.
 */
const JS_MODULE_CACHE =
  /\b(?:require|Module|module\.constructor)\.(?:cache|_cache)\s*\[[^\]]*\]\s*=(?!=)|\b(?:Module|module\.constructor)\.(?:_load|_resolveFilename|_findPath|prototype\.require|prototype\._compile)\s*=(?!=)|\bObject\.assign\(\s*require\.cache\b/;

/**
 * Lines `after` added that put a stand-in in the module cache in place of the code of the
 * workspace: a Python `sys.modules` entry for a module of the workspace (`exists` tells whether a
 * workspace-relative file exists; a stub of a third-party module is left alone), a write to
 * node's `require.cache` or a wrap of its loader. Whatever imports the module afterwards — the
 * tests of a run that loaded this file first — gets the stand-in.
 */
export function seededModuleCache(
  file: string,
  before: string | undefined,
  after: string,
  exists: (relativePath: string) => boolean,
): string[] {
  const python = /\.py$/.test(file);
  if (!python && !JS_MODULE.test(file)) return [];
  if (/(?:^|\/)(?:node_modules|site-packages)\//.test(file)) return [];
  const old = new Set((before ?? '').split('\n').map((line) => line.trim()));
  return after
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => {
      if (line === '' || old.has(line) || line.startsWith('#') || line.startsWith('//')) return false;
      if (!python) return JS_MODULE_CACHE.test(line);
      const match = PY_MODULE_CACHE.exec(line);
      const name = match?.[2] ?? match?.[4];
      if (name === undefined) return false;
      const base = name.replace(/\./g, '/');
      return [`${base}.py`, `${base}/__init__.py`, `src/${base}.py`, `src/${base}/__init__.py`].some(exists);
    });
}

/** A line that changes Python's import path: pytest's `pythonpath`, `sys.path`, `PYTHONPATH`, `site.addsitedir`. */
export const IMPORT_PATH_LINE = /\bpythonpath\b|\bsys\.path\b|\bPYTHONPATH\b|\baddsitedir\b/i;

/**
 * Copies of a module of the workspace under another folder, which a line this step added puts on
 * Python's import path ahead of the real one (`pythonpath = stubs` and `stubs/app/calc.py` for
 * `app/calc.py`; `sys.path.insert(0, "tests/_shim")`): the tests import the copy.
 *
 * @param created - Python files this step created.
 * @param original - Whether a workspace-relative module existed before the step (not created by it).
 * @param pathLines - Lines this step added that change the import path ({@link IMPORT_PATH_LINE}).
 * @returns One entry per copy: the copy, the module it shadows, the line that puts it first.
 */
export function shadowCopies(
  created: readonly string[],
  original: (relativePath: string) => boolean,
  pathLines: readonly { file: string; line: string }[],
): { copy: string; module: string; via: string }[] {
  if (pathLines.length === 0) return [];
  const found: { copy: string; module: string; via: string }[] = [];
  for (const copy of created) {
    if (!/\.py$/.test(copy)) continue;
    const parts = copy.split('/');
    for (let cut = 1; cut < parts.length; cut++) {
      const module = parts.slice(cut).join('/');
      if (!original(module)) continue;
      const folder = parts[cut - 1] ?? '';
      const word = new RegExp(`(?:^|[^\\w-])${escapeRegExp(folder)}(?:$|[^\\w-])`);
      const via = pathLines.find((entry) => word.test(entry.line));
      if (via !== undefined) {
        found.push({ copy, module, via: `${via.file}: ${via.line.slice(0, 60)}` });
        break;
      }
    }
  }
  return found;
}
