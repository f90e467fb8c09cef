import type { Plan, StepId } from '@closedloop/plan';
import { type DispatchSnapshot, type FileState, fileState, resolveWorkspacePath } from './dispatch-snapshot';
import type { RunEvent } from './run-events';

/** A recorded file effect of an interrupted step that the workspace no longer shows. */
export interface ChangedEffect {
  stepId: StepId;
  callId: string;
  tool: string;
  path: string;
  /** What the call left and what is there now, for the question or the step's note. */
  detail: string;
}

function describe(state: FileState): string {
  if (state.type === 'file') return `${state.bytes} bytes (sha256 ${state.sha256.slice(0, 12)}…)`;
  return state.type === 'missing' ? 'missing' : `a ${state.type}`;
}

/**
 * The file effects of the interrupted (`in_progress`) steps that were recorded as done but are no
 * longer in the workspace: for each path, the last `write_file` / `edit_file` / `delete_file` (or
 * literal shell write) a step recorded a success for must still hold what the call produced
 * (its dispatch snapshot's `after`; for a delete, nothing). A path changed since — between the
 * crash and the resume, by someone else — is returned, so the resume does not take the outside
 * edit for the step's own effect. A command dispatched after a file call may have changed any file
 * (its effect is not known file by file): the paths written before it are not judged.
 */
export function findChangedEffects(options: {
  plan: Plan;
  history: readonly RunEvent[];
  workspace: string | undefined;
}): ChangedEffect[] {
  const { plan, history, workspace } = options;
  if (workspace === undefined) return [];
  const interrupted = new Set(plan.idsWithStatus('in_progress'));
  /** Per path, the last call that wrote it, with what it was to leave (`undefined`: not judged). */
  const last = new Map<string, { stepId: StepId; callId: string; snapshot: DispatchSnapshot } | undefined>();
  for (const event of history) {
    if (event.type !== 'tool-call-dispatched') continue;
    const snapshot = event.before as DispatchSnapshot | undefined;
    if (snapshot === undefined) continue;
    if (snapshot.kind === 'workspace') {
      for (const path of last.keys()) last.set(path, undefined);
      continue;
    }
    last.set(
      snapshot.path,
      interrupted.has(event.stepId) ? { stepId: event.stepId, callId: event.callId, snapshot } : undefined,
    );
  }
  const changed: ChangedEffect[] = [];
  for (const [path, entry] of last) {
    if (entry === undefined || entry.snapshot.kind !== 'file') continue;
    const call = plan.readStep(entry.stepId).ledger.find((record) => record.callId === entry.callId);
    if (call?.status !== 'success') continue;
    const absolute = resolveWorkspacePath(workspace, path);
    if (absolute === undefined) continue;
    const now = fileState(workspace, absolute);
    const expected = entry.snapshot.after;
    const holds =
      call.tool === 'delete_file'
        ? now.type === 'missing'
        : expected !== undefined && now.type === 'file' && now.sha256 === expected.sha256;
    if (holds || (call.tool !== 'delete_file' && expected === undefined)) continue;
    changed.push({
      stepId: entry.stepId,
      callId: entry.callId,
      tool: call.tool,
      path,
      detail: `${path} was changed after ${call.tool} (${entry.callId}) recorded its effect and before this resume: it was to ${
        call.tool === 'delete_file' ? 'be gone' : `hold ${expected!.sha256.slice(0, 12)}…`
      } and is ${describe(now)} now`,
    });
  }
  return changed;
}
