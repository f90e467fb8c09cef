import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { inspectInside } from './inspect-inside';

/** The most a package manager's configuration file is read. */
const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Node options a project configuration may set for every process its package manager starts:
 * memory and stack sizes, warnings, module-system switches. Everything else is refused — above
 * all what loads code before the program (`--require`, `--import`, `--loader`, an env file that
 * sets `NODE_OPTIONS`, a test reporter or global setup module): a hook like that rewrites what a
 * test run prints and how it exits, in the step's command and in the verifier's re-run alike.
 */
const harmlessNodeOption =
  /^--(?:max-old-space-size|max-semi-space-size|stack-size|heapsnapshot-near-heap-limit|max-http-header-size)=\d+$|^--(?:no-)?(?:warnings|deprecation|experimental-vm-modules|enable-source-maps|experimental-strip-types|experimental-transform-types|experimental-detect-module|experimental-require-module|experimental-global-webcrypto|trace-warnings|trace-deprecation|throw-deprecation|pending-deprecation|expose-gc|openssl-legacy-provider|use-openssl-ca|use-bundled-ca|preserve-symlinks|preserve-symlinks-main|experimental-fetch|experimental-websocket|network-family-autoselection)$|^--(?:unhandled-rejections|dns-result-order|disable-warning|conditions|experimental-specifier-resolution|title)=[\w.:@/-]+$/;

/** `.npmrc` keys (npm, pnpm and Yarn 1 read it) that name a program or node options. */
const npmrcKeys: Readonly<Record<string, string>> = {
  'node-options': 'node options for every process the package manager starts',
  'script-shell': 'the shell that runs package scripts',
  shell: 'the shell `npm exec` runs',
  'onload-script': 'a module npm loads at start',
  'node-gyp': 'the program that builds native modules',
  userconfig: 'another configuration file',
  globalconfig: 'another configuration file',
};

/** Keys of a Yarn ≥ 2 `.yarnrc.yml` or a pnpm ≥ 10 `pnpm-workspace.yaml` that run code. */
const yamlKeys: Readonly<Record<string, string>> = {
  yarnPath: 'the JavaScript file Yarn runs as itself',
  plugins: 'plugins Yarn loads',
  injectEnvironmentFiles: 'environment files (`NODE_OPTIONS`) Yarn loads into every script',
  nodeOptions: 'node options for every process the package manager starts',
  scriptShell: 'the shell that runs package scripts',
};

