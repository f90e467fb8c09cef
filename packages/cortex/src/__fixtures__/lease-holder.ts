/**
 * Child process of the lease tests: takes the lease of RUN_ID in the JSONL store at STORE_DIR
 * (TTL TTL_MS, renewed as usual), prints `held`, and keeps it until it is killed.
 */
import { createJsonlRunStore } from '../jsonl-run-store';

const store = createJsonlRunStore({ dir: process.env.STORE_DIR! });
const lease = await store.acquireLease(process.env.RUN_ID!, {
  purpose: 'resume',
  ttlMs: Number(process.env.TTL_MS ?? '15000'),
});
process.stdout.write('held\n');
lease.signal.addEventListener('abort', () => process.stdout.write('lost\n'));
setInterval(() => {}, 1_000);
