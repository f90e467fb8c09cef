/**
 * Child process of the crash test: runs the crash world and kills itself with SIGKILL right after
 * the group commit that holds the KILL_AT-th journaled event (sync: at once; micro: after the
 * current job; immediate: after pending I/O and callbacks). Exits 0 when the run finishes first.
 * KILL_AFTER_TYPE=<type>[/<nth>]: instead, dies right after the nth event of that type reaches the
 * journal (the rest of its group never does); KILL_IN=aggregate: dies inside the final answer's
 * model call (see `createCrashCortex`).
 */
import { createJsonlRunStore } from '../jsonl-run-store';
import type { RunStore } from '../run-store';
import { createCrashCortex } from './crash-world';
import { createKillingStore, storeKillOf } from './killing-store';

const env = process.env;
const killAt = Number(env.KILL_AT ?? '0');
const how = env.KILL_HOW ?? 'sync';
const inner = createJsonlRunStore({ dir: env.STORE_DIR!, durability: 'batch' });
let appended = 0;
const die = () => process.kill(process.pid, 'SIGKILL');
const counting: RunStore = {
  read: (runId) => inner.read(runId),
  list: () => inner.list(),
  writeMeta: (runId, meta) => inner.writeMeta(runId, meta),
  readMeta: (runId) => inner.readMeta(runId),
  acquireLease: (runId, options) => inner.acquireLease(runId, options),
  async append(runId, records) {
    await inner.append(runId, records);
    const before = appended;
    appended += records.length;
    if (before >= killAt || appended < killAt) return;
    if (how === 'sync') die();
    else if (how === 'micro') queueMicrotask(die);
    else setImmediate(die);
  },
};
const store: RunStore =
  env.KILL_AFTER_TYPE === undefined
    ? counting
    : createKillingStore(inner, storeKillOf('after-type', env.KILL_AFTER_TYPE));
const cortex = createCrashCortex({
  root: env.ROOT!,
  log: env.LOG!,
  phase: 'first',
  store,
  killInAggregate: env.KILL_IN === 'aggregate',
});
const result = await cortex.run('Record every step', { runId: env.RUN_ID! });
process.stdout.write(JSON.stringify({ stopReason: result.stopReason, events: appended }));
