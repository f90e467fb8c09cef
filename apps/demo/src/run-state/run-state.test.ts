import type { RunEvent } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';
import { scriptedRunEvents } from '../__fixtures__/scripted-run-events';
import { excerpt, formatDuration } from './format';
import {
  applyRunEvent,
  createRunState,
  foldRunEvents,
  pendingApprovals,
  type RunState,
  stepVisual,
  uiStatus,
} from './run-state';

const events = scriptedRunEvents({ runId: 'run-1', request: 'Add isPrime' });

/** Loose events for edge cases (the fold must take what a server sends). */
const loose = (event: Record<string, unknown>) => ({ runId: 'r', at: 1, ...event }) as unknown as RunEvent;

function foldUntil(predicate: (event: RunEvent) => boolean): RunState {
  const state = createRunState();
  for (const event of events) {
    applyRunEvent(state, event);
    if (predicate(event)) break;
  }
  return state;
}

describe('applyRunEvent', () => {
  it('folds the whole scripted run: replaced steps stay, new steps appear, stop reason and usage', () => {
    const state = foldRunEvents(events);
    expect(state.order).toEqual([
      'inspect',
      'write-impl',
      'write-impl-2',
      'write-tests',
      'run-tests',
      'run-tests-2',
    ]);
    const step = (id: string) => state.steps.get(id)!;
    expect(step('inspect').status).toBe('completed');
    expect(step('write-impl')).toMatchObject({
      status: 'failed',
      removed: true,
      replacedBy: ['write-impl-2'],
    });
    expect(step('run-tests')).toMatchObject({ removed: true, replacedBy: ['run-tests-2'] });
    expect(step('write-impl-2')).toMatchObject({
      status: 'completed',
      replaces: ['write-impl'],
      removed: false,
    });
    expect(stepVisual(step('write-tests'))).toBe('unverified');
    expect(stepVisual(step('write-impl'))).toBe('replaced');
    expect(stepVisual(step('inspect'))).toBe('completed');
    expect(step('write-impl').claims?.filesWritten).toEqual(['src/is-prime.ts']);
    expect(step('write-impl').findings.map((finding) => `${finding.check}:${finding.status}`)).toEqual([
      'claims.file-exists:fail',
      'ledger.tool-errors:warn',
    ]);
    expect(step('write-impl').ledger.map((call) => `${call.tool}:${call.status}`)).toEqual([
      'read_file:error',
      'mark_step:success',
    ]);
    expect(step('write-impl').ledger[0]?.error).toContain('ENOENT');
    expect(state.finished).toMatchObject({ stopReason: 'completed-with-warnings' });
    expect(state.finished?.answer).toContain('isPrime');
    expect(state.replans).toHaveLength(1);
    expect(state.usage.modelCalls).toBe(14);
    expect(state.usage.inputTokens).toBeGreaterThan(0);
    const texts = state.timeline.map((entry) => `${entry.kind}/${entry.tone}: ${entry.text}`);
    expect(texts[0]).toBe('run-started/info: Started run run-1');
    expect(texts).toContain(
      'plan/info: Planned 4 steps: Inspect the workspace → Write isPrime → Write the tests → Run the tests',
    );
    expect(texts).toContain(
      'step-finished/error: “Write isPrime” failed verification: claimed file src/is-prime.ts does not exist in the workspace',
    );
    expect(texts).toContain('step-finished/warn: “Write the tests” completed, unverified');
    expect(texts).toContain(
      'replan/warn: Replanned: Write isPrime, Run the tests → Write isPrime (write_file), Run the tests',
    );
    expect(texts).toContain('tool-error/error: write-impl ✗ read_file: ENOENT: src/index.ts does not exist');
    expect(texts).toContain('tool-call/neutral: inspect → list_dir({"path":"."})');
    expect(texts.at(-1)).toMatch(/^run-finished\/warn: Run finished: completed-with-warnings — Every step/);
  });

  it('pairs tool results by call id and ignores unknown events, unknown steps and garbage', () => {
    const state = createRunState();
    applyRunEvent(
      state,
      loose({ type: 'plan-created', steps: [{ id: 'a', description: 'A', dependsOn: [] }] }),
    );
    applyRunEvent(
      state,
      loose({ type: 'tool-call-started', stepId: 'a', callId: 'c1', tool: 't', args: {} }),
    );
    applyRunEvent(
      state,
      loose({ type: 'tool-call-started', stepId: 'a', callId: 'c2', tool: 't', args: {} }),
    );
    applyRunEvent(
      state,
      loose({ type: 'tool-call-finished', stepId: 'a', callId: 'c2', status: 'success', result: 'two' }),
    );
    applyRunEvent(state, loose({ type: 'something-new', stepId: 'a' }));
    applyRunEvent(state, loose({ type: 'step-marked', stepId: 'ghost', status: 'completed' }));
    applyRunEvent(state, null as unknown as RunEvent);
    const ledger = state.steps.get('a')?.ledger ?? [];
    expect(ledger.map((call) => `${call.callId}:${call.status}:${call.result}`)).toEqual([
      'c1:pending:null',
      'c2:success:two',
    ]);
    expect(state.steps.get('a')?.title).toBe('A');
    expect(state.eventCount).toBe(7);
  });

  it('keeps a removed step drawn when a later redesign reuses its id', () => {
    const state = createRunState();
    const step = (id: string, replaces: string[] = []) => ({ id, description: id, dependsOn: [], replaces });
    applyRunEvent(state, loose({ type: 'plan-created', steps: [step('a')] }));
    applyRunEvent(
      state,
      loose({ type: 'replan-applied', failed: ['a'], removed: ['a'], added: [step('b', ['a'])] }),
    );
    applyRunEvent(
      state,
      loose({ type: 'replan-applied', failed: ['b'], removed: ['b'], added: [step('a', ['b'])] }),
    );
    expect(state.order).toEqual(['a~1', 'b', 'a']);
    expect(state.steps.get('a~1')).toMatchObject({ id: 'a', key: 'a~1', removed: true, replacedBy: ['b'] });
    expect(state.steps.get('a')).toMatchObject({ removed: false, replaces: ['b'], drawnFrom: 'b' });
    expect(state.steps.get('b')).toMatchObject({ removed: true, replacedBy: ['a'], drawnFrom: 'a~1' });
  });

  it('keeps a step interrupted by the end of the run in progress, marked interrupted', () => {
    const state = foldUntil((event) => event.type === 'tool-call-started');
    applyRunEvent(
      state,
      loose({ type: 'step-finished', stepId: 'inspect', status: 'interrupted', unverified: false }),
    );
    applyRunEvent(
      state,
      loose({ type: 'run-finished', stopReason: 'cancelled', reason: 'the caller aborted' }),
    );
    expect(state.steps.get('inspect')).toMatchObject({ status: 'in_progress', interrupted: true });
    expect(stepVisual(state.steps.get('inspect')!)).toBe('in_progress');
    expect(uiStatus(state).phase).toBe('idle');
    expect(state.timeline.at(-1)).toMatchObject({ kind: 'run-finished', tone: 'neutral' });
  });

  it('collects streamed text per step, separated per model turn, and resets it on a new start', () => {
    const state = createRunState();
    applyRunEvent(state, loose({ type: 'plan-created', steps: [{ id: 'a', description: 'A' }] }));
    applyRunEvent(state, loose({ type: 'step-started', stepId: 'a', attempt: 0 }));
    applyRunEvent(state, loose({ type: 'model-call-started', stepId: 'a', iteration: 1, purpose: 'turn' }));
    applyRunEvent(state, loose({ type: 'text-delta', stepId: 'a', iteration: 1, delta: 'Writing ' }));
    applyRunEvent(state, loose({ type: 'text-delta', stepId: 'a', iteration: 1, delta: 'the file.' }));
    applyRunEvent(state, loose({ type: 'model-call-started', stepId: 'a', iteration: 2, purpose: 'turn' }));
    applyRunEvent(state, loose({ type: 'text-delta', stepId: 'a', iteration: 2, delta: 'Done.' }));
    applyRunEvent(state, loose({ type: 'text-delta', stepId: 'ghost', iteration: 1, delta: 'x' }));
    expect(state.steps.get('a')?.liveText).toBe('Writing the file.\n\nDone.');
    applyRunEvent(state, loose({ type: 'step-started', stepId: 'a', attempt: 0 }));
    expect(state.steps.get('a')).toMatchObject({ liveText: '', runs: 2 });
  });

  it('tracks approvals from request to answer', () => {
    const state = createRunState();
    applyRunEvent(state, loose({ type: 'run-started', runId: 'r', request: 'x', resumed: false }));
    applyRunEvent(
      state,
      loose({ type: 'plan-created', steps: [{ id: 'a', title: 'Delete it', description: 'A' }] }),
    );
    applyRunEvent(
      state,
      loose({
        type: 'approval-requested',
        approvalId: 'approval-1',
        stepId: 'a',
        kind: 'tool-call',
        reason: 'deletes a file',
        tool: 'delete_file',
        args: { path: 'x' },
      }),
    );
    expect(pendingApprovals(state).map((approval) => approval.approvalId)).toEqual(['approval-1']);
    expect(uiStatus(state)).toMatchObject({ phase: 'waiting', detail: 'Delete it' });
    applyRunEvent(
      state,
      loose({
        type: 'approval-resolved',
        approvalId: 'approval-1',
        stepId: 'a',
        approved: false,
        note: 'no',
      }),
    );
    expect(pendingApprovals(state)).toEqual([]);
    expect(state.approvals[0]?.resolved).toMatchObject({ approved: false, note: 'no' });
    expect(state.timeline.at(-1)).toMatchObject({ tone: 'error', text: 'Denied: “Delete it” — no' });
  });
});

