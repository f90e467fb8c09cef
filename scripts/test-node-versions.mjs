#!/usr/bin/env node
// Runs every package's test suite (the vitest projects under packages/, not the demo app's CLI and
// browser tests) again on each Node version of `extraNodeVersions`, writing one JSON report per
// version next to the main one (.ci/results/vitest-node<major>.json). Exits 1 when any run fails.
// The type tests are not run again (they do not depend on the Node version).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { extraNodeVersions, nodeBinary } from './node-versions.mjs';

const root = join(import.meta.dirname, '..');
const projects = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, 'packages', entry.name, 'package.json')))
  .map((entry) => entry.name);
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');

let failed = false;
for (const version of extraNodeVersions) {
  let node;
  try {
    node = await nodeBinary(version);
  } catch (error) {
    console.error(String(error));
    failed = true;
    continue;
  }
  console.log(`\n— package tests on Node ${version} (${node})\n`);
  const result = spawnSync(
    node,
    [
      vitest,
      'run',
      ...projects.flatMap((project) => ['--project', project]),
      // As many test files at once as the main run (vitest.config.ts: at least two).
      '--reporter=default',
      '--reporter=json',
      `--outputFile.json=.ci/results/vitest-node${version}.json`,
    ],
    {
      cwd: root,
      stdio: 'inherit',
      // Tests that start `node` themselves get the same version. The type tests (`*.test-d.ts`)
      // ran once already: types do not depend on the Node version.
      env: {
        ...process.env,
        PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`,
        CLOSEDLOOP_SKIP_TYPE_TESTS: '1',
      },
    },
  );
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
