import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { readInside, realRootOf } from './workspace-facts';

/** A command the workspace's tooling provides, and where it came from. */
export interface ToolingCommand {
  /** Argv, run without a shell. */
  argv: string[];
  /** Why this command (`package.json scripts.test`, `tsconfig.json`…). */
  source: string;
}

/** Test runners `detectTooling` recognises. `script` = a test script of an unknown runner. */
export type TestRunner = 'vitest' | 'jest' | 'node' | 'pytest' | 'mocha' | 'script';

/** What a workspace has for building, checking and testing. */
export interface Tooling {
  root: string;
  /** From the lockfile; `npm` when there is a package.json and no lockfile. */
  packageManager?: 'npm' | 'pnpm' | 'yarn' | 'bun';
  /** package.json scripts. */
  scripts: Record<string, string>;
  /** Has a tsconfig.json. */
  typescript: boolean;
  linter?: 'biome' | 'eslint' | 'script';
  testRunner?: TestRunner;
  /** Test files were found (even if no runner can run them). */
  hasTests: boolean;
  commands: {
    build?: ToolingCommand;
    typecheck?: ToolingCommand;
    lint?: ToolingCommand;
    test?: ToolingCommand;
    integration?: ToolingCommand;
    e2e?: ToolingCommand;
  };
}

const NPM_PLACEHOLDER_TEST = /no test specified/;
const SKIP_DIRS = new Set([
  'node_modules',
  '.git',
  'dist',
  'build',
  'coverage',
  '.venv',
  'venv',
  '__pycache__',
  '.turbo',
]);
const TEST_FILE = /(?:\.(?:test|spec)\.[cm]?[jt]sx?$)|(?:^test_.*\.py$)|(?:_test\.py$)/;
const NODE_TEST_FILE = /(?:[.\-_]test\.[cm]?js$)|(?:^test-.*\.[cm]?js$)|(?:^test\.[cm]?js$)/;

/** Manifests and configuration files are small; a lockfile is not read here. */
const CONFIG_MAX_BYTES = 4 * 1024 * 1024;

/** A file of the workspace, not through a link out of it and never blocking on a FIFO. */
function readText(realRoot: string, file: string): string | undefined {
  return readInside(realRoot, file, CONFIG_MAX_BYTES);
}

function readJson(realRoot: string, file: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readText(realRoot, file) ?? 'null');
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function stringRecord(value: unknown): Record<string, string> {
  const result: Record<string, string> = {};
  if (typeof value !== 'object' || value === null) return result;
  for (const [key, entry] of Object.entries(value)) if (typeof entry === 'string') result[key] = entry;
  return result;
}

interface TestFiles {
  any: boolean;
  /** Files `node --test` finds by default (`*.test.js`, `test/**\/*.js`…). */
  nodeRunnable: boolean;
  python: boolean;
}

async function findTestFiles(root: string): Promise<TestFiles> {
  const found: TestFiles = { any: false, nodeRunnable: false, python: false };
  let budget = 3000;
  const walk = async (dir: string, depth: number, inTestDir: boolean): Promise<void> => {
    if (depth > 5 || budget <= 0) return;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      budget -= 1;
      if (budget <= 0) return;
      if (entry.isDirectory()) {
        if (SKIP_DIRS.has(entry.name) || entry.name.startsWith('.')) continue;
        const testDir =
          inTestDir || entry.name === 'test' || entry.name === 'tests' || entry.name === '__tests__';
        await walk(path.join(dir, entry.name), depth + 1, testDir);
      } else if (entry.isFile()) {
        const isJs = /\.[cm]?js$/.test(entry.name);
        if (TEST_FILE.test(entry.name) || (inTestDir && (isJs || /\.[cm]?ts$/.test(entry.name))))
          found.any = true;
        if (isJs && (NODE_TEST_FILE.test(entry.name) || inTestDir)) found.nodeRunnable = true;
        if (/^test_.*\.py$|_test\.py$/.test(entry.name)) found.python = true;
      }
    }
  };
  await walk(root, 0, false);
  return found;
}

