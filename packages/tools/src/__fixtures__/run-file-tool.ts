/**
 * Child process of the full-disk tests: runs one workspace tool (TOOL, with the JSON arguments
 * ARGS) in the workspace ROOT and prints its outcome as JSON. The test starts it under
 * `ulimit -f`, so a write past the limit is cut short and then fails, as on a full disk.
 */
import { createToolRegistry } from '../create-tool-registry';
import { workspaceTools } from '../workspace-tools';

const registry = createToolRegistry(workspaceTools({ root: process.env.ROOT! }), { redactor: false });
const outcome = await registry.execute(process.env.TOOL!, JSON.parse(process.env.ARGS!), {
  signal: new AbortController().signal,
  callId: 'c',
});
process.stdout.write(JSON.stringify(outcome));
