import { execFileSync } from 'node:child_process';
import { type Dirent, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const packageDir = fileURLToPath(new URL('../', import.meta.url));
const repoRoot = join(packageDir, '..', '..');

/** The built CLI (`tsup`) and the built page (`vite`), as `closedloop` ships them. */
export const builtBin = join(packageDir, 'dist', 'bin.js');
export const builtPage = join(packageDir, 'dist', 'web', 'index.html');

function newestSource(): number {
  return (readdirSync(join(packageDir, 'src'), { recursive: true, withFileTypes: true }) as Dirent[])
    .filter((entry) => entry.isFile())
    .reduce((latest, entry) => Math.max(latest, statSync(join(entry.parentPath, entry.name)).mtimeMs), 0);
}

const fresh = (file: string) => existsSync(file) && statSync(file).mtimeMs >= newestSource();

/** Builds the CLI bundle when it is missing or older than the sources (CI has built it already). */
export function ensureCliBuild(): void {
  if (fresh(builtBin)) return;
  execFileSync(process.execPath, [join(repoRoot, 'node_modules', 'tsup', 'dist', 'cli-default.js')], {
    cwd: packageDir,
    stdio: 'pipe',
  });
}

/** Builds the web UI when it is missing or older than the sources. */
export async function ensureWebBuild(): Promise<void> {
  if (fresh(builtPage)) return;
  await build({ configFile: join(packageDir, 'vite.config.ts'), logLevel: 'warn' });
}
