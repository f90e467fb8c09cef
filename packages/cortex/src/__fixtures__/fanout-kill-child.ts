/**
 * Child process of the fan-out kill tests: runs (or, with PHASE=resume, resumes) a planned run
 * of a diamond (a, b in parallel; c after both; an aggregated answer) at concurrency 2 on a
 * JSONL store, whose steps call a non-idempotent `append` tool (one line `<step>` appended to
 * appends.txt in the workspace, after APPEND_DELAY_MS for step a). It kills itself with SIGKILL at
 * KILL:
 * - `after-event:<n>`: right after the group commit that holds the n-th event this process journals;
 * - `after-effect:<step>`: inside `append` for that step, after its line is appended and before
 *   its result is recorded (the other step of the fan-out may be in flight);
 * - `after-type:<type>/<nth>`: right after the group commit of the nth event of that type;
 * - `on-aggregate`: as the aggregator's model call for the final answer starts;
 * - `torn-journal:<n>`: in the middle of the n-th journal group write (half of it reaches the
 *   file): the journal ends in a torn line while the fan-out's other step is in flight;
 * - `in-fsync:<n>`: while the n-th group's fdatasync runs (written, not yet acknowledged);
 * - `on-approval`: while the human is asked to approve step c's append (a guard asks for it);
 * - `none`: not at all.
 * STEP_TOOL=command: the steps append with the real `run_command` (`node append.js <step>`, sandbox
 * off) instead of the custom tool. STEP_TOOL=build-b: step b instead runs `node build.js` (it rewrites
 * built.txt) and claims it passed, so its verification re-runs it while a's append may be in
 * flight. The resume's human approves every question (printed as `asked`). Prints
 * `{ stopReason, statuses, answer, asked }` when the run ends.
 */
import fs, { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScriptedModel } from '@closedloop/model/testing';
import { defineTool, workspaceTools } from '@closedloop/tools';
import { z } from 'zod';
import { aggregatorSystemPrompt } from '../aggregate-answer';
import { createCortex } from '../create-cortex';
import { plannerSystemPrompt } from '../draft-plan';
import { createJsonlRunStore } from '../jsonl-run-store';
import { createKillingStore, die, killInJournalWrite, storeKillOf } from './killing-store';
import { stepIdOf } from './scenario-model';

const env = process.env;
const root = env.ROOT!;
const [kill, arg] = (env.KILL ?? 'none').split(':');
const appendDelay = Number(env.APPEND_DELAY_MS ?? 0);

if (kill === 'torn-journal' || kill === 'in-fsync')
  killInJournalWrite({ group: Number(arg), how: kill === 'torn-journal' ? 'torn' : 'in-fsync', cut: 'half' });

const step = (id: string, dependsOn: string[]) => ({
  id,
  description: `append ${id}`,
  dependsOn,
  requiredTools: [
    env.STEP_TOOL === 'command' || (env.STEP_TOOL === 'build-b' && id === 'b') ? 'run_command' : 'append',
  ],
  successCriteria: [],
  protocols: [],
});
const plan = {
  title: 'fan-out kill test',
  successCriteria: [],
  protocols: [],
  steps: [step('a', []), step('b', []), step('c', ['a', 'b'])],
};

const inner = createJsonlRunStore({ dir: env.STORE_DIR!, durability: 'fsync' });
const store = createKillingStore(inner, storeKillOf(kill, arg));

const append = defineTool({
  name: 'append',
  description: 'Appends a line naming the step to appends.txt.',
  input: z.object({ step: z.string() }),
  idempotent: false,
  execute: async ({ step: id }) => {
    if (id === 'a' && appendDelay > 0) await new Promise((resolve) => setTimeout(resolve, appendDelay));
    appendFileSync(join(root, 'appends.txt'), `${id}\n`);
    if (kill === 'after-effect' && arg === id) {
      die();
      await new Promise(() => {});
    }
    return `appended ${id}`;
  },
});

