import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ModelError } from '@closedloop/model';
import type { PlanSnapshot } from '@closedloop/plan';
import { workspaceTools } from '@closedloop/tools';
import { processScopeVariable } from '@closedloop/tools/internal';
import { createTempWorkspace, isProcessRunning, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { failStep, lyingStep, scenarioModel, writeStep } from './__fixtures__/scenario-model';
import { CortexError } from './cortex-error';
import { type CortexOptions, createCortex } from './create-cortex';
import { verificationScopeOf } from './leftover-processes';
import type { RunEvent } from './run-events';
import { createMemoryRunStore } from './run-store';
import type { StepTask, StepTaskRunner } from './step-task';

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});

const step = (id: string, dependsOn: string[] = []) => ({
  id,
  description: `write ${id}.txt`,
  dependsOn,
  requiredTools: [],
  successCriteria: [],
  protocols: [],
});

const plan = {
  title: 'four files',
  successCriteria: [],
  protocols: [],
  steps: [step('a'), step('b'), step('c', ['a', 'b']), step('d', ['c'])],
};

function scenario() {
  return scenarioModel({
    plans: [plan],
    steps: {
      a: writeStep('a.txt', 'A'),
      b: writeStep('b.txt', 'B'),
      c: writeStep('c.txt', 'C'),
      d: writeStep('d.txt', 'D'),
    },
    answer: 'Wrote four files.',
  });
}

async function world(): Promise<{
  ws: TempWorkspace;
  options: (model: CortexOptions['model']) => CortexOptions;
}> {
  const ws = await createTempWorkspace({ git: true, files: { 'README.md': '# x\n' } });
  workspaces.push(ws);
  return {
    ws,
    options: (model) => ({
      model,
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: 'always',
    }),
  };
}

/** What must be equal between a local and a remote run: the plan without times. */
function comparable(snapshot: PlanSnapshot | null) {
  return snapshot?.steps.map((entry) => ({
    id: entry.id,
    status: entry.status,
    notes: entry.notes,
    claims: entry.claims,
    ledger: entry.ledger.map(({ tool, args, status, result }) => ({ tool, args, status, result })),
    verdict: entry.verification?.verdict,
    findings: entry.verification?.findings.map(({ check, status }) => ({ check, status })),
  }));
}

/** A runner that runs every step in a second cortex ("another process") and adopts its events. */
function remoteRunner(worker: ReturnType<typeof createCortex>, seen: StepTask[] = []): StepTaskRunner {
  return async (task) => {
    seen.push(task);
    await task.journaled();
    const snapshot = JSON.parse(JSON.stringify(task.snapshot())) as PlanSnapshot;
    const journaled: RunEvent[] = [];
    const { outcome, events, modelUnavailable } = await worker.runStep({
      runId: task.runId,
      request: task.request,
      stepId: task.stepId,
      plan: snapshot,
      signal: task.signal,
      journal: (event) => {
        journaled.push(JSON.parse(JSON.stringify(event)));
      },
    });
    expect(journaled).toEqual(JSON.parse(JSON.stringify(events)));
    task.adopt(journaled, modelUnavailable !== undefined ? { modelUnavailable } : {});
    return JSON.parse(JSON.stringify(outcome));
  };
}

