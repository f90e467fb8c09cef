import type { RunEvent } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';
import { scriptedRunEvents } from '../__fixtures__/scripted-run-events';
import { createVirtualTerminal } from './__fixtures__/virtual-terminal';
import { createTerminalView } from './terminal-view';

/** The scripted run with real-looking times: one event every 50 ms. */
const events = scriptedRunEvents({ runId: 'run-1', request: 'Add isPrime' }).map(
  (event, index) => ({ ...event, at: 1_000_000 + index * 50 }) as RunEvent,
);
const end = 1_000_000 + events.length * 50;
const titles: Record<string, string> = {
  inspect: 'Inspect the workspace',
  'write-impl': 'Write isPrime',
  'write-impl-2': 'Write isPrime (write_file)',
  'write-tests': 'Write the tests',
  'run-tests': 'Run the tests',
  'run-tests-2': 'Run the tests',
};
/** A step's line in the plan block (not an activity line that mentions the step). */
const stepLine = (id: string) => ({
  test: (line: string) =>
    /^ {2}\S{1,2} /.test(line) && line.slice(line.indexOf(' ', 2) + 1).startsWith(`${id}: ${titles[id]}`),
});

async function playLive(options: { columns: number; rows: number; reportedColumns?: number }) {
  const terminal = createVirtualTerminal(options);
  const stream = { ...terminal.stream, columns: options.reportedColumns ?? options.columns };
  stream.write = terminal.stream.write;
  let clock = 1_000_000;
  const view = createTerminalView({ stream, live: true, color: true, now: () => clock, frameMs: 60_000 });
  view.note('workspace: /tmp/closedloop-demo-abc123');
  for (const event of events) {
    clock = event.at;
    view.onEvent(event);
  }
  clock = end;
  view.close();
  const lines = await terminal.lines();
  terminal.dispose();
  return lines;
}

describe('terminal view (live)', () => {
  it('at 50 columns leaves exactly one copy of the plan in the scrollback, however often it redrew', async () => {
    const lines = await playLive({ columns: 50, rows: 40 });
    // Step lines of this run are longer than 50 columns (dependencies + elapsed time): they wrap.
    expect(lines.filter((line) => line.length > 50).length).toBeGreaterThan(0);
    expect(lines.filter((line) => /^ {2}plan\b/.test(line))).toEqual(['  plan — completed-with-warnings']);
    for (const id of ['inspect', 'write-impl', 'write-impl-2', 'write-tests', 'run-tests', 'run-tests-2']) {
      expect(
        lines.filter((line) => stepLine(id).test(line)),
        id,
      ).toHaveLength(1);
    }
    expect(lines.filter((line) => line.includes('tokens:'))).toHaveLength(1);
    // Activity lines are persisted above the block, once each and in order.
    const failed = lines.findIndex((line) => line.includes('“Write isPrime” failed verification'));
    const replanned = lines.findIndex((line) => line.includes('↺ Replanned: Write isPrime, Run the tests'));
    expect(failed).toBeGreaterThan(0);
    expect(replanned).toBeGreaterThan(failed);
    expect(lines.filter((line) => line.includes('workspace: /tmp/closedloop-demo-abc123'))).toHaveLength(1);
    expect(lines.filter((line) => line.includes('inspect → list_dir'))).toHaveLength(1);
    expect(lines.at(-1)).toMatch(/tokens: \d+ in \/ \d+ out, \$0\.\d{4} · 14 model calls/);
  });

  it('guards against the bug: a renderer that counts lines at the wrong width leaves copies', async () => {
    // Same output, but the stream claims 500 columns: wrapped rows go uncounted on redraw.
    const lines = await playLive({ columns: 50, rows: 40, reportedColumns: 500 });
    expect(lines.filter((line) => stepLine('inspect').test(line)).length).toBeGreaterThan(1);
  });

  it('clips a block taller than the terminal while running, and prints the whole plan at the end', async () => {
    const lines = await playLive({ columns: 50, rows: 6 });
    expect(lines.filter((line) => /^ {2}plan\b/.test(line))).toHaveLength(1);
    for (const id of ['inspect', 'write-impl-2', 'run-tests-2']) {
      expect(
        lines.filter((line) => stepLine(id).test(line)),
        id,
      ).toHaveLength(1);
    }
  });

  it('draws statuses, redesign marks, dependencies and elapsed times', async () => {
    const lines = await playLive({ columns: 120, rows: 40 });
    const plan = lines.slice(lines.findIndex((line) => /^ {2}plan\b/.test(line)));
    expect(plan).toEqual([
      '  plan — completed-with-warnings',
      expect.stringMatching(/^ {2}✓ inspect: Inspect the workspace \d+\.\ds$/),
      expect.stringMatching(/^ {2}↺ write-impl: Write isPrime \(replaced\) ← inspect \d+\.\ds$/),
      expect.stringMatching(
        /^ {2}✓ write-impl-2: Write isPrime \(write_file\) \[redesign\] ← inspect \d+\.\ds$/,
      ),
      expect.stringMatching(/^ {2}✓\? write-tests: Write the tests ← inspect \d+\.\ds$/),
      '  ↺ run-tests: Run the tests (replaced) ← write-impl, write-tests',
      expect.stringMatching(
        /^ {2}✓ run-tests-2: Run the tests \[redesign\] ← write-impl-2, write-tests \d+\.\ds$/,
      ),
      expect.stringMatching(/tokens: /),
    ]);
  });
});

