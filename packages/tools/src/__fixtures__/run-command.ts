/**
 * Child process of the tests that need a runner in conditions the test process cannot have (no
 * usable cgroup): runs ARGV (JSON) in the workspace ROOT, SANDBOX mode (default required), with the resource
 * LIMITS (JSON) and TIMEOUT_MS, and prints the result as JSON.
 */
import { createCommandRunner } from '../create-command-runner';

const runner = createCommandRunner({
  root: process.env.ROOT!,
  sandbox: (process.env.SANDBOX as 'required' | 'off' | undefined) ?? 'required',
  limits: JSON.parse(process.env.LIMITS ?? '{}'),
  redactor: false,
});
const result = await runner.run(JSON.parse(process.env.ARGV!), {
  timeoutMs: Number(process.env.TIMEOUT_MS ?? 30_000),
});
process.stdout.write(JSON.stringify(result));
