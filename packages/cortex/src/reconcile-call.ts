import type { ToolCallRecord } from '@closedloop/plan';
import type { ToolRegistry } from '@closedloop/tools';
import { type CommandExit, readCommandExit, removeInterruptedWrites } from '@closedloop/tools/internal';
import type { ApprovalDecision, ApprovalQuestion } from './approvals';
import {
  type DispatchSnapshot,
  type FileState,
  fileContent,
  fileState,
  gitFingerprint,
  removeLeftoverGitLocks,
  resolveWorkspacePath,
  sameFileState,
  workspaceFingerprint,
} from './dispatch-snapshot';
import { type RecordedProcess, settleLeftoverProcesses } from './leftover-processes';
import type { RunEventOf } from './run-events';

/**
 * What resume does with a non-idempotent call (a command, a custom tool) that started but has no
 * recorded result: `ask` a human (default), `rerun` it, or `fail` the step (it is replanned).
 */
export type UncertainCallPolicy = 'ask' | 'rerun' | 'fail';

/** Every policy, for option checks and CLI flags. */
export const uncertainCallPolicies: readonly UncertainCallPolicy[] = ['ask', 'rerun', 'fail'];

/** How one uncertain call is settled. */
export interface Reconciliation {
  outcome: RunEventOf<'tool-call-reconciled'>['outcome'];
  /**
   * `record`: store `status` + `text` as the call's result (it is not run again); `rerun`: run it
   * again when the step continues; `block` / `fail`: the step stops (blocked, or failed and
   * replanned) with `text` as its `[FAIL]` note.
   */
  action: 'record' | 'rerun' | 'block' | 'fail';
  status?: 'success' | 'error';
  /** The recorded result, or the step's note. */
  text: string;
  /** What was compared and found. */
  detail: string;
}

function describeState(state: FileState): string {
  switch (state.type) {
    case 'missing':
      return 'missing';
    case 'file':
      return `${state.bytes} bytes (sha256 ${state.sha256.slice(0, 12)}…)`;
    default:
      return `a ${state.type}`;
  }
}

const prefix = 'resumed after an interruption:';

/** Compares the workspace with what a `write_file` / `edit_file` / `delete_file` call was to do. */
async function reconcileFileCall(
  call: ToolCallRecord,
  snapshot: Extract<DispatchSnapshot, { kind: 'file' }>,
  workspace: string,
  registry: ToolRegistry,
): Promise<Reconciliation> {
  const args = (call.args ?? {}) as { content?: unknown };
  // A write is atomic (a temporary file renamed into place): a kill leaves the file as it was or
  // whole, plus at worst that temporary file beside it, removed here before anything is judged.
  const leftovers =
    call.tool === 'delete_file'
      ? []
      : await removeInterruptedWrites(workspace, snapshot.path).catch(() => []);
  const absolute = resolveWorkspacePath(workspace, snapshot.path);
  const now: FileState = absolute === undefined ? { type: 'missing' } : fileState(workspace, absolute);
  const before = snapshot.state;
  const seen = `${snapshot.path} was ${describeState(before)} before the call and is ${describeState(now)} now${
    leftovers.length === 0 ? '' : ` (the unfinished temporary file ${leftovers.join(', ')} was removed)`
  }`;
  const applied = (what: string): Reconciliation => ({
    outcome: 'applied',
    action: 'record',
    status: 'success',
    text: `${prefix} ${call.tool} had already taken effect (${what}); it was not run again.`,
    detail: seen,
  });
  const notApplied = (how = 'had not taken effect'): Reconciliation => ({
    outcome: 'not-applied',
    action: 'rerun',
    text: `${call.tool} ${how}; it runs again`,
    detail: seen,
  });
  const conflicting: Reconciliation = {
    outcome: 'conflicting',
    action: 'record',
    status: 'error',
    text: `Error (interrupted): ${prefix} ${snapshot.path} changed while ${call.tool} was interrupted, and it is neither the state before the call nor the one it was to produce (${seen}). The call was not run again: read the file and decide.`,
    detail: seen,
  };

  if (call.tool === 'delete_file') {
    if (now.type === 'missing' && before.type !== 'missing') return applied(`${snapshot.path} is gone`);
    return sameFileState(now, before) ? notApplied() : conflicting;
  }
  const after = snapshot.after;
  if (after !== undefined && now.type === 'file' && now.sha256 === after.sha256) {
    return applied(`${snapshot.path} holds the content the call was to produce`);
  }
  if (sameFileState(now, before)) return notApplied();
  // Cut off in the middle of writing (the file holds the start of what it was to hold): finish it.
  const intended =
    call.tool === 'write_file' && typeof args.content === 'string' ? args.content : after?.text;
  if (intended !== undefined && absolute !== undefined && now.type === 'file') {
    // Compared as bytes: a write cut off at a page boundary can end inside a multibyte
    // character, which decoded text would turn into U+FFFD and never match.
    const partial = fileContent(workspace, absolute) ?? Buffer.alloc(0);
    const target = Buffer.from(intended, 'utf8');
    if (partial.length <= target.length && target.subarray(0, partial.length).equals(partial)) {
      // Cut off in the middle of writing: the call is finished here with the text it was to
      // produce (run again, a write would now overwrite a file and an edit would find no match).
      const written = await registry.execute(
        'write_file',
        { path: snapshot.path, content: intended },
        { signal: new AbortController().signal, callId: `${call.callId}:completion` },
      );
      if (written.status === 'success') {
        return {
          outcome: 'applied',
          action: 'record',
          status: 'success',
          text: `${prefix} ${call.tool} was cut off in the middle of writing ${snapshot.path}; the text it was to produce was written, so it is applied once.`,
          detail: `${seen}; completed with write_file`,
        };
      }
    }
  }
  return conflicting;
}

