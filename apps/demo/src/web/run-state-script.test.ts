import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RunEvent } from '@closedloop/cortex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedRunEvents } from '../server/__fixtures__/scripted-run-events';
import { appScript } from './app-script';
import { runStateScript } from './run-state-script';

interface StepState {
  id: string;
  key: string;
  title: string;
  status: string;
  attempt: number;
  unverified: boolean;
  removed: boolean;
  replacedBy: string[];
  replaces: string[];
  ledger: Array<{
    callId: string;
    tool: string;
    status: string;
    result: string | null;
    error: string | null;
  }>;
  findings: Array<{ check: string; status: string }>;
  notes: string;
  claims: { filesWritten: string[] } | null;
}
interface RunState {
  runId: string | null;
  steps: Map<string, StepState>;
  order: string[];
  messages: Array<{ kind: string; text: string }>;
  usage: { inputTokens: number; outputTokens: number; costUsd: number; modelCalls: number };
  finished: { stopReason: string; answer: string | null } | null;
  replans: unknown[];
}
interface LayoutNode {
  id: string;
  layer: number;
  row: number;
  x: number;
  y: number;
}
/** The served module, typed for the test. */
interface RunStateModule {
  createRunState(): RunState;
  applyEvent(state: RunState, event: unknown): RunState;
  foldEvents(events: unknown[]): RunState;
  uiStatus(
    state: RunState,
    options?: { starting?: boolean; ended?: boolean },
  ): { phase: string; text: string; detail: string };
  layoutDag(state: RunState): {
    nodes: LayoutNode[];
    edges: Array<{ kind: string; from: string; to: string; faded: boolean }>;
    width: number;
    height: number;
  };
  stepVisual(step: StepState): string;
  edgePath(from: LayoutNode, to: LayoutNode): string;
  excerpt(value: unknown, max?: number): string;
  formatDuration(ms: number): string;
  NODE_WIDTH: number;
  GAP_X: number;
}

let dir: string;
let mod: RunStateModule;
const events = scriptedRunEvents({ runId: 'run-1', request: 'Add isPrime' });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'closedloop-run-state-'));
  const file = join(dir, 'run-state.mjs');
  writeFileSync(file, runStateScript);
  mod = (await import(/* @vite-ignore */ pathToFileURL(file).href)) as RunStateModule;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function foldUntil(predicate: (event: RunEvent) => boolean): RunState {
  const state = mod.createRunState();
  for (const event of events) {
    mod.applyEvent(state, event);
    if (predicate(event)) break;
  }
  return state;
}

describe('served scripts', () => {
  it('are valid ES modules without a template-literal hole leaking from the TS source', () => {
    for (const [name, source] of [
      ['run-state.js', runStateScript],
      ['app.js', appScript],
    ] as const) {
      const file = join(dir, name.replace('.js', '.check.mjs'));
      writeFileSync(file, source);
      expect(() => execFileSync(process.execPath, ['--check', file], { stdio: 'pipe' }), name).not.toThrow();
      expect(source, name).not.toContain('`');
      expect(source, name).not.toContain('${');
    }
  });
});

