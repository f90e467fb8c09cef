import { ScriptedModel, textTurn, toolCallTurn } from '@closedloop/model/testing';
import { Plan, type PlanEvent } from '@closedloop/plan';
import { defineTool } from '@closedloop/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { inProgressPlan, sleep } from './__fixtures__/step-plan';
import { executeStep } from './execute-step';
import type { ExecutorEvent } from './executor-events';
import type { RecordedTurn, StepJournal } from './step-journal';

type Logged = { kind: 'plan'; event: PlanEvent } | { kind: 'executor'; event: ExecutorEvent };

/** A counting echo tool: every real execution is logged. */
function countingEcho(log: string[]) {
  return defineTool({
    name: 'echo',
    description: 'Returns the text it is given.',
    input: z.object({ text: z.string() }),
    execute: ({ text }) => {
      log.push(text);
      return `echo: ${text}`;
    },
  });
}

const script = () => [
  toolCallTurn('echo', { text: 'a' }, 'call-a'),
  toolCallTurn('echo', { text: 'b' }, 'call-b'),
  toolCallTurn('mark_step', { status: 'success', notes: '[SUCCESS]: echoed a and b' }, 'call-mark'),
];

/** Runs the scripted step once with a journal, logging plan and executor events in emission order. */
async function recordedRun() {
  const { plan, stepId } = inProgressPlan();
  const initial = plan.events.length;
  const log: Logged[] = [];
  plan.subscribe((event) => log.push({ kind: 'plan', event }));
  const ran: string[] = [];
  const result = await executeStep(plan, stepId, {
    model: new ScriptedModel({ turns: script() }),
    tools: [countingEcho(ran)],
    journal: { commit: async () => {} },
    onEvent: (event) => log.push({ kind: 'executor', event }),
  });
  return { plan, stepId, initialEvents: plan.events.slice(0, initial), log, ran, result };
}

/** The state a resume sees when the journal ends before `log[cut]`: the plan and the recorded turns. */
function cutAt(run: Awaited<ReturnType<typeof recordedRun>>, cut: number) {
  const kept = run.log.slice(0, cut);
  const plan = Plan.replay([
    ...run.initialEvents,
    ...kept.flatMap((entry) => (entry.kind === 'plan' ? [entry.event] : [])),
  ]);
  const turns: RecordedTurn[] = kept.flatMap((entry) =>
    entry.kind === 'executor' && entry.event.type === 'model-call-finished' && entry.event.response
      ? [{ purpose: entry.event.purpose, response: entry.event.response }]
      : [],
  );
  return { plan, turns };
}

function indexOf(log: Logged[], predicate: (entry: Logged) => boolean): number {
  const index = log.findIndex(predicate);
  expect(index).toBeGreaterThanOrEqual(0);
  return index;
}

