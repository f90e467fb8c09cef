/**
 * Drain benchmark: a 100,000-step DAG with ~300,000 edges (each step depends on up to 3 random
 * earlier steps), run to completion through the public API the way a scheduler would:
 * take `readySteps()`, mark each `in_progress` then `completed`, until nothing is ready.
 *
 * Run: `pnpm bench` (or `npx tsx --conditions=@closedloop/source bench/drain.bench.ts`).
 * Target: drain < 1 s.
 */
import { Plan, type StepDraft } from '@closedloop/plan';

const STEPS = Number(process.env.BENCH_STEPS ?? 100_000);
const DEPS_PER_STEP = 3;
const DRAIN_TARGET_MS = 1_000;

/** Deterministic PRNG (mulberry32) so every run builds the same graph. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function buildDrafts(count: number): { drafts: StepDraft[]; edges: number } {
  const next = random(42);
  const drafts: StepDraft[] = [];
  let edges = 0;
  for (let index = 0; index < count; index++) {
    const deps = new Set<string>();
    for (let k = 0; k < DEPS_PER_STEP && index > 0; k++) deps.add(`n${Math.floor(next() * index)}`);
    edges += deps.size;
    drafts.push({ id: `n${index}`, description: `step ${index}`, dependsOn: [...deps] });
  }
  return { drafts, edges };
}

const { drafts, edges } = buildDrafts(STEPS);

let started = performance.now();
const plan = Plan.create({ title: 'drain benchmark', steps: drafts }, { id: 'bench' });
const buildMs = performance.now() - started;

started = performance.now();
const downstream = plan.downstreamOf('n0');
const downstreamMs = performance.now() - started;

started = performance.now();
let drained = 0;
let waves = 0;
for (let ready = plan.readySteps(); ready.length > 0; ready = plan.readySteps()) {
  waves++;
  for (const id of ready) {
    plan.markStep(id, { status: 'in_progress' });
    plan.markStep(id, { status: 'completed' });
    drained++;
  }
}
const drainMs = performance.now() - started;

const counts = plan.counts();
if (drained !== STEPS || counts.completed !== STEPS || !plan.isSettled()) {
  console.error(`FAIL: drained ${drained} of ${STEPS} steps (completed ${counts.completed})`);
  process.exit(1);
}

const pass = drainMs < DRAIN_TARGET_MS;
console.log(
  `@closedloop/plan drain benchmark (${STEPS.toLocaleString('en')} steps, ${edges.toLocaleString('en')} edges)`,
);
console.log(`  build (Plan.create, validated)   ${buildMs.toFixed(1)} ms`);
console.log(
  `  downstreamOf(root)               ${downstreamMs.toFixed(1)} ms (${downstream.length.toLocaleString('en')} steps reached)`,
);
console.log(
  `  drain (${waves} waves, ${plan.events.length.toLocaleString('en')} events)  ${drainMs.toFixed(1)} ms`,
);
console.log(`  per step (start + complete)      ${((drainMs * 1000) / STEPS).toFixed(2)} µs`);
console.log(`  target: drain < ${DRAIN_TARGET_MS} ms → ${pass ? 'PASS' : 'FAIL'}`);
process.exit(pass ? 0 : 1);