describe('applyEvent', () => {
  it('folds the whole scripted run: replaced steps stay, new steps appear, stop reason and usage', () => {
    const state = mod.foldEvents(events);
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
    expect(mod.stepVisual(step('write-tests'))).toBe('unverified');
    expect(mod.stepVisual(step('write-impl'))).toBe('replaced');
    expect(mod.stepVisual(step('inspect'))).toBe('completed');
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
    const texts = state.messages.map((message) => `${message.kind}: ${message.text}`);
    expect(texts[0]).toBe('user: Add isPrime');
    expect(texts).toContain(
      'error: “Write isPrime” failed verification: claimed file src/is-prime.ts does not exist in the workspace',
    );
    expect(texts).toContain(
      'warn: Replanned: Write isPrime, Run the tests → Write isPrime (write_file), Run the tests',
    );
    expect(texts.at(-1)).toMatch(/^answer: Added src\/is-prime\.ts/);
  });

  it('pairs tool results by call id and ignores unknown events and steps', () => {
    const state = mod.createRunState();
    mod.applyEvent(state, { type: 'plan-created', steps: [{ id: 'a', description: 'A', dependsOn: [] }] });
    mod.applyEvent(state, { type: 'tool-call-started', stepId: 'a', callId: 'c1', tool: 't', args: {} });
    mod.applyEvent(state, { type: 'tool-call-started', stepId: 'a', callId: 'c2', tool: 't', args: {} });
    mod.applyEvent(state, {
      type: 'tool-call-finished',
      stepId: 'a',
      callId: 'c2',
      status: 'success',
      result: 'two',
    });
    mod.applyEvent(state, { type: 'something-new', stepId: 'a' });
    mod.applyEvent(state, { type: 'step-marked', stepId: 'ghost', status: 'completed' });
    mod.applyEvent(state, null);
    const ledger = state.steps.get('a')?.ledger ?? [];
    expect(ledger.map((call) => `${call.callId}:${call.status}:${call.result}`)).toEqual([
      'c1:pending:null',
      'c2:success:two',
    ]);
    expect(state.steps.get('a')?.title).toBe('A');
  });

  it('keeps a removed step drawn when a later redesign reuses its id', () => {
    const state = mod.createRunState();
    const step = (id: string, replaces: string[] = []) => ({ id, description: id, dependsOn: [], replaces });
    mod.applyEvent(state, { type: 'plan-created', steps: [step('a')] });
    mod.applyEvent(state, {
      type: 'replan-applied',
      failed: ['a'],
      removed: ['a'],
      added: [step('b', ['a'])],
    });
    mod.applyEvent(state, {
      type: 'replan-applied',
      failed: ['b'],
      removed: ['b'],
      added: [step('a', ['b'])],
    });
    expect(state.order).toEqual(['a~1', 'b', 'a']);
    expect(state.steps.get('a~1')).toMatchObject({ id: 'a', removed: true, replacedBy: ['b'] });
    expect(state.steps.get('a')).toMatchObject({ removed: false, replaces: ['b'] });
    expect(state.steps.get('b')).toMatchObject({ removed: true, replacedBy: ['a'] });
  });
  it('keeps a step interrupted by the end of the run in progress, marked interrupted', () => {
    const state = foldUntil((event) => event.type === 'tool-call-started');
    mod.applyEvent(state, {
      type: 'step-finished',
      stepId: 'inspect',
      status: 'interrupted',
      unverified: false,
    });
    mod.applyEvent(state, { type: 'run-finished', stopReason: 'cancelled', reason: 'the caller aborted' });
    expect(state.steps.get('inspect')).toMatchObject({ status: 'in_progress', interrupted: true });
    expect(mod.stepVisual(state.steps.get('inspect')!)).toBe('in_progress');
    expect(mod.uiStatus(state).phase).toBe('idle');
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
    const state = mod.foldEvents([
      { type: 'plan-created', ...plan, title: 't', goal: 'g', steps: [step('a', 'A'), step('b', 'B')] },
      { type: 'steps-added', ...plan, insertAt: 1, added: [step('repair', 'Repair')] },
      { type: 'step-started', runId: 'r', at: 2, stepId: 'a', attempt: 1 },
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
    ]);
    expect(state.order).toEqual(['a', 'repair', 'b']);
    const a = state.steps.get('a')!;
    expect(a.status).toBe('not_started');
    expect(a.ledger).toEqual([]);
    expect(
      (a as unknown as { previousAttempts: Array<{ ledger: unknown[] }> }).previousAttempts[0]?.ledger,
    ).toHaveLength(1);
    expect(state.messages.at(-1)?.text).toContain('interrupted by a crash');
  });
});