/** The problem with one `node-options` value, or undefined when every option is harmless. */
function nodeOptionsProblem(value: string): string | undefined {
  const options = value
    .replace(/^(["'])(.*)\1$/, '$2')
    .split(/\s+/)
    .filter(Boolean);
  const refused = options.find((option) => !harmlessNodeOption.test(option));
  return refused === undefined
    ? undefined
    : `${JSON.stringify(refused)} is not a harmless node option (it may load code before the program)`;
}

/** `key = value` entries of an ini file (comments and sections skipped, keys normalised). */
function iniEntries(text: string): { key: string; value: string }[] {
  const entries: { key: string; value: string }[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith(';') || line.startsWith('#') || line.startsWith('[')) continue;
    const match = /^([^=\s]+?)(?:\[\])?\s*(?:=\s*(.*)|\s+(.*))?$/.exec(line);
    if (!match) continue;
    const key = (match[1] ?? '')
      .replace(/^(["'])(.*)\1$/, '$2')
      .toLowerCase()
      .replaceAll('_', '-');
    entries.push({ key, value: (match[2] ?? match[3] ?? '').trim() });
  }
  return entries;
}

/** The problem with one configuration file's text, or undefined. */
function configProblem(name: string, text: string): string | undefined {
  if (name === '.npmrc' || name === '.yarnrc') {
    for (const { key, value } of iniEntries(text)) {
      // Yarn 1's `.yarnrc`: `yarn-path` is the file Yarn runs as itself.
      const bare = key.replace(/^--/, '');
      if (bare === 'yarn-path') return `it sets yarn-path (the JavaScript file Yarn runs as itself)`;
      if (bare === 'node-options') {
        const problem = nodeOptionsProblem(value);
        if (problem) return `it sets node-options: ${problem}`;
        continue;
      }
      const what = npmrcKeys[bare];
      if (what !== undefined) return `it sets ${bare} (${what})`;
    }
    return undefined;
  }
  for (const raw of text.split(/\r?\n/)) {
    const match = /^\s*(["']?)([A-Za-z]+)\1\s*:\s*(.*)$/.exec(raw);
    if (!match) continue;
    const key = match[2] ?? '';
    const value = (match[3] ?? '').replace(/\s+#.*$/, '').trim();
    if (key === 'nodeOptions') {
      const problem = nodeOptionsProblem(value);
      if (problem) return `it sets nodeOptions: ${problem}`;
      continue;
    }
    if (key === 'injectEnvironmentFiles' && /^\[\s*\]$/.test(value)) continue;
    const what = yamlKeys[key];
    if (what !== undefined) return `it sets ${key} (${what})`;
  }
  return undefined;
}

/** The configuration files a package manager reads in one folder of the project. */
const configNames = ['.npmrc', '.yarnrc', '.yarnrc.yml', 'pnpm-workspace.yaml'] as const;

/** Folders never searched for packages: installed code, git's data, closedloop's own state. */
const SKIPPED_FOLDERS = new Set([
  'node_modules',
  '.git',
  '.hg',
  '.svn',
  '.closedloop',
  '.yarn',
  '.pnpm-store',
]);
/** The most folders, and how deep, the search for packages of the workspace goes. */
const MAX_FOLDERS = 20_000;
const MAX_DEPTH = 16;

/** The problem with the configuration files of one folder, or undefined. */
function folderProblem(root: string, dir: string): string | undefined {
  for (const name of configNames) {
    const file = path.join(dir, name);
    const shown = path.relative(root, file);
    const entry = inspectInside(root, file, MAX_CONFIG_BYTES);
    if (entry.type === 'missing') continue;
    if (entry.type !== 'file')
      return `the package manager's configuration ${shown} is not a regular file inside the workspace (a link out, a FIFO, over 1 MiB)`;
    const problem = configProblem(name, entry.content.toString('utf8'));
    if (problem !== undefined)
      return `the package manager's configuration ${shown} would run code in every command: ${problem}. Remove the setting`;
  }
  return undefined;
}

/**
 * The folders of the workspace that hold a package (a `package.json`), breadth first, not
 * following links and skipping installed packages; at most {@link MAX_FOLDERS} folders are read.
 */
async function packageFolders(root: string): Promise<string[]> {
  const found: string[] = [];
  let level = [root];
  let read = 0;
  for (let depth = 0; depth <= MAX_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const dir of level) {
      if (read++ >= MAX_FOLDERS) return found;
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      if (entries.some((entry) => entry.name === 'package.json' && !entry.isDirectory())) found.push(dir);
      for (const entry of entries)
        if (entry.isDirectory() && !SKIPPED_FOLDERS.has(entry.name)) next.push(path.join(dir, entry.name));
    }
    level = next;
  }
  return found;
}

/**
 * Why a package manager (`npm`, `npx`, `pnpm`, `yarn`) must not run in `cwd`, or undefined: a
 * configuration file of the workspace it reads (`.npmrc`, `.yarnrc`, `.yarnrc.yml`,
 * `pnpm-workspace.yaml`) names a program or code to run — `node-options=--require ./x.cjs`,
 * `script-shell`, `yarnPath`, plugins. The files searched are those of `cwd` and every folder
 * above it up to `root`, and those of every package inside `root` (a folder with a
 * `package.json`, outside `node_modules`): a script can run the package manager again in a
 * package's folder (`cd packages/a && npm test`, pnpm in a workspace package), and that run reads
 * the package's own configuration. A file like that, written by one step, would run its code in
 * every later package-manager command, the verifier's re-runs of the tests included, and could
 * make a failing suite print and exit as a passing one. The same settings on the command line are
 * refused by the command's grammar. A configuration file that cannot be read as a regular file
 * inside the workspace (a link out, a FIFO) is refused too.
 */
export async function packageManagerConfigProblem(options: {
  root: string;
  cwd: string;
}): Promise<string | undefined> {
  const root = path.resolve(options.root);
  let dir = path.resolve(options.cwd);
  for (;;) {
    const relative = path.relative(root, dir);
    if (relative.startsWith('..') || path.isAbsolute(relative)) break;
    const problem = folderProblem(root, dir);
    if (problem !== undefined) return problem;
    if (dir === root) break;
    dir = path.dirname(dir);
  }
  for (const folder of await packageFolders(root)) {
    const problem = folderProblem(root, folder);
    if (problem !== undefined) return problem;
  }
  return undefined;
}
