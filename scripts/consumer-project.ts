import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { entrySpecifiers, type PackedPackage, repoRoot } from './packed-packages';

const run = promisify(execFile);

/** npm settings a parent `npm test` / `pnpm run` passes down that an independent install keeps. */
const keptNpmSettings = new Set([
  'registry',
  'cache',
  'proxy',
  'https_proxy',
  'noproxy',
  'cafile',
  'strict_ssl',
]);

/**
 * The environment of a consumer's own `npm`: no `npm_config_*` / `npm_package_*` / `npm_lifecycle_*`
 * variables from the workspace's package manager (a consumer project is not in the workspace),
 * except where the registry and cache are.
 */
function consumerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    const lower = key.toLowerCase();
    if (lower.startsWith('npm_package_') || lower.startsWith('npm_lifecycle_')) continue;
    if (lower.startsWith('npm_config_') && !keptNpmSettings.has(lower.slice('npm_config_'.length))) continue;
    env[key] = value;
  }
  env.npm_config_update_notifier = 'false';
  return env;
}

/** Runs a command in a consumer project; a failure throws with its full output. */
async function runIn(dir: string, command: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd: dir,
      env: consumerEnv(),
      maxBuffer: 64 * 1024 * 1024,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(
      `${command} ${args.join(' ')} failed in ${dir}:\n${failure.stdout ?? ''}${failure.stderr ?? failure.message}`,
    );
  }
}

let loadScripts = 0;

const npmInstallFlags = [
  '--prefer-offline',
  '--no-audit',
  '--no-fund',
  '--ignore-scripts',
  '--loglevel=error',
];

/**
 * An empty npm project in `dir` that depends on `pkg` alone, installed from its packed tarball.
 * The other workspace packages come from their tarballs too (`overrides`, so npm never asks the
 * registry for an `@closedloop/*` name); third-party dependencies come from the registry through
 * the local npm cache.
 */
export async function installConsumer(dir: string, pkg: PackedPackage, all: PackedPackage[]): Promise<void> {
  await mkdir(dir, { recursive: true });
  const overrides = Object.fromEntries(
    all.filter((other) => other !== pkg).map((other) => [other.manifest.name, `file:${other.tarball}`]),
  );
  const manifest = {
    name: `consumer-of-${pkg.folder}`,
    private: true,
    dependencies: { [pkg.manifest.name]: `file:${pkg.tarball}` },
    overrides,
  };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await runIn(dir, 'npm', ['install', ...npmInstallFlags]);
}

/** The optional peer dependencies of a package, as `name@range` install specs. */
export function optionalPeers(pkg: PackedPackage): string[] {
  const peers = pkg.manifest.peerDependencies ?? {};
  const meta = pkg.manifest.peerDependenciesMeta ?? {};
  return Object.entries(peers)
    .filter(([name]) => meta[name]?.optional === true)
    .map(([name, range]) => `${name}@${range}`);
}

/** Adds the package's optional peers (the subpaths that need them can then load). */
export async function installOptionalPeers(dir: string, pkg: PackedPackage): Promise<void> {
  const peers = optionalPeers(pkg);
  if (peers.length > 0) await runIn(dir, 'npm', ['install', ...npmInstallFlags, ...peers]);
}

/**
 * Loads every specifier in a fresh Node process, with `import()` (an `.mjs` file) or `require()`
 * (a `.cjs` file), and checks each has named exports and resolves to the package's `dist/`.
 * `node` is the binary to run (CI also runs it on Node 22 and 24).
 */
