/**
 * Child process of the randomized crash trials (`cortex-crash-trials.test.ts`,
 * `bench/crash-trials.bench.ts`): runs (PHASE=run) or resumes (PHASE=resume) a planned run on a
 * fsynced JSONL store whose steps have real effects in a git workspace, and is killed by its parent
 * with SIGKILL at a random moment. The steps, planned by a scripted model (concurrency 2):
 * - `w`: `write_file notes.txt`;
 * - `e`: `edit_file log.md`, appending `- e` (applied twice, the line shows twice);
 * - `s`: `run_command sh -c 'echo s >> cmd.log'` (a shell append: run twice, two lines);
 * - `x`: claims ghost.txt without writing it — verification fails it and the replanner redesigns
 *   it into a step that writes ghost.txt;
 * - `g` (after w, e and s): `git add notes.txt log.md cmd.log`, then `git commit -m trial` (made
 *   twice, two commits);
 * then the final answer is aggregated. A question about an uncertain call is approved (printed in
 * `asked`). Prints `{ stopReason, statuses, answer, asked }`, or `{ error: code }` when refused.
 */

import { defaultAllowedPrograms, workspaceTools } from '@closedloop/tools';
import { createCortex } from '../create-cortex';
import { createJsonlRunStore } from '../jsonl-run-store';
import { lyingStep, scenarioModel, writeStep } from './scenario-model';

const env = process.env;
const root = env.ROOT!;
const step = (id: string, description: string, dependsOn: string[], tool: string) => ({
  id,
  description,
  dependsOn,
  requiredTools: [tool],
  successCriteria: [],
  protocols: [],
});
const plan = {
  title: 'crash trial',
  successCriteria: [],
  protocols: [],
  steps: [
    step('w', 'write notes.txt', [], 'write_file'),
    step('e', 'append a line to log.md', [], 'edit_file'),
    step('s', 'append s to cmd.log with the shell', [], 'run_command'),
    step('x', 'write ghost.txt', [], 'write_file'),
    step('g', 'commit notes.txt, log.md and cmd.log', ['w', 'e', 's'], 'run_command'),
  ],
};
const mark = (notes: string, claims?: Record<string, unknown>) => ({
  toolCalls: [{ name: 'mark_step', arguments: { status: 'success', notes, ...(claims ? { claims } : {}) } }],
});
const model = scenarioModel({
  plans: [plan],
  steps: {
    w: writeStep('notes.txt', 'notes of the trial\n'),
    e: [
      {
        toolCalls: [
          {
            name: 'edit_file',
            arguments: { path: 'log.md', old_string: '# log\n', new_string: '# log\n- e\n' },
          },
        ],
      },
      mark('[SUCCESS]: appended - e to log.md', { filesWritten: ['log.md'] }),
    ],
    s: [
      { toolCalls: [{ name: 'run_command', arguments: { argv: ['sh', '-c', 'echo s >> cmd.log'] } }] },
      mark('[SUCCESS]: appended s to cmd.log'),
    ],
    x: lyingStep('ghost.txt'),
    g: [
      {
        toolCalls: [
          { name: 'run_command', arguments: { argv: ['git', 'add', 'notes.txt', 'log.md', 'cmd.log'] } },
        ],
      },
      { toolCalls: [{ name: 'run_command', arguments: { argv: ['git', 'commit', '-q', '-m', 'trial'] } }] },
      mark('[SUCCESS]: committed notes.txt, log.md and cmd.log'),
    ],
    '*': writeStep('ghost.txt', 'ghost\n'),
  },
  replans: [
    { action: 'redesign', steps: [{ description: 'really write ghost.txt' }], dependencies: {} },
    { action: 'redesign', steps: [{ description: 'really write ghost.txt' }], dependencies: {} },
  ],
  answer: 'every step done',
});
const store = createJsonlRunStore({ dir: env.STORE_DIR!, durability: 'fsync' });
const asked: string[] = [];
const cortex = createCortex({
  model,
  tools: workspaceTools({ root, commands: { allow: [...defaultAllowedPrograms, 'sh'] } }),
  workspace: root,
  planning: 'always',
  concurrency: 2,
  store,
  onUncertain: 'ask',
  acceptUnverified: 'warn',
  onApproval: (request: { reason?: string }) => {
    asked.push(request.reason ?? '');
    return { approved: true, note: 'approved by the crash trial' };
  },
});
// The parent's kill clock starts here (loading the bundle takes a while on a loaded machine).
process.stderr.write('trial-started\n');
try {
  const result =
    env.PHASE === 'resume'
      ? await cortex.resume(env.RUN_ID!)
      : await cortex.run('Do the crash trial', { runId: env.RUN_ID! });
  process.stdout.write(
    JSON.stringify({
      stopReason: result.stopReason,
      reason: result.reason,
      statuses: Object.fromEntries(result.report.steps.map((s) => [s.id, s.status])),
      answer: result.answer,
      asked,
    }),
  );
} catch (error) {
  process.stdout.write(
    JSON.stringify({ error: (error as { code?: string }).code ?? String(error), message: String(error) }),
  );
} finally {
  await store.close();
}