/**
 * Settles a tool call that started (`tool-call-dispatched`) but has no recorded result, from
 * evidence rather than hope:
 * - `write_file` / `edit_file` / `delete_file` (with the file snapshot taken at dispatch): the
 *   workspace is compared with the call's intended effect — `applied` (recorded as done),
 *   `not-applied` (re-run: it applies once; a write or an edit cut off mid-file is completed
 *   with the text it was to produce and recorded as applied), `conflicting` (recorded as an
 *   error; the model sees it). An edit is never applied twice.
 * - other idempotent tools: re-run.
 * - non-idempotent tools (commands): `onUncertain` — `rerun`, `fail` (the step fails and is
 *   replanned), or `ask` (default): a human is asked with the evidence. When the workspace did
 *   not change since the call started, the question is whether to run it again; when it did (the
 *   call ran, at least in part, and its output is lost), whether to accept it as done. Without
 *   approval the step is blocked.
 */
export async function reconcileUncertainCall(options: {
  stepId: string;
  call: ToolCallRecord;
  before: unknown;
  /** Processes the call started (a command's): they are waited for (or killed) before judging. */
  processes?: readonly RecordedProcess[];
  /** The environment tag the call's processes carry (journaled at dispatch): they are settled too. */
  processTag?: string | undefined;
  registry: ToolRegistry;
  workspace: string | undefined;
  policy: UncertainCallPolicy;
  ask: (question: ApprovalQuestion) => Promise<ApprovalDecision>;
}): Promise<Reconciliation> {
  const { call, registry, workspace, policy } = options;
  // A command can outlive its killed owner: its effect must be over before the workspace is judged.
  const leftovers = await settleLeftoverProcesses(options.processes ?? [], {
    ...(options.processTag === undefined ? {} : { tags: [options.processTag] }),
  });
  const lingered =
    leftovers.waitedFor.length === 0
      ? ''
      : `; it was still running (pid ${leftovers.waitedFor.join(', ')}) and was ${leftovers.killed.length > 0 ? 'killed after the wait' : 'waited for'}`;
  const snapshot = options.before as DispatchSnapshot | undefined;
  // A git command killed with its owner leaves its lock files: they would fail every later git
  // command, and a ref's lock would pass for a changed history. Its processes are gone by now.
  const unlocked =
    snapshot?.kind === 'workspace' && snapshot.gitLocks !== undefined && workspace !== undefined
      ? removeLeftoverGitLocks(workspace, snapshot.gitLocks)
      : [];
  if (snapshot?.kind === 'file' && workspace !== undefined) {
    return reconcileFileCall(call, snapshot, workspace, registry);
  }
  const tool = registry.get(call.tool);
  if (tool?.idempotent) {
    return {
      outcome: 're-run',
      action: 'rerun',
      text: `${call.tool} is idempotent; it runs again`,
      detail: `${call.tool} is idempotent`,
    };
  }
  const described = `${call.tool} ${JSON.stringify(call.args)}`;
  // The sandbox kept how the command ended: when it ran to its end, its exit code is known (only
  // its output was lost) and nothing is left to ask.
  const exit: CommandExit =
    options.processTag === undefined ? { kind: 'unknown' } : readCommandExit(options.processTag);
  if (exit.kind === 'exited') {
    const ended = `it ran to its end before the interruption (exit code ${exit.exitCode}, kept by its sandbox)${lingered}`;
    return {
      outcome: 'applied',
      action: 'record',
      status: exit.exitCode === 0 ? 'success' : 'error',
      text:
        exit.exitCode === 0
          ? `${prefix} ${call.tool} ${ended}; it was not run again. Its output is not available.`
          : `Error (interrupted): ${prefix} ${call.tool} ${ended}; it was not run again. Its output is not available.`,
      detail: ended,
    };
  }
  let changed: boolean | undefined;
  if (snapshot?.kind === 'workspace' && workspace !== undefined) {
    // A journal from before `git` was snapshotted has none: only the files are compared then.
    changed =
      workspaceFingerprint(workspace).fingerprint !== snapshot.fingerprint ||
      (snapshot.git !== undefined && gitFingerprint(workspace) !== snapshot.git);
  }
  const evidence = `${
    changed === undefined
      ? 'whether it took effect is unknown'
      : changed
        ? 'the workspace changed since it started, so it ran at least in part; its result was lost'
        : 'the workspace has not changed since it started (it may still have had effects outside it)'
  }${
    // Killed with its owner, its sandbox could not say how it ended: cut off part way, or just
    // after its end (between the command's exit and the sandbox's record of it).
    exit.kind === 'interrupted' ? '; its sandbox saw it start and not end (it was killed with its owner)' : ''
  }${lingered}${unlocked.length === 0 ? '' : `; the git lock files it left were removed (${unlocked.join(', ')})`}`;
  if (policy === 'rerun') {
    return {
      outcome: 're-run',
      action: 'rerun',
      text: `onUncertain is 'rerun': ${call.tool} runs again`,
      detail: evidence,
    };
  }
  if (policy === 'fail') {
    return {
      outcome: 'failed',
      action: 'fail',
      text: `[FAIL]: ${described} was interrupted without a recorded result (${evidence}); onUncertain is 'fail', so it is not run again`,
      detail: evidence,
    };
  }
  const acceptAsDone = changed === true;
  const decision = await options.ask({
    stepId: options.stepId,
    kind: 'resume-review',
    tool: call.tool,
    args: call.args,
    callId: call.callId,
    reason: acceptAsDone
      ? `${described} was interrupted: ${evidence}. Approve to accept it as done (it is not run again); deny to stop the step for review.`
      : `${described} was interrupted: ${evidence}. Approve to run it again; deny to stop the step for review.`,
  });
  const note = decision.note ? ` (${decision.note})` : '';
  if (!decision.approved) {
    return {
      outcome: 'declined',
      action: 'block',
      text: `[FAIL]: ${described} was interrupted without a recorded result (${evidence}) and was not approved to ${acceptAsDone ? 'be accepted as done' : 'run again'}${note}; needs review`,
      detail: evidence,
    };
  }
  if (acceptAsDone) {
    return {
      outcome: 'accepted',
      action: 'record',
      status: 'success',
      text: `${prefix} ${call.tool} ran before the interruption (${evidence}); a human accepted it as done${note}, so it was not run again. Its output is not available.`,
      detail: evidence,
    };
  }
  return {
    outcome: 're-run',
    action: 'rerun',
    text: `a human approved running ${call.tool} again${note}`,
    detail: evidence,
  };
}
