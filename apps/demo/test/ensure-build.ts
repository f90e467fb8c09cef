import { execFileSync } from 'node:child_process';
import { type Dirent, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
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

/**
 * Runs `make` unless `output` is fresh, holding a lock folder (`dist/.<name>.lock`) while it does:
 * test files run in parallel, and two builds into one `dist/` at once leave a torn bundle. A test
 * that finds the lock waits for it (at most 5 minutes; a lock older than that was left by a killed
 * build), then builds only if the output is still stale.
 */
async function buildOnce(name: string, output: string, make: () => unknown): Promise<void> {
  if (fresh(output)) return;
  const lock = join(packageDir, 'dist', `.${name}.lock`);
  mkdirSync(dirname(lock), { recursive: true });
  for (const deadline = Date.now() + 300_000; ; ) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000 || Date.now() > deadline) rmSync(lock, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  try {
    if (!fresh(output)) await make();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds the CLI bundle when it is missing or older than the sources (CI has built it already). */
export async function ensureCliBuild(): Promise<void> {
  await buildOnce('cli-build', builtBin, () =>
    execFileSync(process.execPath, [join(repoRoot, 'node_modules', 'tsup', 'dist', 'cli-default.js')], {
      cwd: packageDir,
      stdio: 'pipe',
    }),
  );
}

/** Builds the web UI when it is missing or older than the sources. */
export async function ensureWebBuild(): Promise<void> {
  await buildOnce('web-build', builtPage, () =>
    build({ configFile: join(packageDir, 'vite.config.ts'), logLevel: 'warn' }),
  );
}
