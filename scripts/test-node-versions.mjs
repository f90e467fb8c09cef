#!/usr/bin/env node
// Runs the package test suites (the vitest projects under packages/, not the demo app's CLI and
// browser tests) again on the newer Node versions of `extraNodeVersions`, writing one JSON report
// per version next to the main one (.ci/results/vitest-node<major>.json). Exits 1 when any run
// fails. The type tests are not run again (they do not depend on the Node version).
//
// The package test files are dealt out among the newer versions: every file runs on Node 20 (the
// main run) and on one newer version, so a behaviour that changed after Node 20 — what most
// version differences are, the same on 22 and 24 (`node --test <folder>`, say) — still shows,
// and the packed packages are loaded on every version by scripts/packages.test.ts. The deal is by
// the files' durations in the main run's report (.ci/results/vitest.json, longest first to the
// version with the least so far), so the versions finish together; files the report lacks are
// dealt in path order. The runs go at the same time (after the main run), each on as many test
// files at once as the main run (vitest.config.ts): part of the suite waits rather than computes
// (Redis round trips, lease expiries, killed children and their resumes), so one version's
// CPU-heavy files fill the other's waits. Tests assert behaviour, never speed.
//
// On the newer versions the truth corpus's shards run their traces in one verification mode
// (cortex's), not both (CLOSEDLOOP_TRUTH_MODES), and only the traces whose commands may run on
// Node (CLOSEDLOOP_TRUTH_TRACES=node): what can differ between Node versions is what a trace's
// commands do, the same in both modes, and a Python or git trace's commands are the same on every
// version; the modes' own logic is plain JavaScript that Node 20 checks on every trace.
//
// Each version's output is kept and printed whole when its run ends (the runs do not interleave
// their lines), under a header naming the version, its share of the files and how long it took.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, dirname, join, relative } from 'node:path';
import { extraNodeVersions, nodeBinary } from './node-versions.mjs';

const root = join(import.meta.dirname, '..');
const projects = readdirSync(join(root, 'packages'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(join(root, 'packages', entry.name, 'package.json')))
  .map((entry) => entry.name);
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');

/** Every package test file a vitest project runs (vitest.config.ts: `src/` and `test/`, no `*.int.test.ts`), repository-relative. */
function packageTestFiles() {
  const files = [];
  for (const project of projects) {
    for (const folder of ['src', 'test']) {
      const dir = join(root, 'packages', project, folder);
      if (!existsSync(dir)) continue;
      for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
        const path = join(entry.parentPath, entry.name);
        if (!entry.isFile() || path.includes('/node_modules/')) continue;
        if (entry.name.endsWith('.test.ts') && !entry.name.endsWith('.int.test.ts'))
          files.push(relative(root, path));
      }
    }
  }
  return files.sort();
}

/** Seconds each file took in the main run (its JSON report), by repository-relative path. */
function mainRunSeconds() {
  const seconds = new Map();
  try {
    const report = JSON.parse(readFileSync(join(root, '.ci', 'results', 'vitest.json'), 'utf8'));
    for (const file of report.testResults ?? []) {
      if (typeof file.name === 'string' && file.endTime > file.startTime)
        seconds.set(relative(root, file.name), (file.endTime - file.startTime) / 1000);
    }
  } catch {
    // No report (the script run alone): the deal goes by path.
  }
  return seconds;
}

/** The files each newer version runs: longest first to the version with the least so far. */
function deal() {
  const seconds = mainRunSeconds();
  const files = packageTestFiles();
  const timed = files.filter((file) => seconds.has(file)).sort((a, b) => seconds.get(b) - seconds.get(a));
  const shares = extraNodeVersions.map(() => ({ files: [], seconds: 0 }));
  for (const file of timed) {
    const share = shares.reduce((least, share) => (share.seconds < least.seconds ? share : least));
    share.files.push(file);
    share.seconds += seconds.get(file);
  }
  const untimed = files.filter((file) => !seconds.has(file));
  for (const [index, file] of untimed.entries()) shares[index % shares.length].files.push(file);
  return new Map(extraNodeVersions.map((version, index) => [version, shares[index]]));
}

const shares = deal();

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
  const share = shares.get(version);
  let output = `\n— package tests on Node ${version} (${node}): ${share.files.length} files, ${Math.round(share.seconds)} s of the main run's time\n\n`;
  const code = await new Promise((resolve) => {
    const child = spawn(
      node,
      [
        vitest,
        'run',
        ...projects.flatMap((project) => ['--project', project]),
        ...share.files,
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
          CLOSEDLOOP_TRUTH_MODES: 'cortex',
          CLOSEDLOOP_TRUTH_TRACES: 'node',
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
