/**
 * Child process of the kill-point tests: runs (or, with PHASE=resume, resumes) a one-step run
 * whose step writes CONTENT to notes.txt with the real `write_file`, on a JSONL store, and kills
 * itself with SIGKILL at KILL:
 * - `mid-write:<bytes>`: in the middle of the file write — the first `<bytes>` bytes of it reach
 *   the file, then the process dies, as when the kernel stops a large write at a page boundary on
 *   a fatal signal (so a multibyte character can be cut in two);
 * - `none`: not at all.
 * Prints `{ stopReason }` when the run ends.
 */
import { open } from 'node:fs/promises';
import { workspaceTools } from '@closedloop/tools';
import { createCortex } from '../create-cortex';
import { createJsonlRunStore } from '../jsonl-run-store';
import { scenarioModel, writeStep } from './scenario-model';

const env = process.env;
const root = env.ROOT!;
const content = env.CONTENT!;
const [kill, arg] = (env.KILL ?? 'none').split(':');

if (kill === 'mid-write') {
  const probe = await open(process.execPath, 'r');
  const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
  await probe.close();
  const write = proto.write;
  const target = Buffer.from(content, 'utf8');
  proto.write = async function (this: unknown, buffer: unknown, ...rest: unknown[]) {
    if (Buffer.isBuffer(buffer) && buffer.equals(target)) {
      await write.call(this, buffer, 0, Number(arg), 0);
      process.kill(process.pid, 'SIGKILL');
      await new Promise(() => {});
    }
    return write.call(this, buffer, ...rest);
  };
}

const store = createJsonlRunStore({ dir: env.STORE_DIR!, durability: 'batch' });
const cortex = createCortex({
  model: scenarioModel({ steps: { task: writeStep('notes.txt', content) } }),
  tools: workspaceTools({ root }),
  workspace: root,
  planning: 'never',
  store,
  onUncertain: 'fail',
});
const result =
  env.PHASE === 'resume'
    ? await cortex.resume(env.RUN_ID!)
    : await cortex.run('Do the task', { runId: env.RUN_ID! });
await store.close();
process.stdout.write(JSON.stringify({ stopReason: result.stopReason }));
