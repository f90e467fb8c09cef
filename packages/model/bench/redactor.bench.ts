/**
 * Redactor benchmark: deep-redacts a realistic mix of run events (the shapes `RunBus` redacts on
 * every emit: plan-created, step-marked, tool-call-started, tool-call-finished with a ~2 KB
 * result, model-call-finished with the whole response, step-verified with findings,
 * usage-recorded, step-finished). Set `REDACTOR_BASELINE` to the path of another
 * `create-redactor.ts` (an earlier version, say) to run it side by side, interleaved in one process
 * so the ratio survives a noisy machine; the two must then give the same output, event for event.
 *
 * Two workloads: `run` is 1,000 steps × 10 events (each step's own texts, repeated across its
 * events as a run repeats them); `distinct` makes every string of every event unique (nothing to
 * memoize: the cost of the scan itself).
 *
 * Run: `pnpm bench` in packages/model (or, from the repo root,
 * `npx tsx --conditions=@closedloop/source packages/model/bench/redactor.bench.ts`).
 */
import { createRedactor, registerSecret } from '@closedloop/model';
import { random, words } from './bench-text';

const baselinePath = process.env.REDACTOR_BASELINE;
const createBaseline = baselinePath
  ? ((await import(baselinePath)) as { createRedactor: typeof createRedactor }).createRedactor
  : undefined;

const STEPS = Number(process.env.BENCH_STEPS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const next = random(16);
const sentence = (count: number, salt: string): string => {
  const parts: string[] = [];
  for (let i = 0; i < count; i++) parts.push(words[Math.floor(next() * words.length)] as string);
  return `${parts.join(' ')} ${salt}`;
};

/** A ~2 KB tool result: a source file excerpt and a test log, with `:` and `=` everywhere. */
function toolResult(step: number, salt: string): string {
  const lines: string[] = [];
  lines.push(`// src/module-${step}.ts ${salt}`);
  for (let i = 0; i < 12; i++)
    lines.push(`export const value${i} = await load('${words[i]}', { retries: ${i}, timeout: 30 });`);
  lines.push(` ✓ src/module-${step}.test.ts (4 tests) 12ms`);
  lines.push(`   Test Files  1 passed (1)\n        Tests  4 passed (4)\n     Duration  ${step}ms`);
  lines.push(`npm warn config: cache=/home/user/.npm registry=https://registry.npmjs.org/ ${salt}`);
  // One result in 50 leaks something the redactor must catch.
  if (step % 50 === 0) lines.push(`DEBUG env: DB_PASSWORD=hunter2-${salt} token ghp_${'a1B2'.repeat(6)}`);
  let text = lines.join('\n');
  while (text.length < 2_000) text += `\nlog: ${sentence(12, salt)}`;
  return text;
}

/** The events of one step; `salt` makes them unique (per step, or per event for `distinct`). */
function stepEvents(step: number, saltOf: (kind: number) => string, runId: string): unknown[] {
  const stepId = `s${step}`;
  const description = `Update module ${step}: ${sentence(10, saltOf(0))}`;
  const at = 1_764_000_000_000 + step;
  const usage = { inputTokens: 1200 + step, outputTokens: 300, totalTokens: 1500 + step };
  const response = {
    text: `I will ${sentence(60, saltOf(1))}`,
    toolCalls: [{ id: `call_${step}`, name: 'write_file', args: { path: `src/module-${step}.ts` } }],
    finishReason: 'tool-calls',
    usage,
  };
  return [
    { type: 'step-marked', stepId, status: 'in_progress', runId, planId: 'p1', seq: step * 10, at },
    { type: 'step-started', stepId, attempt: 1, runId, at },
    {
      type: 'tool-call-started',
      stepId,
      callId: `call_${step}`,
      generatedId: false,
      tool: 'write_file',
      args: { path: `src/module-${step}.ts`, content: sentence(40, saltOf(2)) },
      runId,
      planId: 'p1',
      seq: step * 10 + 1,
      at,
    },
    {
      type: 'tool-call-finished',
      stepId,
      callId: `call_${step}`,
      status: 'success',
      result: toolResult(step, saltOf(3)),
      runId,
      planId: 'p1',
      seq: step * 10 + 2,
      at,
    },
    {
      type: 'model-call-finished',
      stepId,
      iteration: 1,
      purpose: 'turn',
      usage,
      finishReason: 'tool-calls',
      toolCalls: 1,
      durationMs: 812.5,
      response,
      runId,
      at,
    },
    {
      type: 'usage-recorded',
      purpose: 'step',
      stepId,
      usage,
      costUsd: 0.0031,
      provider: 'openai',
      modelId: 'gpt-4.1-mini',
      responseId: `resp_${step}`,
      finishReason: 'tool-calls',
      durationMs: 812.5,
      runId,
      at,
    },
    {
      type: 'step-verified',
      stepId,
      verification: {
        verdict: 'success-with-warnings',
        confidence: 0.82,
        checks: [
          { name: 'file-exists', status: 'pass', detail: `src/module-${step}.ts exists` },
          { name: 'tests', status: 'pass', detail: `npm test: 4 passed ${saltOf(4)}` },
        ],
        findings: [
          {
            severity: 'P2',
            check: 'lint',
            message: `Unused import in src/module-${step}.ts: ${sentence(8, saltOf(5))}`,
            evidence: `src/module-${step}.ts:3: import { unused } from './unused';`,
          },
          { severity: 'P3', check: 'style', message: description, evidence: 'line 12' },
        ],
        summary: `Verified: ${description}`,
      },
      runId,
      planId: 'p1',
      seq: step * 10 + 3,
      at,
    },
    {
      type: 'step-finished',
      stepId,
      status: 'completed',
      verdict: 'success-with-warnings',
      unverified: false,
      confidence: 0.82,
      attempts: 1,
      durationMs: 1500,
      runId,
      at,
    },
    { type: 'step-marked', stepId, status: 'completed', runId, planId: 'p1', seq: step * 10 + 4, at },
    {
      type: 'steps-added',
      added: [{ id: `s${step}b`, description, dependsOn: [stepId], status: 'pending', notes: [] }],
      insertAt: step,
      runId,
      planId: 'p1',
      seq: step * 10 + 5,
      at,
    },
  ];
}

function workload(kind: 'run' | 'distinct'): unknown[] {
  const events: unknown[] = [
    {
      type: 'plan-created',
      title: 'Fan-out',
      goal: 'Update every module',
      steps: Array.from({ length: 20 }, (_, i) => ({ id: `s${i}`, description: `Update module ${i}` })),
      runId: 'run-1',
      planId: 'p1',
      seq: 0,
      at: 1_764_000_000_000,
    },
  ];
  let counter = 0;
  for (let step = 1; step < STEPS; step++) {
    const saltOf =
      kind === 'run' ? (_kind: number) => `#${step}` : (_kind: number) => `#${step}.${counter++}`;
    events.push(...stepEvents(step, saltOf, 'run-1'));
  }
  return events;
}

// What a real run has: the provider's key registered, a developer's environment.
const apiKey = 'sk-bench-Zq8Lm3Vx9Tp2Rk7Wn4Hs6Yd1';
registerSecret(apiKey);
const env = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/home/user',
  OPENAI_API_KEY: apiKey,
  GITHUB_TOKEN: `ghp_${'Xy9Z'.repeat(9)}`,
  NODE_ENV: 'development',
};

