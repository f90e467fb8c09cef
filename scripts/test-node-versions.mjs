#!/usr/bin/env node
// Runs every package's test suite (the vitest projects under packages/, not the demo app's CLI and
// browser tests) again on each Node version of `extraNodeVersions`, writing one JSON report per
// version next to the main one (.ci/results/vitest-node<major>.json). Exits 1 when any run fails.
// The type tests are not run again (they do not depend on the Node version). The truth corpus's
// shards (packages/executor/src/truth-corpus.shard-N.test.ts, about four CPU-minutes per Node
// version) are dealt out among the extra versions: every trace runs on Node 20 and on one newer
// version, so a version-dependent verdict (a trace's own `node --test` run, say) still shows.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { extraNodeVersions, nodeBinary } from './node-versions.mjs';

const root = join(import.meta.dirname, '..');
const projects = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, 'packages', entry.name, 'package.json')))
  .map((entry) => entry.name);
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const shardDir = join(root, 'packages', 'executor', 'src');
const shards = readdirSync(shardDir)
  .filter((name) => /^truth-corpus\.shard-\d+\.test\.ts$/.test(name))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

/** The corpus shards a version does not run: the others' share of the deal. */
function otherShards(version) {
  const index = extraNodeVersions.indexOf(version);
  return shards.filter((_, shard) => shard % extraNodeVersions.length !== index);
}

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
  const skipped = otherShards(version);
  console.log(
    `\n— package tests on Node ${version} (${node}); corpus shards left to other versions: ${skipped.join(', ')}\n`,
  );
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
        CLOSEDLOOP_EXCLUDE_TESTS: skipped.map((name) => `**/${name}`).join(','),
      },
    },
  );
  if (result.status !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