describe('a resumed run', () => {
  it('goes on after the stop it resumes from, and forgets questions nobody answered', () => {
    const state = createRunState();
    applyRunEvent(state, loose({ type: 'run-started', runId: 'r', request: 'x', resumed: false }));
    applyRunEvent(state, loose({ type: 'plan-created', steps: [{ id: 'a', description: 'A' }] }));
    applyRunEvent(
      state,
      loose({
        type: 'approval-requested',
        approvalId: 'approval-1',
        stepId: 'a',
        kind: 'tool-call',
        reason: 'r',
      }),
    );
    applyRunEvent(
      state,
      loose({ type: 'run-finished', stopReason: 'cancelled', reason: 'Ctrl-C', answer: '' }),
    );
    expect(pendingApprovals(state)).toEqual([]);
    expect(state.approvals[0]?.resolved).toMatchObject({ approved: false });
    applyRunEvent(state, loose({ type: 'run-started', runId: 'r', request: 'x', resumed: true }));
    expect(state.finished).toBeNull();
    expect(uiStatus(state).phase).not.toBe('idle');
    expect(state.timeline.at(-1)?.text).toBe('Resumed run r from its journal');
  });
});

describe('steps-added and step-reset', () => {
  const plan = { planId: 'p', seq: 0, at: 1 };
  const step = (id: string, title: string) => ({
    id,
    title,
    description: title,
    dependsOn: [],
    requiredTools: [],
    successCriteria: [],
    protocols: [],
    status: 'not_started',
    notes: '',
    files: [],
    ledger: [],
    previousAttempts: [],
    replanAttempts: 0,
    replaces: [],
  });

  it('inserts added steps at the plan position and resets a step to run again with its old ledger kept aside', () => {
    const state = foldRunEvents(
      [
        { type: 'plan-created', ...plan, title: 't', goal: 'g', steps: [step('a', 'A'), step('b', 'B')] },
        { type: 'steps-added', ...plan, insertAt: 1, added: [step('repair', 'Repair')] },
        { type: 'step-started', at: 2, stepId: 'a', attempt: 1 },
        {
          type: 'tool-call-started',
          ...plan,
          stepId: 'a',
          callId: 'c1',
          generatedId: false,
          tool: 'write_file',
          args: {},
        },
        {
          type: 'step-reset',
          ...plan,
          stepId: 'a',
          previousStatus: 'in_progress',
          reason: 'interrupted by a crash',
        },
      ].map(loose),
    );
    expect(state.order).toEqual(['a', 'repair', 'b']);
    const a = state.steps.get('a')!;
    expect(a.status).toBe('not_started');
    expect(a.ledger).toEqual([]);
    expect(a.previousAttempts[0]?.ledger).toHaveLength(1);
    expect(state.timeline.at(-1)?.text).toBe('Running “A” again: interrupted by a crash');
  });
});

