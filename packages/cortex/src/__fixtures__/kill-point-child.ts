/**
 * Child process of the kill-point tests: runs (or, with PHASE=resume, resumes) a one-step run
 * whose step writes CONTENT to notes.txt with the real `write_file`, on a JSONL store, and kills
 * itself with SIGKILL at KILL:
 * - `mid-write:<bytes>`: in the middle of the file write — the first `<bytes>` bytes of it reach
 *   the file being written (the temporary file `write_file` renames into place), then the process dies, as when the kernel stops a large write at a page boundary on
 *   a fatal signal (so a multibyte character can be cut in two);
 * - `torn-journal:<n>`: in the middle of the n-th journal group write (inside a multibyte
 *   character when the group has one): the journal ends in a torn line; `torn-journal:0`: in the
 *   middle of the journal's header line;
 * - `in-fsync:<n>`: as the n-th group's write returns (`in-fsync:0`: the header's: a journal of
 *   only its header);
 * - `after-meta`: right after the run's metadata is written, before anything is journaled;
 * - `after-event:<n>`: right after the group commit that holds the n-th event this process
 *   journals (in either phase: a resume can be killed too);
 * - `after-effect`: inside the `commit` tool, after its `git commit` and before its result is
 *   recorded (WORLD=commit); `before-effect`: inside it, before its `git commit`;
 * - `after-type:<type>[/<nth>]`: right after the group commit of the nth event of that type (the
 *   events after it in the same group are not journaled);
 * - `on-spawn`: as the `run_command` process starts (WORLD=command), before its pid is journaled;
 * - `mid-command`: once the command's first line is in out.txt, while it waits to write the rest
 *   (WORLD=command, HALF=1);
 * - `after-command`: as `run_command` returns, once its process has ended, before its result is
 *   recorded (WORLD=command);
 * - `none`: not at all.
 * WORLD=files (default): the step first writes notes.txt, then edits log.txt (`# log\n` → `# log\n- a\n`: applied twice,
 * the line shows twice). WORLD=commit: the step commits what is staged with a non-idempotent
 * `commit` tool (a `git commit`: only `.git` changes). WORLD=replan: the step claims ghost.txt without
 * writing it, fails verification and is redesigned; the new step does the files world's work with
 * ghost.txt for notes.txt; the resume's human approves every question
 * and the questions are printed as `asked`. Prints `{ stopReason, events }` when the run ends, `{ error: code }` when it is refused.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { createCommandRunner, defineTool, workspaceTools } from '@closedloop/tools';
import { z } from 'zod';
import { createCortex } from '../create-cortex';
import { createJsonlRunStore } from '../jsonl-run-store';
import { createKillingStore, killInJournalWrite, storeKillOf } from './killing-store';
import { lyingStep, scenarioModel } from './scenario-model';

const env = process.env;
// CLOCK_OFFSET_MS: this process's wall clock reads that much off (a clock that jumped).
if (env.CLOCK_OFFSET_MS !== undefined) {
  const now = Date.now;
  const offset = Number(env.CLOCK_OFFSET_MS);
  Date.now = () => now() + offset;
}
const root = env.ROOT!;
// KILL_AFTER_MS: the process also dies that long after it started, wherever it is then.
if (env.KILL_AFTER_MS !== undefined)
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), Number(env.KILL_AFTER_MS)).unref();
const content = env.CONTENT!;
const [kill, arg] = (env.KILL ?? 'none').split(':');

// The n-th journal group write gets part of the way — cut inside a multibyte character when the
// group has one — then the process dies: a torn last line, as a kill mid-write(2) leaves.
if (kill === 'torn-journal') killInJournalWrite({ group: Number(arg), how: 'torn', cut: 'in-multibyte' });
if (kill === 'in-fsync') killInJournalWrite({ group: Number(arg), how: 'in-fsync' });

if (kill === 'mid-write') {
  // Every write(2) through node:fs, ESM named imports included (synced below): the file tools
  // write the content with one `writeSync` on the temporary file's descriptor.
  const write = fs.writeSync;
  const target = Buffer.from(content, 'utf8');
  (fs as { writeSync: (...args: unknown[]) => number }).writeSync = (
    fd: unknown,
    buffer: unknown,
    ...rest: unknown[]
  ) => {
    if (Buffer.isBuffer(buffer) && buffer.equals(target)) {
      write(fd as number, buffer, 0, Number(arg), 0);
      process.kill(process.pid, 'SIGKILL');
    }
    return (write as (...args: unknown[]) => number)(fd, buffer, ...rest);
  };
  syncBuiltinESMExports();
}

const inner = createJsonlRunStore({ dir: env.STORE_DIR!, durability: 'batch' });
const store = createKillingStore(inner, storeKillOf(kill, arg), {
  // HOLD_UNTIL: the holder waits for that file before it goes on, so a second resumer started
  // alongside it surely finds the run leased, however the two processes are scheduled.
  onLease: async () => {
    const hold = env.HOLD_UNTIL;
    for (let waited = 0; hold !== undefined && !fs.existsSync(hold) && waited < 30_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  },
});
const commit = defineTool({
  name: 'commit',
  description: 'Commits what is staged (git commit).',
  input: z.object({ message: z.string() }),
  destructive: true,
  execute: ({ message }) => {
    if (kill === 'before-effect') process.kill(process.pid, 'SIGKILL');
    execFileSync('git', ['commit', '-q', '-m', message], { cwd: root, stdio: 'ignore' });
    if (kill === 'after-effect') process.kill(process.pid, 'SIGKILL');
    return 'committed';
  },
});
const asked: string[] = [];
const commitWorld = {
  model: scenarioModel({
    steps: {
      task: [
        { toolCalls: [{ name: 'commit', arguments: { message: 'record' } }] },
        {
          toolCalls: [{ name: 'mark_step', arguments: { status: 'success', notes: '[SUCCESS]: committed' } }],
        },
      ],
    },
  }),
  tools: [...workspaceTools({ root }), commit],
  onUncertain: 'ask' as const,
  acceptUnverified: 'warn' as const,
  onApproval: (request: { reason?: string }) => {
    asked.push(request.reason ?? '');
    return { approved: true, note: 'approved by the kill-point test' };
  },
};
const replanWorld = {
  model: scenarioModel({
    steps: {
      // Claims ghost.txt without writing it: verification fails it, the replanner redesigns it.
      task: lyingStep('ghost.txt'),
      '*': [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'ghost.txt', content } }] },
        {
          toolCalls: [
            {
              name: 'edit_file',
              arguments: { path: 'log.txt', old_string: '# log\n', new_string: '# log\n- a\n' },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: 'mark_step',
              arguments: {
                status: 'success',
                notes: '[SUCCESS]: wrote ghost.txt and edited log.txt',
                claims: { filesWritten: ['ghost.txt', 'log.txt'] },
              },
            },
          ],
        },
      ],
    },
    replans: [{ action: 'redesign', steps: [{ description: 'really write ghost.txt' }], dependencies: {} }],
  }),
  tools: workspaceTools({ root }),
  onUncertain: 'fail' as const,
};
const filesWorld = {
  model: scenarioModel({
    steps: {
      task: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content } }] },
        {
          toolCalls: [
            {
              name: 'edit_file',
              arguments: { path: 'log.txt', old_string: '# log\n', new_string: '# log\n- a\n' },
            },
          ],
        },
        {
          toolCalls: [
            {
              name: 'mark_step',
              arguments: {
                status: 'success',
                notes: '[SUCCESS]: wrote notes.txt and edited log.txt',
                claims: { filesWritten: ['notes.txt', 'log.txt'] },
              },
            },
          ],
        },
      ],
    },
  }),
  tools: workspaceTools({ root }),
  // ON_UNCERTAIN=ask: the resume's human is asked (printed as `asked`); APPROVE=0: they say no.
  onUncertain: (env.ON_UNCERTAIN ?? 'fail') as 'fail' | 'ask',
  onApproval: (request: { reason?: string }) => {
    asked.push(request.reason ?? '');
    return { approved: env.APPROVE !== '0', note: 'decided by the kill-point test' };
  },
};
// WORLD=command: the step runs a command that writes out.txt after COMMAND_DELAY_MS (from a
// process that left the command's process group with DETACH=1), then marks itself done. The
// resume's human approves every question (printed as `asked`). SANDBOX: the command tools' sandbox mode.
// KILL=on-spawn: the process dies as the command's process starts, before its pid is journaled.
const delay = Number(env.COMMAND_DELAY_MS ?? 2000);
// HALF=1: the command first writes a line `started`, then `x` after the delay: killed in between,
// it has done half of what it was for.
if (env.WORLD === 'command' && env.PHASE !== 'resume') {
  fs.writeFileSync(
    `${root}/writer.js`,
    `${env.HALF === '1' ? "require('fs').appendFileSync('out.txt', 'started\\n');\n" : ''}setTimeout(() => require('fs').appendFileSync('out.txt', 'x\\n'), ${delay});\n`,
  );
  fs.writeFileSync(
    `${root}/detach.js`,
    "require('child_process').spawn(process.execPath, ['writer.js'], { detached: true, stdio: 'ignore' }).unref();\n",
  );
}
const commandScript = env.DETACH === '1' ? 'detach.js' : 'writer.js';
if (env.WORLD === 'command' && kill === 'mid-command') {
  const poll = setInterval(() => {
    if (fs.existsSync(`${root}/out.txt`)) process.kill(process.pid, 'SIGKILL');
  }, 5);
  poll.unref();
}
const commandTools = workspaceTools({ root, sandbox: (env.SANDBOX ?? 'auto') as 'auto' | 'off' }).map(
  (tool) =>
    tool.name !== 'run_command' || (kill !== 'on-spawn' && kill !== 'after-command')
      ? tool
      : {
          ...tool,
          execute: async (input: unknown, context: Parameters<typeof tool.execute>[1]) => {
            const result = await tool.execute(input, {
              ...context,
              ...(kill === 'on-spawn'
                ? {
                    onProcess: () => {
                      process.kill(process.pid, 'SIGKILL');
                    },
                  }
                : {}),
            });
            if (kill === 'after-command') process.kill(process.pid, 'SIGKILL');
            return result;
          },
        },
);
const commandWorld = {
  model: scenarioModel({
    steps: {
      task: [
        { toolCalls: [{ name: 'run_command', arguments: { argv: ['node', commandScript] } }] },
        {
          toolCalls: [{ name: 'mark_step', arguments: { status: 'success', notes: '[SUCCESS]: ran it' } }],
        },
      ],
    },
  }),
  tools: commandTools,
  onUncertain: 'ask' as const,
  acceptUnverified: 'warn' as const,
  onApproval: (request: { reason?: string }) => {
    asked.push(request.reason ?? '');
    return { approved: true, note: 'approved by the kill-point test' };
  },
};
// WORLD=verify: the step runs `node slowtest.js` (the package's test script: it appends a line to
// artifact.txt after 100 ms, or after COMMAND_DELAY_MS when it finds and removes a file `slow`) and claims it
// passed; the verifier re-runs it through the cortex's runner. KILL=on-verify-spawn: the process
// creates `slow`, then dies as the verifier's re-run of slowtest.js starts (slow, then).
if (env.WORLD === 'verify' && env.PHASE !== 'resume') {
  fs.writeFileSync(
    `${root}/slowtest.js`,
    `const fs = require('fs');\nconst slow = fs.existsSync('slow');\nif (slow) fs.unlinkSync('slow');\nsetTimeout(() => fs.appendFileSync('artifact.txt', 'x\\n'), slow ? ${delay} : 100);\n`,
  );
  fs.writeFileSync(`${root}/package.json`, '{"name":"w","scripts":{"test":"node slowtest.js"}}\n');
}
const verifierRunner = createCommandRunner({ root, sandbox: (env.SANDBOX ?? 'auto') as 'auto' | 'off' });
const verifyWorld = {
  model: scenarioModel({
    steps: {
      task: [
        { toolCalls: [{ name: 'run_command', arguments: { argv: ['node', 'slowtest.js'] } }] },
        {
          toolCalls: [
            {
              name: 'mark_step',
              arguments: {
                status: 'success',
                notes: '[SUCCESS]: ran slowtest.js',
                claims: { commandsPassed: [{ argv: ['node', 'slowtest.js'] }] },
              },
            },
          ],
        },
      ],
    },
  }),
  tools: workspaceTools({ root, runner: verifierRunner }),
  runner:
    kill === 'on-verify-spawn'
      ? {
          ...verifierRunner,
          run: (argv: readonly string[], options: Parameters<typeof verifierRunner.run>[1]) => {
            if (!argv.includes('slowtest.js')) return verifierRunner.run(argv, options);
            fs.writeFileSync(`${root}/slow`, '');
            return verifierRunner.run(argv, {
              ...options,
              onSpawn: () => {
                process.kill(process.pid, 'SIGKILL');
              },
            });
          },
        }
      : verifierRunner,
  onUncertain: 'fail' as const,
};
const cortex = createCortex({
  ...(env.WORLD === 'commit'
    ? commitWorld
    : env.WORLD === 'replan'
      ? replanWorld
      : env.WORLD === 'command'
        ? commandWorld
        : env.WORLD === 'verify'
          ? verifyWorld
          : filesWorld),
  workspace: root,
  planning: 'never',
  store,
});
try {
  const result =
    env.PHASE === 'resume'
      ? await cortex.resume(env.RUN_ID!)
      : await cortex.run('Do the task', { runId: env.RUN_ID! });
  process.stdout.write(
    JSON.stringify({
      stopReason: result.stopReason,
      events: store.appended,
      asked,
      timings: result.report.timings,
      stepDurations: result.report.steps.map((step) => step.durationMs),
    }),
  );
} catch (error) {
  // A refusal (a typed CortexError) is an answer too: print its code.
  process.stdout.write(JSON.stringify({ error: (error as { code?: string }).code ?? String(error) }));
} finally {
  await inner.close();
}
