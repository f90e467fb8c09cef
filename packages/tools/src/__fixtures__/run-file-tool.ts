/**
 * Child process of the full-disk and kill tests: runs one workspace tool (TOOL, with the JSON
 * arguments ARGS) in the workspace ROOT and prints its outcome as JSON. The full-disk tests start
 * it under `ulimit -f`, so a write past the limit is cut short and then fails, as on a full disk.
 * KILL_AFTER_BYTES=<n>: the first write(2) of more than `n` bytes through a file descriptor gets
 * its first `n` bytes to the file, then the process kills itself with SIGKILL — as when the kernel
 * stops a large write at a page boundary on a fatal signal.
 */
import { createToolRegistry } from '../create-tool-registry';
import { Descriptor } from '../open-beneath';
import { workspaceTools } from '../workspace-tools';

const killAfter = process.env.KILL_AFTER_BYTES;
if (killAfter !== undefined) {
  const write = Descriptor.prototype.write;
  Descriptor.prototype.write = function (this: Descriptor, buffer, offset, length, position) {
    if (length > Number(killAfter)) {
      write.call(this, buffer, offset, Number(killAfter), position);
      process.kill(process.pid, 'SIGKILL');
    }
    return write.call(this, buffer, offset, length, position);
  };
}

const registry = createToolRegistry(workspaceTools({ root: process.env.ROOT! }), { redactor: false });
const outcome = await registry.execute(process.env.TOOL!, JSON.parse(process.env.ARGS!), {
  signal: new AbortController().signal,
  callId: 'c',
});
process.stdout.write(JSON.stringify(outcome));
