#!/usr/bin/env node
// Runs every package's test suite (the vitest projects under packages/, not the demo app's CLI and
// browser tests) again on each Node version of `extraNodeVersions`, writing one JSON report per
// version next to the main one (.ci/results/vitest-node<major>.json). Exits 1 when any run fails.
// The type tests are not run again (they do not depend on the Node version). The truth corpus's
// shards (packages/executor/src/truth-corpus.shard-N.test.ts, about four CPU-minutes per Node
// version) are dealt out among the extra versions: every trace runs on Node 20 and on one newer
// version, so a version-dependent verdict (a trace's own `node --test` run, say) still shows.
//
// The versions run at the same time (after the main run), each on as many test files at once as
// the main run (vitest.config.ts). Why that is not a weaker CI: every file still runs on Node 20,
// 22 and 24 (the corpus shards on 20 and one newer version), in its own vitest process per
// version, against the same build; only when they run changes. Why it is faster: part of the
// suite waits rather than computes (Redis round trips and lease expiries, SIGKILLed children and
// their resumes, `node --test` and pytest in a sandbox), and one run's last long file leaves a core
// idle; overlapped, one version's CPU-heavy files fill the other's waits. Tests assert behaviour,
// never speed, and wait as long as a loaded machine needs, so the extra load may slow a file but
// not fail it.
//
// On the newer versions a corpus shard runs its traces in one verification mode (cortex's), not
// both (CLOSEDLOOP_TRUTH_MODES): what can differ between Node versions is what a trace's commands
// do (`node --test`, say), and that is the same in both modes; the modes' own logic is plain
// JavaScript that Node 20 checks.
//
// Each version's output is kept and printed whole when its run ends (the runs do not interleave
// their lines), under a header naming the version and how long it took.
import { spawn } from 'node:child_process';
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

/**
 * Runs the package suites on Node `version`; resolves with whether they passed and the run's
 * output (stdout and stderr, in the order they came).
 * @param {string} version
 * @returns {Promise<{ ok: boolean, output: string }>}
 */
async function testOn(version) {
  const started = performance.now();
  let node;
  try {
    node = await nodeBinary(version);
  } catch (error) {
    return { ok: false, output: `${String(error)}\n` };
  }
  const skipped = otherShards(version);
  let output = `\n— package tests on Node ${version} (${node}); corpus shards left to other versions: ${skipped.join(', ')}\n\n`;
  const code = await new Promise((resolve) => {
    const child = spawn(
      node,
      [
        vitest,
        'run',
        ...projects.flatMap((project) => ['--project', project]),
        '--reporter=default',
        '--reporter=json',
        `--outputFile.json=.ci/results/vitest-node${version}.json`,
      ],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        // Tests that start `node` themselves get the same version. The type tests (`*.test-d.ts`)
        // ran once already: types do not depend on the Node version.
        env: {
          ...process.env,
          PATH: `${dirname(node)}${delimiter}${process.env.PATH ?? ''}`,
          CLOSEDLOOP_SKIP_TYPE_TESTS: '1',
          CLOSEDLOOP_EXCLUDE_TESTS: skipped.map((name) => `**/${name}`).join(','),
          CLOSEDLOOP_TRUTH_MODES: 'cortex',
        },
      },
    );
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => {
      output += `${error.message}\n`;
      resolve(1);
    });
    child.on('close', (status, signal) => resolve(status ?? (signal ? 1 : 0)));
  });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  output += `\n⏱ package tests on Node ${version}: ${seconds} s (${code === 0 ? 'ok' : `FAILED (exit ${code})`})\n`;
  return { ok: code === 0, output };
}

// The binaries first, one version after the other (npx downloads each once; two npx installs
// into its cache at the same time can trip over each other).
for (const version of extraNodeVersions) await nodeBinary(version).catch(() => {});
const results = await Promise.all(
  extraNodeVersions.map((version) =>
    testOn(version).then((result) => {
      process.stdout.write(result.output);
      return result;
    }),
  ),
);
process.exit(results.every((result) => result.ok) ? 0 : 1);
