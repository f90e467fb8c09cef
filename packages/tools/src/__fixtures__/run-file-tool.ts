/**
 * Child process of the full-disk and kill tests: runs one workspace tool (TOOL, with the JSON
 * arguments ARGS) in the workspace ROOT and prints its outcome as JSON. The full-disk tests start
 * it under `ulimit -f`, so a write past the limit is cut short and then fails, as on a full disk.
 * KILL_AFTER_BYTES=<n>: the first write(2) of more than `n` bytes through a file handle gets its
 * first `n` bytes to the file, then the process kills itself with SIGKILL — as when the kernel
 * stops a large write at a page boundary on a fatal signal.
 */
import { open } from 'node:fs/promises';
import { createToolRegistry } from '../create-tool-registry';
import { workspaceTools } from '../workspace-tools';

const killAfter = process.env.KILL_AFTER_BYTES;
if (killAfter !== undefined) {
  const probe = await open(process.execPath, 'r');
  const proto = Object.getPrototypeOf(probe) as { write: (...args: unknown[]) => Promise<unknown> };
  await probe.close();
  const write = proto.write;
  proto.write = async function (this: unknown, buffer: unknown, ...rest: unknown[]) {
    if (Buffer.isBuffer(buffer) && buffer.length > Number(killAfter)) {
      await write.call(this, buffer, 0, Number(killAfter), 0);
      process.kill(process.pid, 'SIGKILL');
      await new Promise(() => {});
    }
    return write.call(this, buffer, ...rest);
  };
}

const registry = createToolRegistry(workspaceTools({ root: process.env.ROOT! }), { redactor: false });
const outcome = await registry.execute(process.env.TOOL!, JSON.parse(process.env.ARGS!), {
  signal: new AbortController().signal,
  callId: 'c',
});
process.stdout.write(JSON.stringify(outcome));