describe('uiStatus', () => {
  it('is idle before a run, Thinking… while planning or a model call is open, Executing… while a tool runs', () => {
    expect(mod.uiStatus(mod.createRunState())).toMatchObject({ phase: 'idle', text: 'Idle' });
    expect(mod.uiStatus(mod.createRunState(), { starting: true })).toMatchObject({
      phase: 'thinking',
      text: 'Thinking…',
    });
    expect(mod.uiStatus(foldUntil((event) => event.type === 'run-started'))).toMatchObject({
      phase: 'thinking',
      detail: 'drafting the plan',
    });
    expect(mod.uiStatus(foldUntil((event) => event.type === 'model-call-started'))).toMatchObject({
      phase: 'thinking',
      text: 'Thinking…',
      detail: 'Inspect the workspace',
    });
    expect(mod.uiStatus(foldUntil((event) => event.type === 'tool-call-started'))).toMatchObject({
      phase: 'executing',
      text: 'Executing…',
      detail: 'list_dir in Inspect the workspace',
    });
    expect(mod.uiStatus(foldUntil((event) => event.type === 'replan-requested'))).toMatchObject({
      phase: 'thinking',
      detail: 'redesigning the failed steps',
    });
    expect(mod.uiStatus(mod.foldEvents(events))).toMatchObject({ phase: 'idle' });
    expect(
      mod.uiStatus(
        foldUntil((event) => event.type === 'tool-call-started'),
        { ended: true },
      ).phase,
    ).toBe('idle');
  });

  it('prefers Executing… when one step runs a tool while another waits for the model', () => {
    const state = foldUntil(
      (event) => event.type === 'model-call-started' && 'stepId' in event && event.stepId === 'write-tests',
    );
    const step = events.find((event) => event.type === 'tool-call-started' && event.stepId === 'write-impl');
    mod.applyEvent(state, step);
    expect(mod.uiStatus(state).phase).toBe('executing');
  });
});

describe('layoutDag', () => {
  it('layers steps by longest-path depth and draws dependency and replacement edges', () => {
    const layout = mod.layoutDag(mod.foldEvents(events));
    const byId = new Map(layout.nodes.map((node) => [node.id, node]));
    expect(Object.fromEntries(layout.nodes.map((node) => [node.id, [node.layer, node.row]]))).toEqual({
      inspect: [0, 0],
      'write-impl': [1, 0],
      'write-impl-2': [1, 1],
      'write-tests': [1, 2],
      'run-tests': [2, 0],
      'run-tests-2': [2, 1],
    });
    expect(byId.get('write-impl-2')?.x).toBe(byId.get('write-impl')?.x);
    expect(byId.get('run-tests-2')!.x).toBe(byId.get('inspect')!.x + 2 * (mod.NODE_WIDTH + mod.GAP_X));
    const edges = layout.edges.map(
      (edge) => `${edge.kind}:${edge.from}->${edge.to}${edge.faded ? ' faded' : ''}`,
    );
    expect(edges).toEqual(
      expect.arrayContaining([
        'dependency:inspect->write-impl faded',
        'replaced:write-impl->write-impl-2',
        'dependency:inspect->write-impl-2',
        'dependency:write-impl-2->run-tests-2',
        'dependency:write-tests->run-tests-2',
        'replaced:run-tests->run-tests-2',
        'dependency:write-impl->run-tests faded',
      ]),
    );
    expect(layout.edges).toHaveLength(9);
    expect(layout.width).toBeGreaterThan(3 * mod.NODE_WIDTH);
  });

  it('survives a dependency cycle and dangling ids', () => {
    const state = mod.createRunState();
    mod.applyEvent(state, {
      type: 'plan-created',
      steps: [
        { id: 'a', description: 'a', dependsOn: ['b'] },
        { id: 'b', description: 'b', dependsOn: ['a', 'nowhere'] },
      ],
    });
    const layout = mod.layoutDag(state);
    expect(layout.nodes).toHaveLength(2);
    expect(layout.edges.every((edge) => edge.from !== 'nowhere')).toBe(true);
  });

  it('routes same-layer replacement edges around the left side', () => {
    const from = { id: 'a', layer: 1, row: 0, x: 300, y: 20 };
    const to = { id: 'b', layer: 1, row: 1, x: 300, y: 110 };
    expect(mod.edgePath(from, to)).toMatch(/^M 300 53 C 2\d\d 53, 2\d\d 143, 296 143$/);
  });
});

describe('helpers', () => {
  it('excerpts values and formats durations', () => {
    expect(mod.excerpt('x'.repeat(10), 5)).toBe('xxxx…');
    expect(mod.excerpt({ a: 1 })).toBe('{\n "a": 1\n}');
    expect(mod.excerpt(undefined)).toBe('');
    expect(mod.formatDuration(450)).toBe('450 ms');
    expect(mod.formatDuration(1530)).toBe('1.5 s');
    expect(mod.formatDuration(125_000)).toBe('2 min 5 s');
  });
});