describe('terminal view (plain)', () => {
  it('prints plain lines without escape codes when stdout is not a TTY', () => {
    let out = '';
    const view = createTerminalView({
      stream: { write: (text: string) => (out += text) },
      live: false,
      now: () => end,
    });
    for (const event of events) view.onEvent(event);
    view.close();
    expect(out).not.toContain('\x1b');
    expect(out).toContain(
      '✗ write-impl: [P0 claims.file-exists] claimed file src/is-prime.ts does not exist',
    );
    expect(out).toContain('✗ “Write isPrime” failed verification: claimed file src/is-prime.ts');
    expect(out).toContain(
      '↺ Replanned: Write isPrime, Run the tests → Write isPrime (write_file), Run the tests',
    );
    expect(out).toContain('✓ “Write isPrime (write_file)” completed and verified');
    expect(out).toContain('↺ write-impl: Write isPrime (replaced)');
    expect(out).toContain('■ Run finished: completed-with-warnings');
    expect(out).toMatch(/tokens: \d+ in \/ \d+ out/);
  });

  it('never passes a model’s control characters to the terminal (escape sequences, forged lines)', () => {
    // A hostile plan: a step title that sets the user's clipboard (OSC 52), clears the screen, and
    // forges a verified line of its own; the same in a tool call's text.
    const hostile =
      'Inspect\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\r\n  ✓ forged: all verified\u009b31m \u202Etxt.exe\u2066';
    const forged = events.map((event) =>
      JSON.parse(
        JSON.stringify(event).replaceAll('Inspect the workspace', JSON.stringify(hostile).slice(1, -1)),
      ),
    ) as RunEvent[];
    for (const live of [false, true]) {
      let out = '';
      const view = createTerminalView({
        stream: { write: (text: string) => (out += text), columns: 200, rows: 100, isTTY: live },
        live,
        color: false,
        now: () => end,
        frameMs: 1_000_000,
      });
      for (const event of forged) view.onEvent(event);
      view.note(`workspace ${hostile}`);
      view.close();
      // Only the live view's own cursor and erase codes, never the model's.
      expect(out).not.toContain('\u001b]52');
      expect(out).not.toContain('\u001b[2J');
      expect(out).not.toContain('\u009b');
      expect(out).not.toContain('\u0007');
      // Nor a bidi override that shows text reversed (`\u202Etxt.exe` as `exe.txt`).
      expect(out).not.toContain('\u202E');
      expect(out).not.toContain('\u2066');
      expect(out.split('\n').filter((line) => line.trimStart().startsWith('✓ forged'))).toEqual([]);
      expect(out).toContain('inspect: Inspect');
    }
  });

  it('draws nothing when the run never said anything (a refused start)', async () => {
    let out = '';
    const plain = createTerminalView({ stream: { write: (text: string) => (out += text) }, live: false });
    plain.close();
    const terminal = createVirtualTerminal({ columns: 50, rows: 10 });
    const live = createTerminalView({ stream: terminal.stream, live: true, frameMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    live.close();
    expect(out).toBe('');
    expect(await terminal.lines()).toEqual([]);
    terminal.dispose();
  });

  it('places steps added by goal repair and shows a reset step waiting again', () => {
    let out = '';
    const view = createTerminalView({ stream: { write: (text: string) => (out += text) }, live: false });
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
    expect(view.state.order).toEqual(['a', 'fix', 'b']);
    expect(view.state.steps.get('a')?.status).toBe('not_started');
    expect(out).toContain('Running “A” again: re-run approved');
  });
});
