/**
 * Child process of the full-disk store test, started under a soft `ulimit -f`: appends a small
 * group to run-a (it fits), then a large one (it does not), prints `failed <code>`, waits for a
 * line on stdin (the parent raises the limit meanwhile: space was freed), appends the large group
 * again with the same store and prints `appended` or `failed <code>`, then the events it reads back.
 */
import { createInterface } from 'node:readline';
import { createJsonlRunStore } from '../jsonl-run-store';
import type { RunEvent } from '../run-events';

const store = createJsonlRunStore({ dir: process.env.STORE_DIR!, durability: 'batch' });
const event = (at: number, request: string): RunEvent => ({
  type: 'run-started',
  runId: 'run-a',
  at,
  request,
  resumed: false,
});
const codeOf = (error: unknown) => (error as { code?: string }).code ?? String(error);
const big = Array.from({ length: 8 }, (_, index) => ({
  seq: 1 + index,
  event: event(index, 'x'.repeat(1000)),
}));

await store.append('run-a', [{ seq: 0, event: event(0, 'small') }]);
await Promise.resolve()
  .then(() => store.append('run-a', big))
  .then(
    () => process.stdout.write('appended\n'),
    (error: unknown) => process.stdout.write(`failed ${codeOf(error)}\n`),
  );
const lines = createInterface({ input: process.stdin });
await new Promise((resolve) => lines.once('line', resolve));
lines.close();
await Promise.resolve()
  .then(() => store.append('run-a', big))
  .then(
    () => process.stdout.write('appended\n'),
    (error: unknown) => process.stdout.write(`failed ${codeOf(error)}\n`),
  );
process.stdout.write(`events ${(await store.read('run-a')).length}\n`);
await store.close();
