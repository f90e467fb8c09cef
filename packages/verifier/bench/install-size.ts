/**
 * Production install size of @closedloop/verifier: packs it and its workspace dependencies
 * (built `dist/` required: run `pnpm build` first), installs the tarballs with npm into an
 * empty folder (production dependencies and required peers only), and prints the size of
 * `node_modules` with the largest packages.
 *
 * Run: `pnpm bench:install-size` in packages/verifier.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const packages = ['verifier', 'plan', 'model', 'tools'];

function sizeOf(target: string): number {
  const info = statSync(target, { throwIfNoEntry: false });
  if (!info) return 0;
  if (!info.isDirectory()) return info.size;
  let total = 0;
  for (const entry of readdirSync(target)) total += sizeOf(path.join(target, entry));
  return total;
}

const work = mkdtempSync(path.join(tmpdir(), 'verifier-install-'));
try {
  const tarballs = path.join(work, 'tarballs');
  mkdirSync(tarballs);
  for (const name of packages) {
    execFileSync(
      process.execPath,
      [path.join(repo, 'scripts/pnpm.mjs'), 'pack', '--pack-destination', tarballs],
      {
        cwd: path.join(repo, 'packages', name),
        stdio: 'ignore',
      },
    );
  }
  const project = path.join(work, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'package.json'), '{ "name": "install-size", "private": true }\n');
  const files = readdirSync(tarballs).map((file) => path.join(tarballs, file));
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
  const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  const total = sizeOf(modules);
  console.log(`@closedloop/verifier production install: ${mb(total)} in ${rows.length} packages`);
  for (const row of rows.slice(0, 8)) console.log(`  ${row.name.padEnd(36)} ${mb(row.bytes)}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
