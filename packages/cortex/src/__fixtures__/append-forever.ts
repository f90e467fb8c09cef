/**
 * Child process of the durable-point tests: appends groups of three events to run-a (in
 * `DURABILITY` mode, default `fsync`) until it is killed, printing `appending` after the first;
 * at most ~20,000 events (a few megabytes), then it idles.
 */
import { createJsonlRunStore, type JournalDurability } from '../jsonl-run-store';
import type { RunEvent } from '../run-events';

const store = createJsonlRunStore({
  dir: process.env.STORE_DIR!,
  durability: (process.env.DURABILITY ?? 'fsync') as JournalDurability,
});
const event = (at: number): RunEvent => ({
  type: 'step-started',
  runId: 'run-a',
  at,
  stepId: `s${at}-${'x'.repeat(at % 300)}`,
  attempt: 0,
});
for (let seq = 0; ; seq += 3) {
  await store.append('run-a', [
    { seq, event: event(seq) },
    { seq: seq + 1, event: event(seq + 1) },
    { seq: seq + 2, event: event(seq + 2) },
  ]);
  if (seq === 0) process.stdout.write('appending\n');
  await new Promise((resolve) => setTimeout(resolve, seq % 30 === 0 ? 1 : 0));
  if (seq > 20_000) await new Promise(() => setInterval(() => {}, 1000));
}
