#!/usr/bin/env node
// `npm run check` (what `npm test` runs after the install): every check of the repository, in
// phases, printing how long each took. Stops after the first phase that fails and exits 1.
//
// 1. build (turbo: tsup, in dependency order), typecheck and lint at once: the build's dependency
//    chain leaves cores free, which the typecheck fills. The typecheck is scripts/typecheck.mjs (one
//    TypeScript program over every package instead of each package's `tsc --noEmit`, which checks
//    the sources of the packages it depends on again). Lint is one Biome run over the repository.
// 2. `vitest run`: every workspace project and the repository's own tests (vitest.config.ts).
// 3. scripts/test-node-versions.mjs: the package test files again, dealt out between Node 22 and 24.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const bin = (name) => join(root, 'node_modules', '.bin', name);

/**
 * Runs `command` in `root`; resolves with its exit code and output (collected when `quiet`, so
 * commands running at once do not interleave their lines).
 * @param {string} command
 * @param {string[]} args
 * @param {{ quiet?: boolean }} [options]
 * @returns {Promise<{ code: number, output: string }>}
 */
function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      stdio: options.quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr?.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
let failed = false;

/** Runs named jobs at once; prints each one's time (and output, when it failed or printed). */
async function phase(name, jobs) {
  const started = performance.now();
  console.log(`\n▶ ${name}`);
  const results = await Promise.all(
    Object.entries(jobs).map(async ([label, job]) => {
      const jobStarted = performance.now();
      const result = await job();
      const ok = result.code === 0;
      if (!ok) failed = true;
      if (result.output?.trim()) console.log(`\n— ${label} output:\n${result.output.trimEnd()}`);
      return `${label} ${ok ? 'ok' : `FAILED (exit ${result.code})`} in ${seconds(jobStarted)}`;
    }),
  );
  console.log(`⏱ ${name}: ${seconds(started)} (${results.join('; ')})`);
}

const total = performance.now();
await phase('build, typecheck, lint', {
  build: () => run(bin('turbo'), ['run', 'build', '--output-logs=errors-only'], { quiet: true }),
  typecheck: () => run(process.execPath, [join(root, 'scripts', 'typecheck.mjs')], { quiet: true }),
  lint: () => run(bin('biome'), ['check', '.'], { quiet: true }),
});
// The tests run on sources, but the packaging tests and the CLI tests use the build.
if (!failed) await phase('vitest', { vitest: () => run(bin('vitest'), ['run']) });
if (!failed) {
  await phase('package tests on other Node versions', {
    'test-node-versions': () => run(process.execPath, [join(root, 'scripts', 'test-node-versions.mjs')]),
  });
}
console.log(`\n⏱ check: ${seconds(total)}${failed ? ' (FAILED)' : ''}`);
process.exit(failed ? 1 : 0);
