/**
 * What could have written a workspace, process-wide: every tool call a registry of this package
 * runs, every process `runProcess` starts, every command and protocol the verifier runs counts as
 * activity from the moment it starts until it has ended — a tool or protocol whose promise is still
 * pending after a timeout or an abort is still running, and a command whose detached descendants
 * are not reaped never ends. A reader that saw the workspace at some epoch with nothing running
 * knows that nothing counted wrote it since as long as the epoch is the same and nothing runs
 * (writers outside this process, and code that bypasses these paths, are not counted).
 */
interface ActivityCounters {
  epoch: number;
  running: number;
}

/**
 * One pair of counters per process, shared by every copy of this package that is loaded (two
 * installed versions must not each count half of the activity).
 */
const counters: ActivityCounters = sharedCounters();

function sharedCounters(): ActivityCounters {
  const key = Symbol.for('closedloop.workspaceActivity');
  const global = globalThis as Record<symbol, ActivityCounters | undefined>;
  const existing = global[key];
  if (existing !== undefined) return existing;
  const made = { epoch: 0, running: 0 };
  global[key] = made;
  return made;
}

/** The activity counters now: `epoch` moves whenever an activity starts or ends. */
export function workspaceActivity(): { readonly epoch: number; readonly running: number } {
  return { epoch: counters.epoch, running: counters.running };
}

/**
 * Counts one activity as started; the returned function counts it as ended (calling it again does
 * nothing). An activity that may outlive every observer is simply never ended.
 */
export function beginWorkspaceActivity(): () => void {
  counters.epoch += 1;
  counters.running += 1;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    counters.epoch += 1;
    counters.running -= 1;
  };
}

const countedRegistries = new WeakSet<object>();

/** Marks a tool registry whose calls count as activity (`createToolRegistry` marks its own). */
export function markCountedRegistry(registry: object): void {
  countedRegistries.add(registry);
}

/**
 * True when `registry`'s tool calls count as activity: one `createToolRegistry` made. Another
 * object with an `execute` could write the workspace uncounted: nothing may then rely on the
 * counters to tell that nothing wrote it.
 */
export function isCountedRegistry(registry: unknown): boolean {
  return typeof registry === 'object' && registry !== null && countedRegistries.has(registry);
}
