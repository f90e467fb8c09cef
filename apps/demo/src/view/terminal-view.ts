import type { RunEvent } from '@closedloop/cortex';
import { applyRunEvent, createRunView, type LogLine, type RunView, type StepView } from './run-view';

const spinnerFrames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

interface Palette {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

function palette(enabled: boolean): Palette {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\x1b[${open}m${text}\x1b[${close}m` : text;
  return {
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
    dim: wrap(2, 22),
    bold: wrap(1, 22),
  };
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function statusIcon(step: StepView, frame: number, colors: Palette): string {
  if (step.replacedBy) return colors.dim('↺');
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

/** Renders the plan as an indented list: each step with its dependencies, status and elapsed time. */
export function renderSteps(
  view: RunView,
  options: { now: number; frame: number; colors: Palette },
): string[] {
  const { colors } = options;
  return view.order.flatMap((id) => {
    const step = view.steps.get(id);
    if (!step) return [];
    const elapsed =
      step.startedAt === undefined
        ? ''
        : colors.dim(` ${seconds((step.finishedAt ?? options.now) - step.startedAt)}`);
    const deps = step.dependsOn.length ? colors.dim(` ← ${step.dependsOn.join(', ')}`) : '';
    const label = step.replacedBy
      ? colors.dim(`${step.id}: ${step.title} (replaced)`)
      : `${step.id}: ${step.title}`;
    const attempt = step.replaces.length ? colors.yellow(' [redesign]') : '';
    return [`  ${statusIcon(step, options.frame, colors)} ${label}${attempt}${deps}${elapsed}`];
  });
}

function renderLogLine(line: LogLine, colors: Palette): string {
  switch (line.kind) {
    case 'finding-fail':
    case 'error':
      return colors.red(`  ✗ ${line.text}`);
    case 'finding-warn':
      return colors.yellow(`  ! ${line.text}`);
    case 'finding-pass':
      return colors.green(`  ✓ ${line.text}`);
    case 'replan':
      return colors.yellow(`  ↺ ${line.text}`);
    case 'tool':
      return colors.dim(`    ${line.text}`);
    case 'done':
      return colors.bold(`  ■ ${line.text}`);
    default:
      return `  · ${line.text}`;
  }
}

function usageLine(view: RunView, colors: Palette): string {
  const { inputTokens, outputTokens, costUsd } = view.usage;
  const cost = costUsd > 0 ? `, $${costUsd.toFixed(4)}` : '';
  return colors.dim(`  tokens: ${inputTokens} in / ${outputTokens} out${cost}`);
}

/** A sink for run events that draws them on a terminal. */
export interface TerminalView {
  onEvent(event: RunEvent): void;
  /** Adds a line of its own to the activity log (e.g. where the workspace is). */
  note(text: string): void;
  /** Stops redrawing and prints the final picture. */
  close(): void;
  readonly view: RunView;
}

/**
 * Live terminal view. On a TTY: activity lines scroll above a status block (the DAG with
 * spinners, elapsed times, token usage) redrawn ten times a second. Elsewhere: plain lines,
 * no escape codes, one per event worth showing.
 */
export function createTerminalView(options: {
  write: (text: string) => void;
  tty: boolean;
  color?: boolean;
  now?: () => number;
}): TerminalView {
  const view = createRunView();
  const colors = palette(options.color ?? (options.tty && !process.env.NO_COLOR));
  const now = options.now ?? Date.now;
  let frame = 0;
  let drawnLines = 0;
  let printedLog = 0;
  const statuses = new Map<string, string>();

  const block = () => [
    '',
    colors.bold(`  plan${view.stopReason ? ` — ${view.stopReason}` : ''}`),
    ...renderSteps(view, { now: now(), frame, colors }),
    usageLine(view, colors),
  ];

  const redraw = () => {
    let out = drawnLines > 0 ? `\x1b[${drawnLines}A\x1b[J` : '';
    for (; printedLog < view.log.length; printedLog++) {
      const line = view.log[printedLog];
      if (line) out += `${renderLogLine(line, colors)}\n`;
    }
    const lines = block();
    out += `${lines.join('\n')}\n`;
    drawnLines = lines.length;
    options.write(out);
  };

  const printPlain = () => {
    for (; printedLog < view.log.length; printedLog++) {
      const line = view.log[printedLog];
      if (line) options.write(`${renderLogLine(line, colors)}\n`);
    }
    for (const id of view.order) {
      const step = view.steps.get(id);
      if (!step) continue;
      const status = step.replacedBy ? 'replaced' : step.status;
      if (statuses.get(id) !== status) {
        if (statuses.has(id) || status !== 'not_started') {
          options.write(`  [${status}] ${id}: ${step.title}\n`);
        }
        statuses.set(id, status);
      }
    }
  };

  const timer = options.tty
    ? setInterval(() => {
        frame++;
        redraw();
      }, 100)
    : undefined;
  timer?.unref();

  return {
    view,
    onEvent(event) {
      applyRunEvent(view, event);
      if (options.tty) redraw();
      else printPlain();
    },
    note(text) {
      view.log.push({ at: now(), kind: 'info', text });
      if (options.tty) redraw();
      else printPlain();
    },
    close() {
      if (timer) clearInterval(timer);
      if (options.tty) redraw();
      else {
        printPlain();
        options.write(
          `${renderSteps(view, { now: now(), frame: 0, colors }).join('\n')}\n${usageLine(view, colors)}\n`,
        );
      }
    },
  };
}
