import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The repository root. */
export const repoRoot = join(import.meta.dirname, '..');

/** The fields of a published package.json the packaging checks read. */
export interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  type?: string;
  sideEffects?: boolean;
  engines?: { node?: string };
  exports: Record<string, string | Record<string, string>>;
  typesVersions?: Record<string, Record<string, string[]>>;
  files?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** A workspace package that is published to npm (every folder of `packages/` not marked private). */
export interface PublishedPackage {
  /** Folder name under `packages/` (also its vitest project name). */
  folder: string;
  dir: string;
  manifest: Manifest;
}

/** A published package and the tarball `pnpm pack` made of it. */
export interface PackedPackage extends PublishedPackage {
  tarball: string;
}

/** Every published package, discovered from the `packages/` folder (new packages are covered when they land). */
export function publishedPackages(): PublishedPackage[] {
  const packagesDir = join(repoRoot, 'packages');
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(packagesDir, entry.name, 'package.json')))
    .map((entry) => {
      const dir = join(packagesDir, entry.name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
      return { folder: entry.name, dir, manifest };
    })
    .filter((pkg) => pkg.manifest.private !== true);
}

/** Public subpaths of a package's `exports` (`.`, `./testing`, …), without `./package.json`. */
export function entrySubpaths(manifest: Manifest): string[] {
  return Object.keys(manifest.exports).filter((subpath) => subpath !== './package.json');
}

/** The specifiers a consumer imports: `@closedloop/x`, `@closedloop/x/testing`, … */
export function entrySpecifiers(manifest: Manifest): string[] {
  return entrySubpaths(manifest).map((subpath) =>
    subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
  );
}

/** The file name `pnpm pack` gives a package's tarball (`@closedloop/plan` 0.1.0 → `closedloop-plan-0.1.0.tgz`). */
function tarballName(manifest: Manifest): string {
  return `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`;
}

/**
 * Packs every published package with `pnpm pack` (which turns `workspace:^` ranges into real
 * versions, as `pnpm publish` does) into `destination`, in one pnpm call.
 */
export async function packPublished(destination: string): Promise<PackedPackage[]> {
  const packages = publishedPackages();
  const filters = packages.flatMap((pkg) => ['--filter', pkg.manifest.name]);
  await run(
    process.execPath,
    [join(repoRoot, 'scripts', 'pnpm.mjs'), '-r', ...filters, 'pack', '--pack-destination', destination],
    { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
  );
  return packages.map((pkg) => {
    const tarball = join(destination, tarballName(pkg.manifest));
    if (!existsSync(tarball)) throw new Error(`pnpm pack wrote no ${tarball} for ${pkg.manifest.name}`);
    return { ...pkg, tarball };
  });
}