describe('stepRunner: steps run in another cortex and are adopted', () => {
  it('ends in the same plan state, journal and answer as a run in one process', async () => {
    const local = await world();
    const here = await createCortex(local.options(scenario())).run('write four files', { runId: 'run-here' });

    const remote = await world();
    const worker = createCortex(remote.options(scenario()));
    const store = createMemoryRunStore();
    const tasks: StepTask[] = [];
    const coordinator = createCortex({
      ...remote.options(scenario()),
      store,
      stepRunner: remoteRunner(worker, tasks),
    });
    const there = await coordinator.run('write four files', { runId: 'run-there' });

    expect(there.stopReason).toBe('completed');
    expect(there.stopReason).toBe(here.stopReason);
    expect(there.answer).toBe(here.answer);
    expect(comparable(there.plan)).toEqual(comparable(here.plan));
    expect(await remote.ws.read('d.txt')).toBe('D');
    expect(tasks.map((task) => task.stepId).sort()).toEqual(['a', 'b', 'c', 'd']);
    // The journal replays into the same plan, and has every event type a local run journals.
    const journal = await store.read('run-there');
    const types = (events: readonly { type: string }[]) =>
      [...new Set(events.map((event) => event.type))].sort();
    const localStore = createMemoryRunStore();
    await createCortex({ ...local.options(scenario()), store: localStore }).run('write four files', {
      runId: 'run-again',
    });
    expect(types(journal)).toEqual(types(await localStore.read('run-again')));
    expect(there.report.usage.calls).toBe(here.report.usage.calls);
    expect(there.report.ledger).toEqual(here.report.ledger);
  });

  it('keeps the times the remote step recorded', async () => {
    const remote = await world();
    let now = 1_000_000;
    const worker = createCortex({ ...remote.options(scenario()), clock: () => (now += 7) });
    const coordinator = createCortex({
      ...remote.options(scenario()),
      clock: () => 5_000_000,
      stepRunner: remoteRunner(worker),
    });
    const result = await coordinator.run('write four files');
    const calls = result.plan!.steps.flatMap((entry) => entry.ledger);
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      expect(call.calledAt).toBeLessThan(5_000_000);
      expect(call.respondedAt).toBeGreaterThan(call.calledAt);
    }
  });

  it('replans a step that failed remotely, like a local failure', async () => {
    const remote = await world();
    const model = scenarioModel({
      plans: [{ ...plan, steps: [step('a')] }],
      steps: { a: lyingStep('a.txt'), '*': writeStep('a.txt', 'A') },
      replans: [{ action: 'redesign', steps: [{ description: 'write a.txt for real' }], dependencies: {} }],
    });
    const worker = createCortex(remote.options(model));
    const coordinator = createCortex({ ...remote.options(model), stepRunner: remoteRunner(worker) });
    const result = await coordinator.run('write a file');
    expect(result.stopReason).toBe('completed');
    expect(result.report.replans).toMatchObject([{ failed: ['a'], action: 'redesign' }]);
    const added = result.plan!.steps;
    expect(added.map((entry) => [entry.status, entry.replaces])).toEqual([['completed', ['a']]]);
  });

  it('a worker that cannot reach the model stops the run model-unavailable, as a local step does', async () => {
    const down = () => ({
      error: new ModelError({
        code: 'network',
        message: 'connect ECONNREFUSED 127.0.0.1:1',
        isRetryable: false,
        provider: 'scripted',
      }),
    });
    const model = () =>
      scenarioModel({
        plans: [plan],
        steps: { a: writeStep('a.txt', 'A'), b: writeStep('b.txt', 'B'), c: down },
      });
    const local = await world();
    const here = await createCortex(local.options(model())).run('write four files');
    const remote = await world();
    const worker = createCortex(remote.options(model()));
    const coordinator = createCortex({ ...remote.options(model()), stepRunner: remoteRunner(worker) });
    const there = await coordinator.run('write four files');
    expect(here.stopReason).toBe('model-unavailable');
    expect(there.stopReason).toBe('model-unavailable');
    expect(there.reason).toBe(here.reason);
    expect(there.reason).toContain('ECONNREFUSED');
    expect(comparable(there.plan)).toEqual(comparable(here.plan));
  });

  it('counts remote usage against the run budget', async () => {
    const remote = await world();
    const model = scenarioModel({ plans: [plan], steps: { '*': failStep('no') } });
    const worker = createCortex(remote.options(model));
    const coordinator = createCortex({
      ...remote.options(model),
      budget: { maxTokens: 1 },
      stepRunner: remoteRunner(worker),
    });
    const result = await coordinator.run('write four files');
    expect(result.stopReason).toBe('budget-exhausted');
  });

  it('executionId is stable when a resumed run re-runs an interrupted step', async () => {
    const remote = await world();
    const store = createMemoryRunStore();
    const controller = new AbortController();
    const first: string[] = [];
    const interrupted = createCortex({
      ...remote.options(scenario()),
      store,
      stepRunner: async (task) => {
        first.push(task.executionId);
        if (task.stepId === 'c') {
          controller.abort(new Error('coordinator stops'));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        return task.runHere();
      },
    });
    const stopped = await interrupted.run('write four files', { runId: 'run-x', signal: controller.signal });
    expect(stopped.stopReason).toBe('cancelled');
    const second: string[] = [];
    const resumed = await createCortex({
      ...remote.options(scenario()),
      store,
      stepRunner: (task) => {
        second.push(task.executionId);
        return task.runHere();
      },
    }).resume('run-x');
    expect(resumed.stopReason).toBe('completed');
    const cFirst = first.find((id) => id.startsWith('c@'));
    expect(cFirst).toBeDefined();
    expect(second).toContain(cFirst);
    expect(new Set([...first, ...second]).size).toBe(4);
  });

  it("a continued step stops what its killed attempt's verification left running, not a sibling step's", async () => {
    const remote = await world();
    const worker = createCortex(remote.options(scenario()));
    /** A process as a step's verification starts it (a test re-run), outliving its worker. */
    const verifying = (stepId: string) => {
      const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], {
        detached: true,
        stdio: 'ignore',
        env: { ...process.env, [processScopeVariable]: verificationScopeOf('run-v', remote.ws.root, stepId) },
      });
      child.unref();
      return child.pid!;
    };

    const pids: number[] = [];
    let seen: { leftover: boolean; sibling: boolean } | undefined;
    const result = await createCortex({
      ...remote.options(scenario()),
      stepRunner: async (task) => {
        if (task.stepId !== 'a') return task.runHere();
        await task.journaled();
        const snapshot = JSON.parse(JSON.stringify(task.snapshot())) as PlanSnapshot;
        const input = { runId: task.runId, request: task.request, stepId: task.stepId, plan: snapshot };
        // The first attempt's worker died after its first event; its verification left a process.
        const first: RunEvent[] = [];
        await worker.runStep({
          ...input,
          journal: (event) => void first.push(JSON.parse(JSON.stringify(event))),
        });
        const history = first.slice(0, 1);
        const leftover = verifying('a');
        const sibling = verifying('b');
        pids.push(leftover, sibling);
        const continued: RunEvent[] = [];
        const { outcome } = await worker.runStep({
          ...input,
          history,
          journal: (event) => void continued.push(JSON.parse(JSON.stringify(event))),
        });
        seen = { leftover: isProcessRunning(leftover), sibling: isProcessRunning(sibling) };
        task.adopt([...history, ...continued]);
        return JSON.parse(JSON.stringify(outcome));
      },
    }).run('write four files', { runId: 'run-v' });
    try {
      expect(result.stopReason).toBe('completed');
      expect(seen).toEqual({ leftover: false, sibling: true });
    } finally {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {}
      }
    }
  });

  it('adopt refuses events of another step or of the run, and changes nothing', async () => {
    const remote = await world();
    const errors: unknown[] = [];
    const coordinator = createCortex({
      ...remote.options(scenario()),
      stepRunner: async (task) => {
        const foreign = { type: 'step-started', runId: task.runId, at: 1, stepId: task.stepId, attempt: 0 };
        const other = {
          type: 'guard-decided',
          runId: task.runId,
          at: 1,
          stepId: 'zz',
          callId: 'x',
          tool: 't',
        };
        for (const events of [[foreign], [other]]) {
          try {
            task.adopt(events as RunEvent[]);
          } catch (error) {
            errors.push(error);
          }
        }
        return task.runHere();
      },
    });
    const result = await coordinator.run('write four files');
    expect(result.stopReason).toBe('completed');
    expect(errors).toHaveLength(8);
    for (const error of errors) {
      expect(CortexError.isInstance(error) && error.code).toBe('invalid-step-task');
    }
  });

  it('runStep refuses a snapshot whose step is not in progress', async () => {
    const remote = await world();
    const worker = createCortex(remote.options(scenario()));
    await expect(
      worker.runStep({ runId: 'run-1', request: 'x', stepId: 'a', plan: { nope: true } }),
    ).rejects.toMatchObject({ code: 'invalid-step-task' });
  });

  it("hands a group's events to the journal back to back, and runs no tool before they are on record", async () => {
    const coordinatorSide = await world();
    let snapshot: PlanSnapshot | undefined;
    const coordinator = createCortex({
      ...coordinatorSide.options(scenario()),
      stepRunner: async (task) => {
        snapshot ??= task.snapshot();
        return task.runHere();
      },
    });
    await coordinator.run('write four files');
    const fresh = {
      ...snapshot!,
      steps: snapshot!.steps.map((entry) => ({ ...entry, status: 'in_progress' as const, ledger: [] })),
    };
    const stepId = fresh.steps[0]!.id;
    const remote = await world();
    const worker = createCortex(remote.options(scenario()));
    const written = join(remote.ws.root, `${stepId}.txt`);
    const received: { event: RunEvent; group: number; onRecord: boolean; fileThen: boolean }[] = [];
    let group = 0;
    let groupOpen = false;
    let outstanding = 0;
    let mostOutstanding = 0;
    const { outcome, events } = await worker.runStep({
      runId: 'run-1',
      request: 'write four files',
      stepId,
      plan: fresh,
      journal: (event) => {
        // A group is handed over in one go (synchronously): a new one starts after a microtask.
        if (!groupOpen) {
          group++;
          groupOpen = true;
          queueMicrotask(() => {
            groupOpen = false;
          });
        }
        // Every event of the earlier groups is on record before the next group comes.
        expect(received.filter((earlier) => !earlier.onRecord && earlier.group !== group)).toEqual([]);
        const entry = { event, group, onRecord: false, fileThen: existsSync(written) };
        received.push(entry);
        outstanding++;
        mostOutstanding = Math.max(mostOutstanding, outstanding);
        return new Promise<void>((resolve) =>
          setTimeout(() => {
            entry.onRecord = true;
            outstanding--;
            resolve();
          }, 5),
        );
      },
    });
    expect(outcome.status).toBe('completed');
    expect(received.map((entry) => entry.event)).toEqual(events);
    expect(received.every((entry) => entry.onRecord)).toBe(true);
    // Groups are pipelined: some group had more than one event in flight at once.
    expect(mostOutstanding).toBeGreaterThan(1);
    // The write ran only after its dispatch was on record: no event up to the dispatch saw the file.
    const dispatched = received.findIndex((entry) => entry.event.type === 'tool-call-dispatched');
    expect(dispatched).toBeGreaterThanOrEqual(0);
    expect(received.slice(0, dispatched + 1).some((entry) => entry.fileThen)).toBe(false);
    expect(received.slice(dispatched + 1).some((entry) => entry.fileThen)).toBe(true);
  });

  it('with a workspaceLock, a remote step takes it as a local step does: its command alone, its edit shared; a bad lock is refused', async () => {
    const commandPlan = { ...plan, steps: [step('a')] };
    const model = () =>
      scenarioModel({
        plans: [commandPlan],
        steps: {
          a: [
            { toolCalls: [{ name: 'run_command', arguments: { argv: ['node', '-e', 'process.exit(0)'] } }] },
            { toolCalls: [{ name: 'write_file', arguments: { path: 'a.txt', content: 'A' } }] },
            {
              toolCalls: [
                {
                  name: 'mark_step',
                  arguments: {
                    status: 'success',
                    notes: '[SUCCESS]: wrote a.txt',
                    claims: { filesWritten: ['a.txt'] },
                  },
                },
              ],
            },
          ],
        },
        answer: 'Wrote a.txt.',
      });
    const coordinatorSide = await world();
    let snapshot: PlanSnapshot | undefined;
    await createCortex({
      ...coordinatorSide.options(model()),
      stepRunner: async (task) => {
        snapshot ??= task.snapshot();
        return task.runHere();
      },
    }).run('write a.txt after a check');
    const fresh = {
      ...snapshot!,
      steps: snapshot!.steps.map((entry) => ({ ...entry, status: 'in_progress' as const, ledger: [] })),
    };
    const remote = await world();
    const taken: string[] = [];
    let held = 0;
    const { outcome } = await createCortex(remote.options(model())).runStep({
      runId: 'run-1',
      request: 'write a.txt after a check',
      stepId: 'a',
      plan: fresh,
      journal: () => {},
      workspaceLock: {
        async acquire(mode) {
          taken.push(mode);
          held++;
          return () => {
            held--;
          };
        },
      },
    });
    expect(outcome.status).toBe('completed');
    // The command alone, the write shared (mark_step acts on no workspace: no lock); every grant
    // was given back.
    expect(taken).toEqual(['exclusive', 'shared']);
    expect(held).toBe(0);
    await expect(
      createCortex(remote.options(model())).runStep({
        runId: 'run-1',
        request: 'x',
        stepId: 'a',
        plan: fresh,
        workspaceLock: {} as never,
      }),
    ).rejects.toSatisfy((error) => CortexError.isInstance(error) && error.code === 'invalid-step-task');
  });

  it("commits a remote step's journal at its commit points only (no timer groups), with each event's JSON", async () => {
    // Model turns slower than the bus's 10 ms commit timer: a timer would commit in between.
    const slow = () =>
      scenarioModel({
        plans: [plan],
        steps: {
          a: writeStep('a.txt', 'A'),
          b: writeStep('b.txt', 'B'),
          c: writeStep('c.txt', 'C'),
          d: writeStep('d.txt', 'D'),
        },
        answer: 'Wrote four files.',
        latencyMs: 40,
      });
    const coordinatorSide = await world();
    let snapshot: PlanSnapshot | undefined;
    await createCortex({
      ...coordinatorSide.options(scenario()),
      stepRunner: async (task) => {
        snapshot ??= task.snapshot();
        return task.runHere();
      },
    }).run('write four files');
    const fresh = {
      ...snapshot!,
      steps: snapshot!.steps.map((entry) => ({ ...entry, status: 'in_progress' as const, ledger: [] })),
    };
    const remote = await world();
    const groups: RunEvent[][] = [];
    let groupOpen = false;
    const texts: (string | undefined)[] = [];
    const { outcome, events } = await createCortex(remote.options(slow())).runStep({
      runId: 'run-1',
      request: 'write four files',
      stepId: fresh.steps[0]!.id,
      plan: fresh,
      journal: (event, json) => {
        if (!groupOpen) {
          groups.push([]);
          groupOpen = true;
          queueMicrotask(() => {
            groupOpen = false;
          });
        }
        groups.at(-1)!.push(event);
        texts.push(json);
        return new Promise<void>((resolve) => setTimeout(resolve, 5));
      },
    });
    expect(outcome.status).toBe('completed');
    expect(groups.flat()).toEqual(events);
    // One group before the write runs (its dispatch last), then the end: none on a timer.
    expect(groups.map((group) => group.at(-1)!.type)).toEqual(['tool-call-dispatched', events.at(-1)!.type]);
    expect(texts).toEqual(events.map((event) => JSON.stringify(event)));
  });

  it('a journal that fails stops the step and rejects', async () => {
    const remote = await world();
    const worker = createCortex(remote.options(scenario()));
    let snapshot: PlanSnapshot | undefined;
    const coordinator = createCortex({
      ...remote.options(scenario()),
      stepRunner: async (task) => {
        snapshot ??= task.snapshot();
        return task.runHere();
      },
    });
    await coordinator.run('write four files');
    const fresh = {
      ...snapshot!,
      steps: snapshot!.steps.map((entry) => ({ ...entry, status: 'in_progress' as const, ledger: [] })),
    };
    await expect(
      worker.runStep({
        runId: 'run-1',
        request: 'write four files',
        stepId: fresh.steps[0]!.id,
        plan: fresh,
        journal: async () => {
          throw new Error('fenced: another worker owns this step');
        },
      }),
    ).rejects.toMatchObject({ code: 'store-failed' });
  });
});
