/**
 * Child process of the crash test: runs the crash world and kills itself with SIGKILL right after
 * the group commit that holds the KILL_AT-th journaled event (sync: at once; micro: after the
 * current job; immediate: after pending I/O and callbacks). Exits 0 when the run finishes first.
 */
import { createJsonlRunStore } from '../jsonl-run-store';
import type { RunStore } from '../run-store';
import { createCrashCortex } from './crash-world';

const env = process.env;
const killAt = Number(env.KILL_AT ?? '0');
const how = env.KILL_HOW ?? 'sync';
const inner = createJsonlRunStore({ dir: env.STORE_DIR!, durability: 'batch' });
let appended = 0;
const die = () => process.kill(process.pid, 'SIGKILL');
const store: RunStore = {
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
const cortex = createCrashCortex({ root: env.ROOT!, log: env.LOG!, phase: 'first', store });
const result = await cortex.run('Record every step', { runId: env.RUN_ID! });
process.stdout.write(JSON.stringify({ stopReason: result.stopReason, events: appended }));
