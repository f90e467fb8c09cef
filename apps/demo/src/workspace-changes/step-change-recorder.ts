import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, normalize } from 'node:path';
import type { RunEvent } from '@closedloop/cortex';
import { createRedactor, type Redactor } from '@closedloop/model';
import { diffSnapshots, type FileChange } from './diff-snapshots';
import { type SnapshotLimits, snapshotWorkspace, type WorkspaceSnapshot } from './snapshot-workspace';

/** A changed file of a step, and whether the step's own file tools changed it. */
export type StepFileChange = FileChange & {
  /** A successful `write_file`/`edit_file`/`delete_file` call of this step named this path. */
  byStep: boolean;
};

/**
 * The workspace changes of one run of a step: the difference between a snapshot taken when the
 * step started (before its first tool call) and one taken when it finished (after its
 * verification). Steps that ran at the same time changed the same workspace: their changes can
 * appear here too, which `concurrentSteps` and each file's `byStep` make visible.
 */
export interface StepChanges {
  stepId: string;
  /** 1 for the step's first run in this journal, 2 for the next (after a reset or a resume)… */
  run: number;
  /** `step-started.attempt`: how many redesigns led to the step. */
  attempt: number;
  startedAt: number;
  finishedAt: number;
  status: 'completed' | 'failed' | 'blocked' | 'interrupted';
  files: StepFileChange[];
  /** Steps that ran during part of this step's run. */
  concurrentSteps: string[];
  /** The workspace had more files than a snapshot reads: changes beyond them are not seen. */
  truncated: boolean;
}

/** Watches a run's events and records each step's changes as a JSON file. */
export interface StepChangeRecorder {
  observe(event: RunEvent): void;
}

const fileTools = new Set(['write_file', 'edit_file', 'delete_file']);

function fileName(stepId: string, run: number): string {
  return `${encodeURIComponent(stepId)}.${run}.json`;
}

function runsRecorded(dir: string, stepId: string): number {
  try {
    const prefix = `${encodeURIComponent(stepId)}.`;
    return readdirSync(dir).filter(
      (name) => name.startsWith(prefix) && /^\d+\.json$/.test(name.slice(prefix.length)),
    ).length;
  } catch {
    return 0;
  }
}

function toolPath(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const path = (args as { path?: unknown }).path;
  return typeof path === 'string' ? normalize(path).replaceAll('\\', '/').replace(/^\.\//, '') : undefined;
}

/**
 * Creates the recorder of a run: snapshots are synchronous (the listener runs before the
 * executor's first tool call), one file per step run goes to `dir`.
 */
export function createStepChangeRecorder(options: {
  workspace: string;
  dir: string;
  limits?: SnapshotLimits;
  /**
   * Applied to every record before it is written: the diffs quote the workspace's files (a `.env`
   * edited next to a key line shows it as context), and the web UI serves them. Default
   * `createRedactor()`; `false` turns it off.
   */
  redactor?: Redactor | false;
}): StepChangeRecorder {
  const redactor = options.redactor === false ? undefined : (options.redactor ?? createRedactor());
  interface Running {
    baseline: WorkspaceSnapshot;
    run: number;
    attempt: number;
    startedAt: number;
    touched: Set<string>;
    concurrent: Set<string>;
  }
  const running = new Map<string, Running>();
  const pendingCalls = new Map<string, { stepId: string; path: string }>();

  const finish = (stepId: string, status: StepChanges['status'], at: number) => {
    const step = running.get(stepId);
    if (!step) return;
    running.delete(stepId);
    const after = snapshotWorkspace(options.workspace, options.limits);
    const record: StepChanges = {
      stepId,
      run: step.run,
      attempt: step.attempt,
      startedAt: step.startedAt,
      finishedAt: at,
      status,
      files: diffSnapshots(step.baseline, after).map((change) => ({
        ...change,
        byStep: step.touched.has(change.path),
      })),
      concurrentSteps: [...step.concurrent],
      truncated: step.baseline.truncated || after.truncated,
    };
    try {
      mkdirSync(options.dir, { recursive: true });
      const clean = redactor ? redactor.redactValue(record) : record;
      // Written aside and renamed into place: a process killed mid-write leaves a stray temporary
      // file (not counted, not read), never a torn record that every later read would fail on.
      const path = join(options.dir, fileName(stepId, step.run));
      const temporary = `${path}.${process.pid}.tmp`;
      writeFileSync(temporary, `${JSON.stringify(clean)}\n`);
      renameSync(temporary, path);
    } catch {
      // Recording is best effort: a full disk must not stop the run.
    }
  };

  return {
    observe(event) {
      switch (event.type) {
        case 'step-started': {
          for (const [id, other] of running) if (id !== event.stepId) other.concurrent.add(event.stepId);
          const concurrent = new Set([...running.keys()].filter((id) => id !== event.stepId));
          running.set(event.stepId, {
            baseline: snapshotWorkspace(options.workspace, options.limits),
            run: runsRecorded(options.dir, event.stepId) + 1,
            attempt: event.attempt,
            startedAt: event.at,
            touched: new Set(),
            concurrent,
          });
          break;
        }
        case 'tool-call-started': {
          const path = fileTools.has(event.tool) ? toolPath(event.args) : undefined;
          if (path !== undefined)
            pendingCalls.set(`${event.stepId}:${event.callId}`, { stepId: event.stepId, path });
          break;
        }
        case 'tool-call-finished': {
          const key = `${event.stepId}:${event.callId}`;
          const call = pendingCalls.get(key);
          pendingCalls.delete(key);
          if (call && event.status === 'success') running.get(call.stepId)?.touched.add(call.path);
          break;
        }
        case 'step-finished':
          finish(event.stepId, event.status, event.at);
          break;
        case 'run-finished':
          for (const stepId of [...running.keys()]) finish(stepId, 'interrupted', event.at);
          break;
        default:
          break;
      }
    },
  };
}

/**
 * Every recorded run of a step, oldest first (`[]` when none was recorded). A record that does
 * not parse (torn by a kill mid-write, by a version that wrote in place) is skipped.
 */
export function readStepChanges(dir: string, stepId: string): StepChanges[] {
  const records: StepChanges[] = [];
  for (let run = 1; ; run++) {
    let text: string;
    try {
      text = readFileSync(join(dir, fileName(stepId, run)), 'utf8');
    } catch {
      return records;
    }
    try {
      records.push(JSON.parse(text) as StepChanges);
    } catch {
      // torn: skipped
    }
  }
}
