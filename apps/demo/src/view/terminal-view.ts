import type { RunEvent } from '@closedloop/cortex';
import { createLogUpdate } from 'log-update';
import picocolors from 'picocolors';
import {
  addNote,
  applyRunEvent,
  createRunState,
  type RunState,
  type StepState,
  type TimelineEntry,
} from '../run-state/run-state';
import { terminalSafe } from './terminal-safe';

export { terminalSafe, terminalSafeLines } from './terminal-safe';

type Colors = ReturnType<typeof picocolors.createColors>;

const spinnerFrames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Where the view draws: a terminal stream (`process.stdout`) or anything with `write`. */
export interface TerminalStream {
  write(text: string): unknown;
  /** Width in columns; wrapped lines are measured against it (default 80). */
  columns?: number;
  /** Height in rows; a taller live block is clipped to it (default 24). */
  rows?: number;
  isTTY?: boolean;
}

/** Options of {@link createTerminalView}. */
export interface TerminalViewOptions {
  stream: TerminalStream;
  /**
   * `true`: activity lines scroll above a live block (the plan with spinners, elapsed times and
   * token usage) that is redrawn in place. `false`: plain lines, no escape codes, one per event.
   */
  live: boolean;
  /** Colours (default: on for a live view unless `NO_COLOR` is set or the terminal has none). */
  color?: boolean;
  /** Redraw interval of the live block in ms (default 100). */
  frameMs?: number;
  now?: () => number;
}

/** A sink for run events that draws them on a terminal. */
export interface TerminalView {
  onEvent(event: RunEvent): void;
  /** Adds a line of its own to the activity log (e.g. where the workspace is). */
  note(text: string): void;
  /** Stops redrawing and leaves the final picture (live) or prints it (plain); nothing if nothing happened. */
  close(): void;
  readonly state: RunState;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function statusIcon(step: StepState, frame: number, colors: Colors): string {
  if (step.removed) return colors.dim('↺');
  if (step.interrupted) return colors.yellow('⏸');
  switch (step.status) {
    case 'in_progress':
      return colors.cyan(spinnerFrames[frame % spinnerFrames.length] ?? '*');
    case 'completed':
      return step.unverified ? colors.yellow('✓?') : colors.green('✓');
    case 'failed':
      return colors.red('✗');
    case 'blocked':
      return colors.red('⊘');
    case 'skipped':
      return colors.dim('–');
    default:
      return colors.dim('·');
  }
}

/** The plan as lines: each step with its status, dependencies and elapsed time. */
export function renderSteps(
  state: RunState,
  options: { now: number; frame: number; colors: Colors },
): string[] {
  const { colors } = options;
  return state.order.flatMap((key) => {
    const step = state.steps.get(key);
    if (!step) return [];
    const elapsed =
      step.startedAt === null
        ? ''
        : colors.dim(` ${seconds((step.finishedAt ?? options.now) - step.startedAt)}`);
    const deps = step.dependsOn.length ? colors.dim(` ← ${terminalSafe(step.dependsOn.join(', '))}`) : '';
    const name = terminalSafe(`${step.id}: ${step.title}`);
    const label = step.removed ? colors.dim(`${name} (replaced)`) : name;
    const redesign = step.replaces.length ? colors.yellow(' [redesign]') : '';
    return [`  ${statusIcon(step, options.frame, colors)} ${label}${redesign}${deps}${elapsed}`];
  });
}

/** One timeline entry as a terminal line. */
export function renderTimelineEntry(entry: TimelineEntry, colors: Colors): string {
  entry = { ...entry, text: terminalSafe(entry.text) };
  if (entry.kind === 'tool-call') return colors.dim(`    ${entry.text}`);
  if (entry.kind === 'replan' && entry.tone === 'warn') return colors.yellow(`  ↺ ${entry.text}`);
  if (entry.kind === 'run-finished') return colors.bold(`  ■ ${entry.text}`);
  switch (entry.tone) {
    case 'error':
      return colors.red(`  ✗ ${entry.text}`);
    case 'warn':
      return colors.yellow(`  ! ${entry.text}`);
    case 'success':
      return colors.green(`  ✓ ${entry.text}`);
    default:
      return `  · ${entry.text}`;
  }
}

function usageLine(state: RunState, colors: Colors): string {
  const { inputTokens, outputTokens, costUsd, modelCalls } = state.usage;
  const cost = costUsd > 0 ? `, $${costUsd.toFixed(4)}` : '';
  return colors.dim(`  tokens: ${inputTokens} in / ${outputTokens} out${cost} · ${modelCalls} model calls`);
}

/** Timeline kinds the activity log prints (step starts show as spinners in the plan instead). */
function printable(entry: TimelineEntry): boolean {
  return entry.kind !== 'step-started';
}

/**
 * The CLI's view of a run, folded with the same {@link applyRunEvent} as the web UI. Live: the
 * block is drawn with `log-update`, which measures wrapped lines against the stream's width and
 * clips to its height, so a redraw at any width erases exactly what the previous frame drew and
 * leaves no copies in the scrollback; activity lines are persisted above it. Plain: one line per
 * activity, and the final plan at `close()`.
 */
export function createTerminalView(options: TerminalViewOptions): TerminalView {
  const state = createRunState();
  const { stream } = options;
  const colors = picocolors.createColors(options.color ?? (options.live && picocolors.isColorSupported));
  const now = options.now ?? Date.now;
  let frame = 0;
  let printed = 0;
  let closed = false;
  const logUpdate = options.live
    ? createLogUpdate(stream as NodeJS.WriteStream, { showCursor: stream !== process.stdout })
    : undefined;

  const block = () =>
    [
      '',
      colors.bold(`  plan${state.finished ? ` — ${state.finished.stopReason}` : ''}`),
      ...renderSteps(state, { now: now(), frame, colors }),
      usageLine(state, colors),
    ].join('\n');

  const newLines = (): string[] => {
    const lines: string[] = [];
    for (; printed < state.timeline.length; printed++) {
      const entry = state.timeline[printed];
      if (entry && printable(entry)) lines.push(renderTimelineEntry(entry, colors));
    }
    return lines;
  };

  // Nothing is drawn before the run says something (a refused start leaves no empty plan behind).
  const quiet = () => state.eventCount === 0 && state.timeline.length === 0;
  const draw = () => {
    if (closed || quiet()) return;
    const lines = newLines();
    if (!logUpdate) {
      for (const line of lines) stream.write(`${line}\n`);
      return;
    }
    if (lines.length) logUpdate.persist(lines.join('\n'));
    logUpdate(block());
  };

  const timer = logUpdate
    ? setInterval(() => {
        frame++;
        draw();
      }, options.frameMs ?? 100)
    : undefined;
  timer?.unref();

  return {
    state,
    onEvent(event) {
      applyRunEvent(state, event);
      draw();
    },
    note(text) {
      addNote(state, text, now());
      draw();
    },
    close() {
      if (closed) return;
      if (timer) clearInterval(timer);
      if (quiet()) {
        closed = true;
        return;
      }
      draw();
      closed = true;
      if (logUpdate) {
        // The last frame may have been clipped to the terminal's height: replace it with the whole
        // plan, written as ordinary lines that scroll.
        logUpdate.clear();
        logUpdate.done();
        stream.write(`${block()}\n`);
      } else {
        stream.write(
          `${renderSteps(state, { now: now(), frame: 0, colors }).join('\n')}\n${usageLine(state, colors)}\n`,
        );
      }
    },
  };
}