export async function loadInNode(
  dir: string,
  specifiers: string[],
  options: { mode: 'import' | 'require'; node: string },
): Promise<string> {
  const load = options.mode === 'import' ? 'await import(specifier)' : 'require(specifier)';
  const resolve = options.mode === 'import' ? 'import.meta.resolve(specifier)' : 'require.resolve(specifier)';
  const script = `for (const specifier of ${JSON.stringify(specifiers)}) {
  const where = String(${resolve});
  if (!/[\\\\/]dist[\\\\/][^\\\\/]+\\.js$/.test(where)) throw new Error(specifier + ' resolved to ' + where);
  const exported = Object.keys(${load});
  if (exported.length === 0) throw new Error(specifier + ' has no exports');
  console.log(specifier, exported.length);
}
`;
  // A file per call: several checks of one project run at once.
  const file = `load-${++loadScripts}.${options.mode === 'import' ? 'mjs' : 'cjs'}`;
  await writeFile(join(dir, file), script);
  return runIn(dir, options.node, [file]);
}

/** TypeScript consumers: `nodenext` (an ESM `.mts` file and a CommonJS `.cts` file) or `bundler`. */
export type ConsumerResolution = 'nodenext' | 'bundler';

/**
 * Declaration files a consumer's own setup brings, not the package: TypeScript's `lib.*.d.ts`,
 * `@types/node` (and its `undici-types`) and zod (a peer dependency the consumer installs). The
 * `nodenext` check skips them; everything else in the program is checked.
 */
const consumerOwnTypes = /[\\/]node_modules[\\/](?:@types[\\/]node|undici-types|zod)[\\/]/;

/**
 * Typechecks a consumer that imports every entry of `pkg`, with the workspace's TypeScript.
 * `nodenext` compiles an ES module (`import * as`) and a CommonJS module (`import x = require()`,
 * which is `require()` of ESM: TypeScript >= 5.8 allows it under `nodenext`) and checks every
 * declaration file the package brings in — its own `.d.ts` and its dependencies' (a type from a
 * package that is not a dependency fails here, as it would for a consumer without
 * `skipLibCheck`). `bundler` checks resolution the way Vite, webpack or esbuild projects see it.
 * Resolves to the diagnostics, formatted (empty when it typechecks).
 */
export async function typecheckConsumer(
  dir: string,
  pkg: PackedPackage,
  resolution: ConsumerResolution,
): Promise<string[]> {
  const specifiers = entrySpecifiers(pkg.manifest);
  const names = specifiers.map((_, index) => `entry${index}`);
  const exportNames = `export const names: string[] = [${names.map((name) => `...Object.keys(${name})`).join(', ')}];\n`;
  const esModule = `${specifiers.map((specifier, index) => `import * as ${names[index]} from '${specifier}';`).join('\n')}\n${exportNames}`;
  const files: Record<string, string> =
    resolution === 'nodenext'
      ? {
          'consumer.mts': esModule,
          'consumer.cts': `${specifiers.map((specifier, index) => `import ${names[index]} = require('${specifier}');`).join('\n')}\n${exportNames}`,
        }
      : { 'consumer.ts': esModule };
  const folder = join(dir, `ts-${resolution}`);
  await mkdir(folder, { recursive: true });
  for (const [file, text] of Object.entries(files)) await writeFile(join(folder, file), text);
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    {
      ...(resolution === 'nodenext'
        ? { module: 'nodenext', skipLibCheck: false }
        : { module: 'esnext', moduleResolution: 'bundler', skipLibCheck: true }),
      strict: true,
      noEmit: true,
      types: ['node'],
      typeRoots: [join(repoRoot, 'node_modules', '@types')],
    },
    folder,
  );
  const program = ts.createProgram({
    rootNames: Object.keys(files).map((file) => join(folder, file)),
    options,
  });
  const diagnostics = [...errors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  for (const file of program.getSourceFiles()) {
    if (program.isSourceFileDefaultLibrary(file) || consumerOwnTypes.test(file.fileName)) continue;
    diagnostics.push(...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file));
  }
  return diagnostics.map((diagnostic) => {
    const where = diagnostic.file
      ? `${diagnostic.file.fileName}(${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1}): `
      : '';
    return `${where}TS${diagnostic.code}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}