interface Result {
  usPerEvent: number;
  out: unknown[];
}

function measure(redactValue: (value: unknown) => unknown, events: readonly unknown[]): Result {
  const out: unknown[] = new Array(events.length);
  const started = performance.now();
  for (let i = 0; i < events.length; i++) out[i] = redactValue(events[i]);
  return { usPerEvent: ((performance.now() - started) * 1000) / events.length, out };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

for (const kind of ['run', 'distinct'] as const) {
  const events = workload(kind);
  const before: number[] = [];
  const after: number[] = [];
  // Round 0 warms both up and is not counted; then they take turns going first.
  for (let round = 0; round <= ROUNDS; round++) {
    // A fresh redactor per round, as a fresh run gets: no memo carried from the previous round.
    const old = createBaseline?.({ env });
    const now = createRedactor({ env });
    const baseline = () => (old ? measure((value) => old.redactValue(value), events) : undefined);
    let a: Result | undefined;
    let b: Result;
    if (round % 2 === 0) {
      a = baseline();
      b = measure((value) => now.redactValue(value), events);
    } else {
      b = measure((value) => now.redactValue(value), events);
      a = baseline();
    }
    if (round > 0) {
      if (a) before.push(a.usPerEvent);
      after.push(b.usPerEvent);
    }
    if (round === 0) {
      const output = JSON.stringify(b.out);
      if (output.includes(apiKey) || output.includes('hunter2-'))
        throw new Error(`${kind}: a secret survived`);
      if (a && JSON.stringify(a.out) !== output) throw new Error(`${kind}: the baseline's output differs`);
    }
  }
  const now = median(after);
  const compared =
    before.length > 0
      ? `; baseline ${median(before).toFixed(1)} µs/event (baseline ÷ this one: ${(median(before) / now).toFixed(2)})`
      : '';
  console.log(
    `redactValue ${kind.padEnd(8)} ${events.length} events × ${ROUNDS} rounds: ${now.toFixed(1)} µs/event${compared}`,
  );
}
