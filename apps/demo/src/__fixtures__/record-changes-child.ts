/**
 * Child process of the step-change recorder's kill test: records one run of step `s` in DIR
 * (workspace WS) and is killed with SIGKILL in the middle of writing the record — the file gets
 * the first half of its bytes, as when the process dies mid-write (or between the file's creation
 * and its write). Exits 0 when no record write happened.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';

const writeFileSync = fs.writeFileSync;
fs.writeFileSync = ((
  path: fs.PathOrFileDescriptor,
  data: string | NodeJS.ArrayBufferView,
  ...rest: unknown[]
) => {
  if (typeof data === 'string') {
    const fd = fs.openSync(path as fs.PathLike, 'w');
    fs.writeSync(fd, data.slice(0, Math.floor(data.length / 2)));
    process.kill(process.pid, 'SIGKILL');
  }
  return (writeFileSync as (...args: unknown[]) => void)(path, data, ...rest);
}) as typeof fs.writeFileSync;
syncBuiltinESMExports();

const { createStepChangeRecorder } = await import('../workspace-changes/step-change-recorder');
const recorder = createStepChangeRecorder({ workspace: process.env.WS!, dir: process.env.DIR! });
const event = (fields: Record<string, unknown>) => ({ runId: 'r', at: 10, ...fields }) as never;
recorder.observe(event({ type: 'step-started', stepId: 's', attempt: 0, at: 1 }));
fs.writeFileSync(`${process.env.WS!}/made.txt`, Buffer.from('made\n'));
recorder.observe(
  event({ type: 'step-finished', stepId: 's', status: 'completed', unverified: false, durationMs: 1, at: 2 }),
);