describe('executeStep with a journal: durable replay', () => {
  it('journals each response whole and each dispatch, and commits before a tool runs and before an answer to new results is used', async () => {
    const { plan, stepId } = inProgressPlan();
    const order: string[] = [];
    let staged = 0;
    plan.subscribe(() => staged++);
    const echo = defineTool({
      name: 'echo',
      description: 'Echo (not idempotent: its output could not be had again).',
      input: z.object({ text: z.string() }),
      idempotent: false,
      execute: ({ text }) => {
        order.push(`run ${text} (uncommitted ${staged})`);
        return text;
      },
    });
    const journal: StepJournal = {
      commit: async () => {
        // What a group commit takes: everything staged when it is called.
        const group = staged;
        staged = 0;
        await sleep(5);
        order.push(`commit ${group}`);
      },
      snapshot: ({ callId, input }) => ({ callId, input }),
    };
    const events: ExecutorEvent[] = [];
    const model = new ScriptedModel({ turns: script() });
    const result = await executeStep(plan, stepId, {
      model,
      tools: [echo],
      journal,
      onEvent: (event) => {
        staged++;
        events.push(event);
      },
    });
    expect(result.stopReason).toBe('marked');
    // Every tool runs right after a commit (of the response, its ledger entry and the dispatch),
    // and the model's answer to a result is used only after that result is committed.
    expect(order).toEqual([
      'commit 4',
      'run a (uncommitted 0)',
      'commit 1',
      'commit 4',
      'run b (uncommitted 0)',
      'commit 1',
    ]);
    const finished = events.filter((event) => event.type === 'model-call-finished');
    expect(finished).toHaveLength(3);
    expect(finished[0]).toMatchObject({
      response: { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] },
    });
    expect(events.filter((event) => event.type === 'tool-call-dispatched')).toEqual([
      expect.objectContaining({
        callId: 'call-a',
        tool: 'echo',
        before: { callId: 'call-a', input: { text: 'a' } },
      }),
      expect.objectContaining({
        callId: 'call-b',
        tool: 'echo',
        before: { callId: 'call-b', input: { text: 'b' } },
      }),
    ]);
  });

  it('the result of an idempotent tool is committed with the next dispatch: one commit per tool call', async () => {
    const { plan, stepId } = inProgressPlan();
    const commits: number[] = [];
    let events = 0;
    plan.subscribe(() => events++);
    await executeStep(plan, stepId, {
      model: new ScriptedModel({ turns: script() }),
      tools: [countingEcho([])],
      journal: {
        commit: async () => {
          commits.push(events);
        },
      },
    });
    // a's result reaches the journal in the commit before b runs.
    expect(commits).toHaveLength(2);
  });

  it('without a journal nothing extra is emitted', async () => {
    const { plan, stepId } = inProgressPlan();
    const events: ExecutorEvent[] = [];
    await executeStep(plan, stepId, {
      model: new ScriptedModel({ turns: script() }),
      tools: [countingEcho([])],
      onEvent: (event) => events.push(event),
    });
    expect(events.some((event) => event.type === 'tool-call-dispatched')).toBe(false);
    expect(events.some((event) => event.type === 'model-call-finished' && event.response)).toBe(false);
  });

  it('feeds recorded turns and results back: no model call and no tool run the journal answered', async () => {
    const run = await recordedRun();
    expect(run.ran).toEqual(['a', 'b']);
    // The journal ends right after b's result: the last turn (mark_step) was never recorded.
    const cut =
      indexOf(
        run.log,
        (entry) =>
          entry.kind === 'plan' &&
          entry.event.type === 'tool-call-finished' &&
          entry.event.callId === 'call-b',
      ) + 1;
    const { plan, turns } = cutAt(run, cut);
    expect(turns).toHaveLength(2);
    const model = new ScriptedModel({ turns: [script()[2]!] });
    const ran: string[] = [];
    const result = await executeStep(plan, run.stepId, {
      model,
      tools: [countingEcho(ran)],
      journal: { commit: async () => {}, replay: { turns } },
    });
    expect(ran).toEqual([]);
    expect(model.calls).toHaveLength(1);
    // The live turn saw exactly the conversation of the uninterrupted run.
    expect(model.calls[0]!.request.messages).toEqual(run.result.messages.slice(0, -2));
    expect(result).toMatchObject({ stopReason: 'marked', marked: { status: 'success' }, iterations: 3 });
    expect(plan.step(run.stepId).ledger.map((call) => [call.callId, call.status])).toEqual([
      ['call-a', 'success'],
      ['call-b', 'success'],
      ['call-mark', 'success'],
    ]);
  });

  it('replays a whole recorded attempt (mark_step included) without any call', async () => {
    const run = await recordedRun();
    const { plan, turns } = cutAt(run, run.log.length);
    const model = new ScriptedModel({ turns: [] });
    const ran: string[] = [];
    const result = await executeStep(plan, run.stepId, {
      model,
      tools: [countingEcho(ran)],
      journal: { commit: async () => {}, replay: { turns } },
    });
    expect(model.calls).toHaveLength(0);
    expect(ran).toEqual([]);
    expect(result).toMatchObject({
      stopReason: 'marked',
      marked: { status: 'success', notes: '[SUCCESS]: echoed a and b' },
      answer: 'echoed a and b',
    });
    expect(result.messages).toEqual(run.result.messages);
  });

  it('goes live at the first unrecorded point: a recorded call without a result runs once', async () => {
    const run = await recordedRun();
    // Cut right after b's ledger entry: the response is recorded, b never ran.
    const cut =
      indexOf(
        run.log,
        (entry) =>
          entry.kind === 'plan' &&
          entry.event.type === 'tool-call-started' &&
          entry.event.callId === 'call-b',
      ) + 1;
    const { plan, turns } = cutAt(run, cut);
    const model = new ScriptedModel({ turns: [script()[2]!] });
    const ran: string[] = [];
    await executeStep(plan, run.stepId, {
      model,
      tools: [countingEcho(ran)],
      journal: { commit: async () => {}, replay: { turns } },
    });
    expect(ran).toEqual(['b']);
    expect(model.calls).toHaveLength(1);
    expect(plan.step(run.stepId).ledger.map((call) => call.callId)).toEqual([
      'call-a',
      'call-b',
      'call-mark',
    ]);
  });

  it('a recorded response whose ledger entries were not journaled records and runs its calls', async () => {
    const run = await recordedRun();
    const cut = indexOf(
      run.log,
      (entry) =>
        entry.kind === 'plan' && entry.event.type === 'tool-call-started' && entry.event.callId === 'call-b',
    );
    const { plan, turns } = cutAt(run, cut);
    expect(turns).toHaveLength(2);
    const ran: string[] = [];
    const model = new ScriptedModel({ turns: [script()[2]!] });
    const result = await executeStep(plan, run.stepId, {
      model,
      tools: [countingEcho(ran)],
      journal: { commit: async () => {}, replay: { turns } },
    });
    expect(ran).toEqual(['b']);
    expect(model.calls).toHaveLength(1);
    expect(result.stopReason).toBe('marked');
  });

  it('with a journal, a call cut off by an abort stays pending; without one it gets an aborted error', async () => {
    for (const journaled of [true, false]) {
      const { plan, stepId } = inProgressPlan();
      const controller = new AbortController();
      const slow = defineTool({
        name: 'slow',
        description: 'Takes a while.',
        input: z.object({}),
        execute: async (_input, { signal }) => {
          setTimeout(() => controller.abort(), 5);
          await sleep(1_000, signal);
          return 'done';
        },
      });
      const result = await executeStep(plan, stepId, {
        model: new ScriptedModel({ turns: [toolCallTurn('slow', {}), textTurn('never')] }),
        tools: [slow],
        signal: controller.signal,
        ...(journaled ? { journal: { commit: async () => {} } } : {}),
      });
      expect(result.stopReason).toBe('aborted');
      const [call] = plan.step(stepId).ledger;
      if (journaled) {
        expect(call).toMatchObject({ tool: 'slow', status: 'pending' });
        expect(result.pendingCalls).toHaveLength(1);
      } else {
        expect(call).toMatchObject({ tool: 'slow', status: 'error' });
        expect(call!.error).toContain('aborted');
      }
    }
  });

  it('a lock wait given up because the step was aborted leaves the call pending, not failed; another refusal is its error', async () => {
    for (const aborted of [true, false]) {
      const { plan, stepId } = inProgressPlan();
      const controller = new AbortController();
      const ran: string[] = [];
      const events: ExecutorEvent[] = [];
      const result = await executeStep(plan, stepId, {
        model: new ScriptedModel({ turns: [toolCallTurn('echo', { text: 'a' }), textTurn('done')] }),
        tools: [countingEcho(ran)],
        signal: controller.signal,
        onEvent: (event) => events.push(event),
        journal: {
          commit: async () => {},
          acquire: async () => {
            if (!aborted) throw new Error('the lock is unreachable');
            const reason = new Error('the lock holder must stop');
            controller.abort(reason);
            throw reason;
          },
        },
      });
      expect(ran).toEqual([]);
      expect(events.some((event) => event.type === 'tool-call-dispatched')).toBe(false);
      const [call] = plan.step(stepId).ledger;
      if (aborted) {
        expect(result.stopReason).toBe('aborted');
        expect(call).toMatchObject({ tool: 'echo', status: 'pending' });
      } else {
        expect(call).toMatchObject({ tool: 'echo', status: 'error' });
        expect(call!.error).toContain('the lock is unreachable');
      }
    }
  });
});