/** `node_modules/.bin/<bin>` in the root or an ancestor (hoisted monorepo installs). */
function localBin(root: string, bin: string): string | undefined {
  let dir = root;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', '.bin', bin);
    if (existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/**
 * A tool's command: its bare name when the workspace has it in `node_modules/.bin` (the command
 * runner looks there first), else `npx --no-install --offline`, which never installs and never
 * asks the registry (in a sandbox without network, a bare `npx --no-install` waits about a minute
 * on the registry before it gives up). Program paths are never used: the command policy runs bare
 * names only.
 */
export function binCommand(root: string, bin: string, args: string[]): string[] {
  const local = localBin(root, bin);
  return local !== undefined && path.dirname(path.dirname(path.dirname(local))) === root
    ? [bin, ...args]
    : ['npx', '--no-install', '--offline', bin, ...args];
}

function runnerOf(script: string): TestRunner {
  if (/\bvitest\b/.test(script)) return 'vitest';
  if (/\bjest\b/.test(script)) return 'jest';
  if (/\bnode\b[^&|;]*--test\b/.test(script)) return 'node';
  if (/\bpytest\b/.test(script)) return 'pytest';
  if (/\bmocha\b/.test(script)) return 'mocha';
  return 'script';
}

function firstExisting(root: string, names: readonly string[]): string | undefined {
  return names.find((name) => existsSync(path.join(root, name)));
}

/**
 * Detects a workspace's build, typecheck, lint and test commands:
 * package.json scripts (`build`, `typecheck`, `lint`, `test`, `test:integration`, `test:e2e`)
 * first; then `tsconfig.json` → `tsc --noEmit`; biome / eslint config → their CLI; vitest / jest
 * config or dependency → their CLI; `*.test.js|mjs|cjs` files with no runner → `node --test`;
 * `pytest.ini`, `conftest.py`, or a pyproject/setup.cfg mentioning pytest → `python3 -m pytest`.
 * Local binaries (`node_modules/.bin` in the root or an ancestor) are preferred, else
 * `npx --no-install --offline` (never installs, never asks the registry).
 *
 * @example
 * const tooling = await detectTooling('/path/to/repo');
 * tooling.commands.test?.argv; // ['npm', 'run', 'test']
 */
export async function detectTooling(root: string): Promise<Tooling> {
  const realRoot = realRootOf(root);
  const packageJson = readJson(realRoot, path.join(root, 'package.json'));
  const scripts = stringRecord(packageJson?.scripts);
  const dependencies = {
    ...stringRecord(packageJson?.dependencies),
    ...stringRecord(packageJson?.devDependencies),
  };
  const tooling: Tooling = { root, scripts, typescript: false, hasTests: false, commands: {} };

  if (packageJson) {
    if (existsSync(path.join(root, 'pnpm-lock.yaml'))) tooling.packageManager = 'pnpm';
    else if (existsSync(path.join(root, 'yarn.lock'))) tooling.packageManager = 'yarn';
    else if (existsSync(path.join(root, 'bun.lockb')) || existsSync(path.join(root, 'bun.lock')))
      tooling.packageManager = 'bun';
    else tooling.packageManager = 'npm';
  }
  const pm = tooling.packageManager ?? 'npm';
  const script = (name: string): ToolingCommand => ({
    argv: [pm, 'run', name],
    source: `package.json scripts.${name}`,
  });
  const pickScript = (names: readonly string[]): ToolingCommand | undefined => {
    const name = names.find(
      (candidate) => scripts[candidate] !== undefined && scripts[candidate].trim() !== '',
    );
    return name === undefined ? undefined : script(name);
  };

  // Build.
  tooling.commands.build = pickScript(['build']);

  // Typecheck.
  tooling.typescript = existsSync(path.join(root, 'tsconfig.json'));
  tooling.commands.typecheck =
    pickScript(['typecheck', 'type-check', 'check-types', 'tsc']) ??
    (tooling.typescript
      ? { argv: binCommand(root, 'tsc', ['--noEmit']), source: 'tsconfig.json' }
      : undefined);

  // Lint.
  const lintScript = pickScript(['lint']);
  const biomeConfig = firstExisting(root, ['biome.json', 'biome.jsonc']);
  const eslintConfig = firstExisting(root, [
    'eslint.config.js',
    'eslint.config.mjs',
    'eslint.config.cjs',
    'eslint.config.ts',
    '.eslintrc',
    '.eslintrc.js',
    '.eslintrc.cjs',
    '.eslintrc.json',
    '.eslintrc.yml',
    '.eslintrc.yaml',
  ]);
  if (lintScript) {
    tooling.linter = 'script';
    tooling.commands.lint = lintScript;
  } else if (biomeConfig) {
    tooling.linter = 'biome';
    tooling.commands.lint = { argv: binCommand(root, 'biome', ['check', '.']), source: biomeConfig };
  } else if (eslintConfig) {
    tooling.linter = 'eslint';
    tooling.commands.lint = {
      argv: binCommand(root, 'eslint', ['.', '--max-warnings', '0']),
      source: eslintConfig,
    };
  }

  // Tests.
  const testFiles = await findTestFiles(root);
  const testScript = scripts.test;
  const vitestConfig = firstExisting(root, [
    'vitest.config.ts',
    'vitest.config.mts',
    'vitest.config.js',
    'vitest.config.mjs',
    'vitest.workspace.ts',
  ]);
  const jestConfig = firstExisting(root, [
    'jest.config.js',
    'jest.config.ts',
    'jest.config.mjs',
    'jest.config.cjs',
  ]);
  const pyproject = readText(realRoot, path.join(root, 'pyproject.toml'));
  const setupCfg = readText(realRoot, path.join(root, 'setup.cfg'));
  const pytestMarker =
    firstExisting(root, ['pytest.ini', 'conftest.py']) ??
    (pyproject !== undefined && /pytest/.test(pyproject) ? 'pyproject.toml' : undefined) ??
    (setupCfg !== undefined && /\[tool:pytest\]/.test(setupCfg) ? 'setup.cfg' : undefined);

  if (testScript !== undefined && testScript.trim() !== '' && !NPM_PLACEHOLDER_TEST.test(testScript)) {
    tooling.testRunner = runnerOf(testScript);
    tooling.commands.test = script('test');
  } else if (vitestConfig || dependencies.vitest !== undefined) {
    tooling.testRunner = 'vitest';
    tooling.commands.test = {
      argv: binCommand(root, 'vitest', ['run']),
      source: vitestConfig ?? 'package.json',
    };
  } else if (jestConfig || dependencies.jest !== undefined) {
    tooling.testRunner = 'jest';
    tooling.commands.test = {
      argv: binCommand(root, 'jest', ['--ci']),
      source: jestConfig ?? 'package.json',
    };
  } else if (testFiles.nodeRunnable) {
    tooling.testRunner = 'node';
    tooling.commands.test = { argv: ['node', '--test'], source: 'test files (*.test.js) without a runner' };
  } else if (pytestMarker || testFiles.python) {
    tooling.testRunner = 'pytest';
    tooling.commands.test = { argv: ['python3', '-m', 'pytest'], source: pytestMarker ?? 'test_*.py files' };
  }
  tooling.hasTests = testFiles.any || testFiles.python || tooling.commands.test !== undefined;

  tooling.commands.integration = pickScript(['test:integration', 'test:int', 'integration']);
  const playwrightConfig = firstExisting(root, ['playwright.config.ts', 'playwright.config.js']);
  tooling.commands.e2e =
    pickScript(['test:e2e', 'e2e']) ??
    (playwrightConfig
      ? { argv: binCommand(root, 'playwright', ['test']), source: playwrightConfig }
      : undefined);

  for (const key of Object.keys(tooling.commands) as (keyof Tooling['commands'])[]) {
    if (tooling.commands[key] === undefined) delete tooling.commands[key];
  }
  return tooling;
}
