/**
 * Deterministic step verification of a step with 1,000 ledger entries and 50 claims (file
 * claims on real files, no commands). Target: median < 5 ms.
 *
 * Run: `npx tsx --conditions=@closedloop/source bench/verify-step.bench.ts`
 */
import { Plan } from '@closedloop/plan';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { verifyStep } from '../src/verify-step';
import { snapshotWorkspace, type WorkspaceSnapshot } from '../src/workspace-snapshot';

const LEDGER = 1000;
const CLAIMS = 50;
const RUNS = 200;
const TARGET_MS = 5;

async function setup(): Promise<{ ws: TempWorkspace; plan: Plan; baseline: WorkspaceSnapshot }> {
  const files = Array.from({ length: CLAIMS }, (_, index) => `src/module-${index}.ts`);
  const ws = await createTempWorkspace({ prefix: 'closedloop-bench-', files: { 'README.md': '# bench\n' } });
  // The step's baseline, then the step's effects: 50 new modules.
  const baseline = snapshotWorkspace(ws.root);
  const plan = Plan.create({
    steps: [
      {
        id: 'big',
        description: 'write 50 modules',
        requiredTools: ['read_file', 'write_file', 'run_command'],
      },
    ],
  });
  plan.markStep('big', { status: 'in_progress' });
  for (const [index, file] of files.entries())
    await ws.write(file, `export function f${index}(x: number): number {\n  return x + ${index};\n}\n`);
  // LEDGER - 1 tool calls, then the executor's closing `mark_step` (a control call, no evidence).
  for (let index = 0; index < LEDGER - 1; index += 1) {
    const callId = `call_${index}`;
    const kind = index % 4;
    const file = files[Math.floor(index / 8) % CLAIMS] as string;
    const tool =
      kind === 0 ? 'read_file' : kind === 1 ? 'write_file' : kind === 2 ? 'list_dir' : 'run_command';
    const args =
      tool === 'write_file'
        ? { path: file, content: `export function f() {}\n`.repeat(5) }
        : tool === 'run_command'
          ? { argv: ['node', '--test', file.replace('.ts', '.test.ts')] }
          : { path: file };
    plan.recordToolCall('big', { callId, tool, args });
    // Every 48th call fails once; the next call of the same tool on the same file succeeds.
    const status = index % 48 === 1 ? 'error' : 'success';
    plan.recordToolResult('big', {
      callId,
      tool,
      status,
      ...(status === 'error' ? { error: 'EBUSY: resource busy' } : { result: `ok ${index}` }),
    });
  }
  const notes = `[SUCCESS]: wrote ${CLAIMS} modules`;
  plan.recordToolCall('big', {
    callId: 'mark',
    tool: 'mark_step',
    args: { status: 'success', notes, claims: { filesWritten: files } },
  });
  plan.recordToolResult('big', { callId: 'mark', tool: 'mark_step', status: 'success', result: notes });
  plan.markStep('big', { notes, claims: { filesWritten: files } });
  return { ws, plan, baseline };
}

const { ws, plan, baseline } = await setup();
const root = ws.root;
try {
  const times: number[] = [];
  let verdict = '';
  let lastReport: Awaited<ReturnType<typeof verifyStep>> | undefined;
  for (let run = 0; run < RUNS + 20; run += 1) {
    const started = performance.now();
    const report = await verifyStep(plan, 'big', { workspace: root, baseline });
    const ms = performance.now() - started;
    if (run >= 20) times.push(ms);
    verdict = report.verdict;
    lastReport = report;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? Number.NaN;
  const p95 = times[Math.floor(times.length * 0.95)] ?? Number.NaN;
  console.log(
    `verifyStep: ${plan.step('big').ledger.length} ledger entries, ${CLAIMS} file claims, ${RUNS} runs (after 20 warm-up)`,
  );
  console.log(`verdict: ${verdict}`);
  for (const finding of lastReport?.infrastructureErrors ?? [])
    console.log(`infrastructure error: ${finding.message}`);
  console.log(
    `median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, min ${(times[0] ?? 0).toFixed(2)} ms`,
  );
  console.log(`target median < ${TARGET_MS} ms → ${median < TARGET_MS ? 'PASS' : 'FAIL'}`);
  process.exitCode = median < TARGET_MS ? 0 : 1;

  // For information: the same step without a baseline, in a git repository (file times since the
  // step started decide; git status + diff run once per verification).
  await ws.git('init', '--quiet');
  const gitTimes: number[] = [];
  for (let run = 0; run < 40; run += 1) {
    const started = performance.now();
    await verifyStep(plan, 'big', { workspace: root });
    if (run >= 5) gitTimes.push(performance.now() - started);
  }
  gitTimes.sort((a, b) => a - b);
  console.log(
    `(info) same step without a baseline, in a git repository: median ${(gitTimes[Math.floor(gitTimes.length / 2)] ?? 0).toFixed(2)} ms (includes spawning git twice)`,
  );
} finally {
  await ws.cleanup();
}
