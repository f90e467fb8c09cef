import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
/** The cortex package folder (children run from it). */
export const packageDir = join(here, '..', '..');

/**
 * How a child fixture starts: a one-file bundle of the script and the workspace sources (esbuild,
 * from tsx's dependency), which starts in a fraction of tsx's time; `tsx` as the fallback.
 * `typescript` (the verifier's AST checks) is loaded with `require` rather than bundled.
 */
export async function bundleChild(source: string, name: string): Promise<string[]> {
  try {
    const require = createRequire(import.meta.url);
    const esbuild = createRequire(require.resolve('tsx'))('esbuild') as {
      build(options: object): Promise<unknown>;
    };
    const outdir = join(packageDir, 'node_modules', '.cache', 'cortex-crash');
    mkdirSync(outdir, { recursive: true });
    const outfile = join(outdir, `${name}-${process.pid}.mjs`);
    await esbuild.build({
      entryPoints: [source],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['@closedloop/source'],
      outfile,
      logLevel: 'silent',
      plugins: [
        {
          name: 'typescript-through-require',
          setup(build: {
            onResolve(options: { filter: RegExp }, callback: () => { path: string; namespace: string }): void;
            onLoad(
              options: { filter: RegExp; namespace: string },
              callback: () => { contents: string; loader: string },
            ): void;
          }) {
            build.onResolve({ filter: /^typescript$/ }, () => ({
              path: 'typescript',
              namespace: 'ts-require',
            }));
            build.onLoad({ filter: /.*/, namespace: 'ts-require' }, () => ({
              contents:
                "import { createRequire } from 'node:module'; export default createRequire(import.meta.url)('typescript');",
              loader: 'js',
            }));
          },
        },
      ],
    });
    return [outfile];
  } catch {
    return ['--import', 'tsx', '--conditions=@closedloop/source', source];
  }
}

/** What a child did: its exit code or signal, and its output. */
export interface ChildOutcome {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node <args>` from the package folder with `env` added, and waits for it to end. With
 * `fileSizeLimitKb`, under `ulimit -f` (RLIMIT_FSIZE): a write that would make a file larger is cut
 * short, then fails with EFBIG, as on a full disk.
 */
export function runNode(
  args: string[],
  env: Record<string, string>,
  fileSizeLimitKb?: number,
): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const [file, argv] =
      fileSizeLimitKb === undefined
        ? [process.execPath, args]
        : ['bash', ['-c', `ulimit -f ${fileSizeLimitKb} && exec "$0" "$@"`, process.execPath, ...args]];
    const child = spawn(file, argv, {
      cwd: packageDir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
