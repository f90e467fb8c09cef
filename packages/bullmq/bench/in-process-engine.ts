/**
 * One in-process engine of the throughput benchmark's machine ideal (see `throughput.bench.ts`):
 * `node --import tsx --conditions=@closedloop/source bench/in-process-engine.ts <workspace>
 * <firstStep> <steps> <stepMs> <concurrency>`.
 *
 * Warms up on a scratch workspace (as the scaled-out processes do), prints `ready`, waits for a
 * line on stdin, then runs its share of the scenario — `steps` steps from `step-<firstStep + 1>`,
 * `concurrency` at once — in one process, no Redis, on the shared `workspace`, and prints when its
 * first step started and its last finished, and its CPU.
 */
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createCortex, type RunEvent } from '@closedloop/cortex';
import { scenarioSpec } from '../src/__fixtures__/final-state';
import { scenarioCortex } from '../src/__fixtures__/scenario';
import type { RunSpec } from '../src/step-jobs';

const [workspace, firstText, stepsText, stepMsText, concurrencyText] = process.argv.slice(2);
const steps = Number(stepsText);
const concurrency = Number(concurrencyText);
const settings = { shape: 'wide', turnMs: Number(stepMsText) / 3, runConcurrency: concurrency };

// Warm-up: the bench's warm-up size per slot, on a scratch workspace.
const warm = {
  ...scenarioSpec({ ...settings, steps: 25 * concurrency }, 'closedloop-bench-'),
  request: 'Warm up.',
};
await createCortex(scenarioCortex(warm)).run(warm.request);
rmSync(warm.workspace!, { recursive: true, force: true });

console.log(JSON.stringify({ type: 'ready' }));
await new Promise<void>((resolve) => createInterface({ input: process.stdin }).once('line', () => resolve()));

const spec: RunSpec = {
  request: `Run ${steps} independent steps.`,
  workspace: workspace!,
  settings: { ...settings, steps, firstStep: Number(firstText) },
};
const events: RunEvent[] = [];
const cpu = process.cpuUsage();
const result = await createCortex({ ...scenarioCortex(spec), onEvent: (event) => events.push(event) }).run(
  spec.request,
);
const used = process.cpuUsage(cpu);
const starts = events.filter((event) => event.type === 'step-started').map((event) => event.at);
const finishes = events.filter((event) => event.type === 'step-finished');
console.log(
  JSON.stringify({
    type: 'done',
    stopReason: result.stopReason,
    first: Math.min(...starts),
    last: Math.max(...finishes.map((event) => event.at)),
    completed: finishes.filter((event) => event.type === 'step-finished' && event.status === 'completed')
      .length,
    cpuMs: (used.user + used.system) / 1000,
  }),
);
