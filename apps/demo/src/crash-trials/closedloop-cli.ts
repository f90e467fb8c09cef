import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const demoDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** How to start the `closedloop` CLI: a program and the arguments before the CLI's own. */
export interface CliLauncher {
  program: string;
  prefix: string[];
}

/**
 * Bundles the CLI from source (`src/bin.ts`, workspace packages through their source condition)
 * into one file with esbuild (from tsx's dependencies), so each trial starts it in a fraction of
 * tsx's time and always runs the current sources. `typescript` (the verifier's AST checks) is
 * loaded with `require` rather than bundled. Falls back to tsx when esbuild is not there.
 */
export async function buildCli(): Promise<CliLauncher> {
  const entry = join(demoDir, 'src', 'bin.ts');
  try {
    const require = createRequire(import.meta.url);
    const esbuild = createRequire(require.resolve('tsx'))('esbuild') as {
      build(options: object): Promise<unknown>;
    };
    const outdir = join(demoDir, 'node_modules', '.cache', 'crash-trials');
    mkdirSync(outdir, { recursive: true });
    const outfile = join(outdir, `closedloop-${process.pid}.mjs`);
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      conditions: ['@closedloop/source'],
      outfile,
      logLevel: 'silent',
      banner: {
        js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
      },
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
    return { program: process.execPath, prefix: [outfile] };
  } catch {
    return {
      program: process.execPath,
      prefix: ['--import', 'tsx', '--conditions=@closedloop/source', entry],
    };
  }
}

/**
 * The command lines of a trial — the one place that knows how the CLI runs the offline scenario
 * (`closedloop demo`) and resumes it; adapt here if the CLI's commands change.
 */
export const scenarioCommands = {
  /** Runs the offline scenario in `workspace`, journaling under `journal`; prints the result as JSON. */
  run: (options: { workspace: string; journal: string }): string[] => [
    'demo',
    '--workspace',
    options.workspace,
    '--journal',
    options.journal,
    '--json',
  ],
  /** Resumes `runId`, approving what it asks (interrupted commands, reviews); prints JSON. */
  resume: (options: { runId: string; journal: string }): string[] => [
    'resume',
    options.runId,
    '--journal',
    options.journal,
    '--approve',
    '--json',
  ],
};
