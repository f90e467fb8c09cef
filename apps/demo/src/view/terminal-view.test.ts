import type { RunEvent } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';
import { createTerminalView } from './terminal-view';

const base = { runId: 'run-1', planId: 'plan-1' };
let seq = 0;
const at = (ms: number) => ({ at: 1_000_000 + ms, seq: seq++ });

/** A short run: a false claim is caught, the step is replanned, the redesign completes. */
const events = [
  { type: 'run-started', runId: 'run-1', at: 1_000_000, request: 'isPrime', resumed: false },
  {
    type: 'plan-created',
    ...base,
    ...at(10),
    title: 'isPrime',
    goal: 'isPrime',
    steps: [
      { id: 'scaffold', title: 'Create package.json', description: 'Create package.json', dependsOn: [] },
      {
        id: 'implement',
        title: 'Write isPrime',
        description: 'Write src/is-prime.js',
        dependsOn: ['scaffold'],
      },
    ],
  },
  { type: 'step-started', runId: 'run-1', at: 1_000_020, stepId: 'scaffold', attempt: 1 },
  {
    type: 'tool-call-started',
    ...base,
    ...at(30),
    stepId: 'scaffold',
    callId: 'c1',
    generatedId: false,
    tool: 'write_file',
    args: { path: 'package.json' },
  },
  {
    type: 'step-finished',
    runId: 'run-1',
    at: 1_000_500,
    stepId: 'scaffold',
    status: 'completed',
    unverified: false,
    durationMs: 480,
  },
  { type: 'step-started', runId: 'run-1', at: 1_000_510, stepId: 'implement', attempt: 1 },
  {
    type: 'finding-reported',
    runId: 'run-1',
    at: 1_000_700,
    scope: 'step',
    stepId: 'implement',
    finding: { check: 'claims', priority: 'P1', status: 'fail', message: 'src/is-prime.js does not exist.' },
  },
  {
    type: 'step-finished',
    runId: 'run-1',
    at: 1_000_710,
    stepId: 'implement',
    status: 'failed',
    unverified: false,
    durationMs: 200,
  },
  {
    type: 'replan-applied',
    ...base,
    ...at(900),
    failed: ['implement'],
    removed: ['implement'],
    insertAt: 1,
    added: [
      {
        id: 's1',
        title: 'Write isPrime with write_file',
        description: 'Write src/is-prime.js',
        dependsOn: ['scaffold'],
        requiredTools: ['write_file'],
        successCriteria: [],
        protocols: [],
        status: 'not_started',
        notes: '',
        files: [],
        ledger: [],
        replanAttempts: 1,
        replaces: ['implement'],
      },
    ],
  },
  { type: 'step-started', runId: 'run-1', at: 1_001_000, stepId: 's1', attempt: 1 },
  {
    type: 'usage-recorded',
    runId: 'run-1',
    at: 1_001_100,
    purpose: 'step',
    usage: { inputTokens: 1200, outputTokens: 80, totalTokens: 1280 },
    costUsd: 0,
  },
] as unknown as RunEvent[];

describe('terminal view', () => {
  it('draws the DAG with statuses, elapsed times, findings and the replan on a TTY (snapshot)', () => {
    let screen = '';
    const view = createTerminalView({
      write: (text) => (screen += text),
      tty: true,
      color: true,
      now: () => 1_001_600,
    });
    for (const event of events) view.onEvent(event);
    view.close();
    const lastFrame = screen.slice(screen.lastIndexOf('\x1b[J') + 3).replaceAll('\x1b', '␛');
    expect(lastFrame).toMatchSnapshot();
    expect(screen).toContain('src/is-prime.js does not exist.');
  });

  it('prints plain lines without escape codes when stdout is not a TTY', () => {
    let out = '';
    const view = createTerminalView({ write: (text) => (out += text), tty: false, now: () => 1_001_600 });
    for (const event of events) view.onEvent(event);
    view.close();
    expect(out).not.toContain('\x1b');
    expect(out).toContain('✗ implement: [P1 claims] src/is-prime.js does not exist.');
    expect(out).toContain('↺ replanned implement → s1');
    expect(out).toContain('[replaced] implement: Write isPrime');
    expect(out).toContain('tokens: 1200 in / 80 out');
  });

  it('places steps added by goal repair and shows a reset step waiting again', () => {
    let out = '';
    const view = createTerminalView({ write: (text) => (out += text), tty: false, now: () => 1_001_600 });
    const plain = (id: string, title: string) => ({ id, title, description: title, dependsOn: [] });
    const more = [
      {
        type: 'plan-created',
        runId: 'r',
        planId: 'p',
        seq: 0,
        at: 1,
        title: 't',
        goal: 'g',
        steps: [plain('a', 'A'), plain('b', 'B')],
      },
      {
        type: 'steps-added',
        runId: 'r',
        planId: 'p',
        seq: 1,
        at: 2,
        insertAt: 1,
        added: [{ ...plain('fix', 'Fix'), replaces: [] }],
      },
      { type: 'step-started', runId: 'r', at: 3, stepId: 'a', attempt: 1 },
      {
        type: 'step-reset',
        runId: 'r',
        planId: 'p',
        seq: 2,
        at: 4,
        stepId: 'a',
        previousStatus: 'in_progress',
        reason: 're-run approved',
      },
    ] as unknown as RunEvent[];
    for (const event of more) view.onEvent(event);
    view.close();
    expect(view.view.order).toEqual(['a', 'fix', 'b']);
    expect(view.view.steps.get('a')?.status).toBe('not_started');
    expect(out).toContain('a runs again: re-run approved');
  });
});
