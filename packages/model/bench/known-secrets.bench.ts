/**
 * Known-secrets micro-benchmark: redacts typical run events (a ~2 KB tool result, a model
 * response, a finding, small status events) with 20 known secrets, every string distinct (no
 * memo: the cost of the scan itself), in CPU time. Set `REDACTOR_BASELINE` to the path of another
 * `create-redactor.ts` to run it side by side, interleaved (the ratio survives a noisy machine).
 *
 * Run: `npx tsx --conditions=@closedloop/source packages/model/bench/known-secrets.bench.ts`
 * (about 10 s).
 */
import { createRedactor as createRedactorNow } from '../src/create-redactor';
import { random, words } from './bench-text';

type Create = typeof createRedactorNow;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000);
const SECRETS = Number(process.env.BENCH_SECRETS ?? 20);

const next = random(7);
const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const token = (length: number) =>
  Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');

/** `BENCH_SECRETS` (default 20) known secrets of the lengths real ones have. */
const env: Record<string, string> = {};
for (let i = 0; i < SECRETS; i++) env[`SERVICE_${i}_TOKEN`] = token(16 + ((i * 7) % 48));

const sentence = (count: number) =>
  Array.from({ length: count }, () => words[Math.floor(next() * words.length)]).join(' ');

function toolResult(n: number): string {
  const lines = [`// src/module-${n}.ts`];
  for (let i = 0; i < 12; i++)
    lines.push(`export const value${i} = await load('${words[i]}', { retries: ${i}, timeout: 30 }); // ${n}`);
  lines.push(` ✓ src/module-${n}.test.ts (4 tests) 12ms`, `commit ${token(40).toLowerCase()} sha ${n}`);
  lines.push(`npm warn config: cache=/home/user/.npm registry=https://registry.npmjs.org/ #${n}`);
  let text = lines.join('\n');
  while (text.length < 2_000) text += `\nlog: ${sentence(12)} #${n}`;
  return text;
}

function events(): unknown[] {
  const out: unknown[] = [];
  for (let n = 0; n < EVENTS; n++) {
    const kind = n % 4;
    if (kind === 0)
      out.push({ type: 'tool-call-finished', callId: `call_${n}`, status: 'success', result: toolResult(n) });
    else if (kind === 1)
      out.push({ type: 'model-call-finished', response: { text: `I will ${sentence(60)} ${n}` } });
    else if (kind === 2)
      out.push({
        type: 'step-verified',
        findings: [{ message: `Unused import ${sentence(8)} ${n}`, evidence: `src/m${n}.ts:3` }],
      });
    else
      out.push({
        type: 'step-marked',
        stepId: `s${n}`,
        status: 'in_progress',
        note: `step ${n} ${sentence(5)}`,
      });
  }
  return out;
}

function measure(create: Create, known: Record<string, string>, input: readonly unknown[]): number {
  const redactor = create({ env: known, registered: false });
  redactor.redact('warm the index up');
  // CPU time, not wall time: on a shared machine the process is descheduled now and then.
  const started = process.cpuUsage();
  for (const event of input) redactor.redactValue(event);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / input.length;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const best = (values: number[]) => Math.min(...values);
const figures = (values: number[]) =>
  `${median(values).toFixed(2)} µs/event (best ${best(values).toFixed(2)})`;

const baselinePath = process.env.REDACTOR_BASELINE;
const createBaseline = baselinePath
  ? ((await import(baselinePath)) as { createRedactor: Create }).createRedactor
  : undefined;
const input = events();
// Long keys only, and with a 10-character password among them (too short for windows: every
// text goes through the pattern of full forms).
const setups: [string, Record<string, string>][] = [
  [`${SECRETS} known secrets`, env],
  [`${SECRETS - 1} + a short password`, { ...env, SERVICE_0_TOKEN: 'hunter2-xy' }],
];
for (const [name, known] of setups) {
  const now: number[] = [];
  const before: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const a = measure(createRedactorNow, known, input);
    const b = createBaseline ? measure(createBaseline, known, input) : 0;
    if (round > 0) {
      now.push(a);
      before.push(b);
    }
  }
  console.log(
    `${name}, ${input.length} distinct events × ${ROUNDS} rounds (median, best): now ${figures(now)}` +
      (createBaseline
        ? `, baseline ${figures(before)}: ${(median(now) / median(before)).toFixed(2)}× (best ${(best(now) / best(before)).toFixed(2)}×)`
        : ''),
  );
}
const buildStarted = performance.now();
for (let i = 0; i < 10; i++)
  createRedactorNow({ env: { ...env, [`X${i}_TOKEN`]: token(24) }, registered: false }).redact('x');
console.log(
  `index build with ${SECRETS + 1} known secrets: ${((performance.now() - buildStarted) / 10).toFixed(1)} ms`,
);