const commands = env.STEP_TOOL === 'command';
const buildB = env.STEP_TOOL === 'build-b';
if (buildB && env.PHASE !== 'resume') {
  // 300 ms: step a's append waits for it to finish, then b's verification re-runs it meanwhile.
  fs.writeFileSync(
    join(root, 'build.js'),
    "setTimeout(() => require('fs').writeFileSync('built.txt', 'built\\n'), 300);\n",
  );
}
if (commands && env.PHASE !== 'resume') {
  fs.writeFileSync(
    join(root, 'append.js'),
    "require('fs').appendFileSync('appends.txt', process.argv[2] + '\\n');\n",
  );
}
const appendCall = (id: string) =>
  commands || (buildB && id === 'b')
    ? {
        id: `call-${id}-append`,
        name: 'run_command',
        arguments: { argv: buildB ? ['node', 'build.js'] : ['node', 'append.js', id] },
      }
    : { id: `call-${id}-append`, name: 'append', arguments: { step: id } };

const model = new ScriptedModel({
  // build-b: step a's first turn comes 100 ms late, so b's build holds the workspace first.
  latencyMs: (request) =>
    buildB && stepIdOf(request) === 'a' && !request.messages.some((message) => message.role === 'assistant')
      ? 100
      : 0,
  matchers: [
    {
      match: () => true,
      respond: (request) => {
        const system = request.messages[0]?.role === 'system' ? request.messages[0].content : '';
        if (system.startsWith(plannerSystemPrompt)) return { text: JSON.stringify(plan) };
        if (system.startsWith(aggregatorSystemPrompt)) {
          if (kill === 'on-aggregate') die();
          return { text: 'appended every step' };
        }
        const id = stepIdOf(request) ?? '?';
        const turn = request.messages.filter((message) => message.role === 'assistant').length;
        return turn === 0
          ? { toolCalls: [appendCall(id)] }
          : {
              toolCalls: [
                {
                  id: `call-${id}-mark`,
                  name: 'mark_step',
                  arguments: {
                    status: 'success',
                    notes: `[SUCCESS]: appended ${id}`,
                    ...(buildB && id === 'b'
                      ? { claims: { commandsPassed: [{ argv: ['node', 'build.js'] }] } }
                      : {}),
                  },
                },
              ],
            };
      },
    },
  ],
});
const asked: string[] = [];
const cortex = createCortex({
  model,
  tools: commands
    ? workspaceTools({ root, sandbox: 'off' })
    : buildB
      ? [append, ...workspaceTools({ root, sandbox: 'off' })]
      : [append],
  workspace: root,
  planning: 'always',
  concurrency: 2,
  store,
  onUncertain: 'ask',
  // Step c's append needs a human's approval (asked of onApproval, journaled question then answer).
  executor: {
    guard: {
      check: async ({ args }) =>
        (args as { step?: string }).step === 'c' || JSON.stringify(args).includes('"c"')
          ? { action: 'ask-human', reason: 'c appends to appends.txt' }
          : { action: 'allow' },
    },
  },
  onApproval: (request: { reason?: string }) => {
    if (kill === 'on-approval') die();
    asked.push(request.reason ?? '');
    return { approved: true, note: 'approved by the fan-out kill test' };
  },
});
try {
  const result =
    env.PHASE === 'resume'
      ? await cortex.resume(env.RUN_ID!)
      : await cortex.run('Append every step', { runId: env.RUN_ID! });
  process.stdout.write(
    JSON.stringify({
      stopReason: result.stopReason,
      statuses: Object.fromEntries(result.report.steps.map((s) => [s.id, s.status])),
      answer: result.answer,
      events: store.appended,
      asked,
    }),
  );
} catch (error) {
  process.stdout.write(JSON.stringify({ error: (error as { code?: string }).code ?? String(error) }));
} finally {
  await inner.close();
}
