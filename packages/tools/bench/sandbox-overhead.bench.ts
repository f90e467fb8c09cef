/**
 * Sandbox overhead: the same commands through the one command runner with `sandbox: 'required'`
 * (bubblewrap: namespaces, mounts, hidden credential stores) and `sandbox: 'off'`, interleaved so
 * machine noise hits both alike. Prints the median per-command time of each and the overhead
 * (the difference of the medians), plus bubblewrap alone around `/bin/true`.
 *
 * Run: `pnpm bench` in packages/tools (or
 * `npx tsx --conditions=@closedloop/source bench/sandbox-overhead.bench.ts`). Target: < 15 ms.
 */
import { spawn } from 'node:child_process';
import { createCommandRunner, probeSandbox } from '@closedloop/tools';
import { createTempWorkspace } from '@closedloop/tools/testing';
import { probeArguments } from '../src/sandbox';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const TARGET_MS = 15;

const probe = await probeSandbox();
if (!probe.available) {
  console.log(`sandbox overhead: bubblewrap is not usable here (${probe.reason}); nothing to measure.`);
  process.exit(0);
}

const ws = await createTempWorkspace({
  files: { 'a.txt': 'a\n', 'hello.cjs': 'console.log("hi");\n' },
  git: true,
});
const sandboxed = createCommandRunner({ root: ws.root, sandbox: 'required' });
const plain = createCommandRunner({ root: ws.root, sandbox: 'off' });

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const timeOf = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};
const raw = (program: string, args: string[]) =>
  new Promise<void>((resolve, reject) =>
    spawn(program, args, { stdio: 'ignore' })
      .on('close', () => resolve())
      .on('error', reject),
  );

const commands: string[][] = [
  ['echo', 'hi'],
  ['git', 'status', '--porcelain'],
  ['node', 'hello.cjs'],
];
const rows: string[] = [];
let worst = 0;
for (const argv of commands) {
  const on: number[] = [];
  const off: number[] = [];
  await sandboxed.run(argv);
  await plain.run(argv);
  for (let round = 0; round < ROUNDS; round++) {
    on.push(await timeOf(() => sandboxed.run(argv)));
    off.push(await timeOf(() => plain.run(argv)));
  }
  const overhead = median(on) - median(off);
  worst = Math.max(worst, overhead);
  rows.push(
    `  ${argv.join(' ').padEnd(24)} sandboxed ${median(on).toFixed(1).padStart(6)} ms   unsandboxed ${median(off).toFixed(1).padStart(6)} ms   overhead ${overhead.toFixed(1).padStart(5)} ms`,
  );
}
const bare: number[] = [];
const wrapped: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  bare.push(await timeOf(() => raw('/bin/true', [])));
  wrapped.push(await timeOf(() => raw(probe.executable, [...probeArguments, '--', '/bin/true'])));
}
await ws.cleanup();

console.log(`sandbox overhead per command (median of ${ROUNDS}, interleaved):`);
for (const row of rows) console.log(row);
console.log(
  `  bubblewrap alone around /bin/true: ${(median(wrapped) - median(bare)).toFixed(1)} ms (${median(wrapped).toFixed(1)} vs ${median(bare).toFixed(1)} ms)`,
);
console.log(
  `worst overhead ${worst.toFixed(1)} ms (target < ${TARGET_MS} ms): ${worst < TARGET_MS ? 'OK' : 'OVER'}`,
);
