/**
 * Run-event pipeline benchmark (issue 16): `pnpm bench:bus` in packages/cortex (or
 * `npx tsx --conditions=@closedloop/source bench/run-bus.bench.ts`).
 *
 * The events of a real run — a chain of `BUS_BENCH_STEPS` (200) steps through `createCortex`
 * (scripted model, one tool call and `mark_step` per step, the real verifier), about 19 events
 * per step — are recorded once, then replayed through a fresh `RunBus` with the default
 * redactor (a fresh one per replay), as the run emitted them (`emit`, or `forwardPlan` for the plan's events), with a
 * `flush()` every 20 events:
 *
 * - `no store`: redaction, stamping, history and one listener (what a run without a journal pays);
 * - `memory store`: plus `createMemoryRunStore` (the event's JSON text kept per record);
 * - `jsonl encoding`: plus encoding every journaled record as its JSONL line (`encodeRecord`),
 *   without the disk.
 *
 * Printed: CPU µs per step and per event (`process.cpuUsage`), median of `BUS_BENCH_ROUNDS` (30)
 * rounds after 10 warm-up rounds, the modes interleaved so machine noise hits them alike. The
 * pipeline's share of a step's orchestration CPU; compare against a checkout of the commit before.
 */
import { createRedactor } from '@closedloop/model';
import { createCortex } from '../src/create-cortex';
import { encodeRecord, type JournalRecord } from '../src/journal-format';
import { RunBus } from '../src/run-bus';
import { isPlanEvent, type RunEvent } from '../src/run-events';
import { createMemoryRunStore, type RunStore } from '../src/run-store';
import { benchModel, chainDrafts, recordTool } from './fixture';

const size = Number(process.env.BUS_BENCH_STEPS ?? 200);
const rounds = Number(process.env.BUS_BENCH_ROUNDS ?? 30);

const steps = chainDrafts(size);
const model = benchModel(steps);

// Record the run's events (as copies: the bus's objects are shared with its history).
const recorded: RunEvent[] = [];
const result = await createCortex({
  model,
  tools: [recordTool],
  planning: 'always',
  store: false,
  planner: { maxSteps: size },
  acceptUnverified: 'warn',
  onEvent: (event) => recorded.push(structuredClone(event)),
}).run('Run the bench');
if (!result.stopReason.startsWith('completed')) throw new Error(`${result.stopReason}: ${result.reason}`);

// What the producers handed the bus: no runId, and no `at` on cortex and executor events.
const inputs = recorded.map((event) => {
  const { runId: _runId, ...rest } = event as RunEvent & { at?: number };
  if (isPlanEvent(event)) return { plan: true, event: rest };
  const { at: _at, ...input } = rest as { at?: number };
  return { plan: false, event: input };
});

const encodingStore: RunStore = {
  ...createMemoryRunStore(),
  append(_runId: string, records: readonly JournalRecord[]) {
    let bytes = 0;
    for (const journalRecord of records) bytes += encodeRecord(journalRecord).length;
    if (bytes === 0) throw new Error('nothing encoded');
  },
};
const modes: Record<string, () => RunStore | undefined> = {
  'no store': () => undefined,
  'memory store': () => createMemoryRunStore(),
  'jsonl encoding': () => encodingStore,
};

async function replay(store: RunStore | undefined): Promise<number> {
  let seen = 0;
  // A fresh redactor, as a fresh cortex has (its memo starts empty).
  const redactor = createRedactor();
  const bus = new RunBus({ runId: 'run-bench', store, clock: Date.now, redactor, onEvent: () => seen++ });
  const cpu = process.cpuUsage();
  for (let index = 0; index < inputs.length; index++) {
    const input = inputs[index]!;
    if (input.plan) bus.forwardPlan(input.event as never);
    // `emit` takes its event over (it stamps it in place): hand it a fresh object, as every
    // producer does (a literal built for the call), so no replay sees an earlier one's stamps.
    else bus.emit({ ...input.event } as never);
    if (index % 20 === 19) await bus.flush();
  }
  await bus.flush();
  const used = process.cpuUsage(cpu);
  if (seen !== inputs.length) throw new Error(`listener saw ${seen} of ${inputs.length} events`);
  return used.user + used.system;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const micros = new Map<string, number[]>(Object.keys(modes).map((mode) => [mode, []]));
for (let round = 0; round < 10 + rounds; round++) {
  const order = Object.keys(modes);
  if (round % 2 === 1) order.reverse();
  for (const mode of order) {
    const used = await replay(modes[mode]!());
    if (round >= 10) micros.get(mode)!.push(used);
  }
}
console.log(`${size}-step chain: ${inputs.length} events (${(inputs.length / size).toFixed(1)} per step)`);
for (const [mode, values] of micros) {
  const us = median(values);
  console.log(
    `  ${mode.padEnd(15)}: ${(us / size).toFixed(1)} µs/step, ${(us / inputs.length).toFixed(2)} µs/event`,
  );
}