describe('uiStatus', () => {
  it('is busy while a run resumes from a stop, though its events still end with that stop', () => {
    const cancelled = foldUntil((event) => event.type === 'run-finished');
    expect(cancelled.finished).not.toBeNull();
    expect(uiStatus(cancelled).phase).toBe('idle');
    expect(uiStatus(cancelled, { resuming: true })).toMatchObject({ phase: 'thinking', text: 'Resuming…' });
    expect(uiStatus(cancelled, { starting: true, resuming: true }).phase).toBe('thinking');
    // Once the server says the stream ended, the stop stands.
    expect(uiStatus(cancelled, { resuming: true, ended: true }).phase).toBe('idle');
  });

  it('is idle before a run, Thinking… while planning or a model call is open, Executing… while a tool runs', () => {
    expect(uiStatus(createRunState())).toMatchObject({ phase: 'idle', text: 'Idle' });
    expect(uiStatus(createRunState(), { starting: true })).toMatchObject({
      phase: 'thinking',
      text: 'Thinking…',
    });
    expect(uiStatus(foldUntil((event) => event.type === 'run-started'))).toMatchObject({
      phase: 'thinking',
      detail: 'drafting the plan',
    });
    expect(uiStatus(foldUntil((event) => event.type === 'model-call-started'))).toMatchObject({
      phase: 'thinking',
      text: 'Thinking…',
      detail: 'Inspect the workspace',
    });
    expect(uiStatus(foldUntil((event) => event.type === 'tool-call-started'))).toMatchObject({
      phase: 'executing',
      text: 'Executing…',
      detail: 'list_dir in Inspect the workspace',
    });
    expect(uiStatus(foldUntil((event) => event.type === 'replan-requested'))).toMatchObject({
      phase: 'thinking',
      detail: 'redesigning the failed steps',
    });
    expect(uiStatus(foldRunEvents(events))).toMatchObject({ phase: 'idle' });
    expect(
      uiStatus(
        foldUntil((event) => event.type === 'tool-call-started'),
        { ended: true },
      ).phase,
    ).toBe('idle');
  });

  it('prefers Executing… when one step runs a tool while another waits for the model', () => {
    const state = foldUntil(
      (event) => event.type === 'model-call-started' && 'stepId' in event && event.stepId === 'write-tests',
    );
    const call = events.find((event) => event.type === 'tool-call-started' && event.stepId === 'write-impl');
    applyRunEvent(state, call!);
    expect(uiStatus(state).phase).toBe('executing');
  });
});

describe('format helpers', () => {
  it('excerpts values and formats durations', () => {
    expect(excerpt('x'.repeat(10), 5)).toBe('xxxx…');
    expect(excerpt({ a: 1 })).toBe('{\n "a": 1\n}');
    expect(excerpt({ a: 'b  c' }, 100, { flat: true })).toBe('{"a":"b c"}');
    expect(excerpt(undefined)).toBe('');
    expect(formatDuration(450)).toBe('450 ms');
    expect(formatDuration(1530)).toBe('1.5 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    expect(formatDuration(Number.NaN)).toBe('');
  });
});
