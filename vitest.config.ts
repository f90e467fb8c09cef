import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/** Every workspace folder is one vitest project; tests run against `src/` via the source condition. */
const projectDirs = ['packages', 'apps'].flatMap((group) =>
  readdirSync(group, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `${group}/${entry.name}`),
);

const sourceCondition = '@closedloop/source';

export default defineConfig({
  resolve: { conditions: [sourceCondition, ...defaultClientConditions] },
  // Tests run in Node: the bundler-only `module` condition would pick builds Node cannot load
  // (e.g. @opentelemetry/api's extensionless ESM).
  ssr: {
    resolve: {
      conditions: [sourceCondition, ...defaultServerConditions.filter((condition) => condition !== 'module')],
    },
  },
  test: {
    // CI machines are shared: a test that is merely slow under load must not fail. Tests assert
    // behaviour, never speed (benchmarks measure speed).
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Most test files spend their time waiting on child processes, Redis and temp folders, not on
    // the CPU: at least two files at once, also on a two-core machine (vitest's default there is
    // one, which made the main CI run take as long as the Node 22 and 24 runs together).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default', 'json'],
    // `--outputFile.json=…` moves it (the runs on other Node versions write their own report).
    outputFile: { json: '.ci/results/vitest.json' },
    projects: [
      ...projectDirs.map((dir) => ({
        extends: true as const,
        test: {
          name: dir.split('/')[1],
          root: dir,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['**/*.int.test.ts', '**/node_modules/**'],
        },
      })),
      // `*.test-d.ts` files assert types (the public surface): vitest runs tsc and reports each
      // failed `expectTypeOf` or unmet `@ts-expect-error` as a failed test (and an error anywhere
      // else in the program as a failed run). vitest's tsc checks a project's whole tsconfig, so
      // the type tests of every package are one project over the whole repository
      // (tsconfig.check.json): one program instead of one per package, each re-checking the
      // sources of the packages it depends on. Run them with `npx vitest run --project types`.
      // Types do not depend on the Node version: the runs on other Node versions skip them.
      ...(process.env.CLOSEDLOOP_SKIP_TYPE_TESTS === '1'
        ? []
        : [
            {
              extends: true as const,
              test: {
                name: 'types',
                root: '.',
                typecheck: {
                  enabled: true,
                  only: true,
                  include: ['packages/*/src/**/*.test-d.ts', 'apps/*/src/**/*.test-d.ts'],
                  tsconfig: './tsconfig.check.json',
                },
              },
            },
          ]),
      {
        extends: true as const,
        test: { name: 'repo', root: '.', include: ['scripts/**/*.test.ts'], testTimeout: 120_000 },
      },
    ],
  },
});
