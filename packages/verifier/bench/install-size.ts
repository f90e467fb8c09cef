/**
 * Production install size of @closedloop/verifier and of @closedloop/cortex (which depends on
 * it): packs each package and its workspace dependencies (built `dist/` required: run
 * `pnpm build` first), installs the tarballs with npm into an empty folder (production
 * dependencies and required peers only, as a user's `npm install` would), and prints the size of
 * `node_modules` with the largest packages and the target.
 *
 * Run: `pnpm bench:install-size` in packages/verifier.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const MB = 1024 * 1024;

/** Targets: the verifier ~20 MB below its install with TypeScript (30.4 MB); cortex ≤ 12 MB. */
const TARGETS: Record<string, number> = { verifier: 10 * MB, cortex: 12 * MB };

function sizeOf(target: string): number {
  const info = statSync(target, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of readdirSync(target)) total += sizeOf(path.join(target, entry));
  return total;
}

/** A workspace package's folder name and its workspace dependencies, recursively. */
function withWorkspaceDependencies(folder: string, seen = new Set<string>()): Set<string> {
  if (seen.has(folder)) return seen;
  seen.add(folder);
  const manifest = JSON.parse(readFileSync(path.join(repo, 'packages', folder, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  for (const [name, range] of Object.entries(manifest.dependencies ?? {}))
    if (range.startsWith('workspace:')) withWorkspaceDependencies(name.replace('@closedloop/', ''), seen);
  return seen;
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;
const work = mkdtempSync(path.join(tmpdir(), 'closedloop-install-'));
try {
  const tarballs = path.join(work, 'tarballs');
  mkdirSync(tarballs);
  const packed = new Map<string, string>();
  const pack = (folder: string): string => {
    const existing = packed.get(folder);
    if (existing) return existing;
    const before = new Set(readdirSync(tarballs));
    execFileSync(
      process.execPath,
      [path.join(repo, 'scripts/pnpm.mjs'), 'pack', '--pack-destination', tarballs],
      {
        cwd: path.join(repo, 'packages', folder),
        stdio: 'ignore',
      },
    );
    const file = readdirSync(tarballs).find((entry) => !before.has(entry));
    if (!file) throw new Error(`pnpm pack wrote no tarball for ${folder}`);
    packed.set(folder, path.join(tarballs, file));
    return path.join(tarballs, file);
  };

  for (const target of ['verifier', 'cortex']) {
    const project = path.join(work, target);
    mkdirSync(project);
    writeFileSync(path.join(project, 'package.json'), '{ "name": "install-size", "private": true }\n');
    const files = [...withWorkspaceDependencies(target)].map(pack);
    execFileSync('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts', ...files], {
      cwd: project,
      stdio: 'ignore',
    });
    const modules = path.join(project, 'node_modules');
    const rows: { name: string; bytes: number }[] = [];
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const names = entry.startsWith('@')
        ? readdirSync(path.join(modules, entry)).map((inner) => `${entry}/${inner}`)
        : [entry];
      for (const name of names) rows.push({ name, bytes: sizeOf(path.join(modules, name)) });
    }
    rows.sort((a, b) => b.bytes - a.bytes);
    const total = sizeOf(modules);
    const limit = TARGETS[target] ?? Number.POSITIVE_INFINITY;
    console.log(
      `@closedloop/${target} production install: ${mb(total)} in ${rows.length} packages ` +
        `(target ≤ ${mb(limit)}: ${total <= limit ? 'met' : 'MISSED'})`,
    );
    for (const row of rows.slice(0, 10)) console.log(`  ${row.name.padEnd(36)} ${mb(row.bytes)}`);
    if (target === 'verifier') {
      // The installed package works without TypeScript and without the optional grammars.
      const smoke = execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { findSymbol, canFindSymbols, checkSyntax } from '@closedloop/verifier';
const found = await findSymbol({ fileName: 'a.go', text: 'package a\\nfunc Run() {}\\n', name: 'Run' });
const gap = await checkSyntax('a.ts', 'declare module "x" {}\\n', { run: null });
console.log('smoke: findSymbol(a.go, Run) line ' + found?.line + '; PHP parsed: ' + canFindSymbols('a.php') + '; TS syntax the grammar lacks, no TypeScript, no commands: ' + gap.status);`,
        ],
        // Without what `pnpm run` and tsx add: NODE_PATH would find the repo's packages.
        { cwd: project, encoding: 'utf8', env: { ...process.env, NODE_PATH: '', NODE_OPTIONS: '' } },
      );
      console.log(`  ${smoke.trim()}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
