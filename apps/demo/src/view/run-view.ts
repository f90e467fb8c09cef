import type { RunEvent } from '@closedloop/cortex';
import type { StepId, StepStatus } from '@closedloop/plan';

/** One step as the live view shows it. */
export interface StepView {
  id: StepId;
  title: string;
  dependsOn: StepId[];
  status: StepStatus;
  startedAt?: number;
  finishedAt?: number;
  attempts: number;
  unverified: boolean;
  /** Replaced by a redesign: kept, greyed out, so the surgery stays visible. */
  replacedBy?: StepId[];
  replaces: StepId[];
}

/** A line of the run's activity log. */
export interface LogLine {
  at: number;
  kind: 'info' | 'tool' | 'finding-fail' | 'finding-pass' | 'finding-warn' | 'replan' | 'error' | 'done';
  text: string;
}

/** Everything the CLI and the web UI render, folded from the run's events. */
export interface RunView {
  runId?: string;
  request?: string;
  steps: Map<StepId, StepView>;
  /** Step ids in display order, replaced steps included where they stood. */
  order: StepId[];
  log: LogLine[];
  usage: { inputTokens: number; outputTokens: number; costUsd: number };
  stopReason?: string;
  finishedAt?: number;
  startedAt?: number;
}

export function createRunView(): RunView {
  return { steps: new Map(), order: [], log: [], usage: { inputTokens: 0, outputTokens: 0, costUsd: 0 } };
}

function shorten(value: unknown, max = 60): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  if (text === undefined) return '';
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

function addStep(
  view: RunView,
  step: { id: StepId; title?: string; description: string; dependsOn?: StepId[] },
) {
  view.steps.set(step.id, {
    id: step.id,
    title: step.title ?? step.description,
    dependsOn: step.dependsOn ?? [],
    status: 'not_started',
    attempts: 0,
    unverified: false,
    replaces: [],
  });
}

/** Folds one event into the view (mutates and returns it). Unknown events are ignored. */
export function applyRunEvent(view: RunView, event: RunEvent): RunView {
  const log = (kind: LogLine['kind'], text: string) => view.log.push({ at: event.at, kind, text });
  switch (event.type) {
    case 'run-started':
      view.runId = event.runId;
      view.request = event.request;
      view.startedAt = event.at;
      log('info', `${event.resumed ? 'resumed' : 'started'} run ${event.runId}`);
      break;
    case 'plan-created':
      for (const step of event.steps) {
        addStep(view, step);
        view.order.push(step.id);
      }
      log('info', `plan: ${event.steps.length} steps`);
      break;
    case 'step-started': {
      const step = view.steps.get(event.stepId);
      if (step) {
        step.status = 'in_progress';
        step.startedAt = event.at;
        step.finishedAt = undefined;
        step.attempts = event.attempt;
      }
      break;
    }
    case 'step-marked': {
      const step = view.steps.get(event.stepId);
      if (step && event.status) step.status = event.status;
      break;
    }
    case 'tool-call-started':
      log('tool', `${event.stepId} → ${event.tool}(${shorten(event.args)})`);
      break;
    case 'tool-call-finished':
      if (event.status === 'error') log('error', `${event.stepId} ✗ ${shorten(event.error, 100)}`);
      break;
    case 'step-finished': {
      const step = view.steps.get(event.stepId);
      if (step) {
        // An interrupted step (cancelled mid-run) goes back to waiting: resume runs it again.
        step.status = event.status === 'interrupted' ? 'not_started' : event.status;
        step.finishedAt = event.at;
        step.unverified = event.unverified;
      }
      break;
    }
    case 'finding-reported': {
      const { finding } = event;
      if (finding.status === 'pass') break;
      const kind = finding.status === 'fail' ? 'finding-fail' : 'finding-warn';
      const where = event.stepId ? `${event.stepId}: ` : 'goal: ';
      log(kind, `${where}[${finding.priority} ${finding.check}] ${finding.message}`);
      break;
    }
    case 'replan-applied': {
      const added = event.added.map((step) => step.id);
      for (const id of event.removed) {
        const step = view.steps.get(id);
        if (step) step.replacedBy = added;
      }
      const at = view.order.indexOf(event.removed[event.removed.length - 1] ?? '');
      const insertAt = at === -1 ? view.order.length : at + 1;
      view.order.splice(insertAt, 0, ...added);
      for (const step of event.added) {
        addStep(view, step);
        const added_ = view.steps.get(step.id);
        if (added_) added_.replaces = step.replaces;
      }
      log('replan', `replanned ${event.removed.join(', ')} → ${added.join(', ')}`);
      break;
    }
    case 'steps-added': {
      const live = view.order.filter((id) => !view.steps.get(id)?.replacedBy);
      const before = live[event.insertAt];
      const position = before === undefined ? view.order.length : view.order.indexOf(before);
      view.order.splice(position, 0, ...event.added.map((step) => step.id));
      for (const step of event.added) addStep(view, step);
      log('info', `added ${event.added.map((step) => step.id).join(', ')}`);
      break;
    }
    case 'step-reset': {
      const step = view.steps.get(event.stepId);
      if (step) {
        step.status = 'not_started';
        step.finishedAt = undefined;
        step.unverified = false;
      }
      log('info', `${event.stepId} runs again: ${event.reason}`);
      break;
    }
    case 'replan-finished':
      if (event.action !== 'redesign') log('replan', `replan ${event.action}: ${event.message ?? ''}`);
      break;
    case 'goal-verified':
      log(
        event.assessment === 'all-pass' ? 'finding-pass' : 'finding-warn',
        `goal verification (iteration ${event.iteration}): ${event.verdict ?? event.assessment}`,
      );
      break;
    case 'usage-recorded':
      view.usage.inputTokens += event.usage.inputTokens;
      view.usage.outputTokens += event.usage.outputTokens;
      view.usage.costUsd += event.costUsd;
      break;
    case 'run-finished':
      view.stopReason = event.stopReason;
      view.finishedAt = event.at;
      log('done', `run finished: ${event.stopReason} — ${event.reason}`);
      break;
    default:
      break;
  }
  return view;
}
