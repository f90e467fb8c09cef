/**
 * What could have written a workspace, process-wide: every tool call the registry runs and every
 * process `runProcess` starts counts as activity from the moment it starts until it has ended — a
 * tool whose promise is still pending after a timeout or an abort is still running, and a command
 * whose detached descendants are not reaped never ends. A reader that saw the workspace at some
 * epoch with nothing running knows that nothing of this process wrote it since as long as the epoch
 * is the same and nothing runs (writers outside this process are not counted).
 */
let epoch = 0;
let running = 0;

/** The activity counters now: `epoch` moves whenever an activity starts or ends. */
export function workspaceActivity(): { readonly epoch: number; readonly running: number } {
  return { epoch, running };
}

/**
 * Counts one activity as started; the returned function counts it as ended (calling it again does
 * nothing). An activity that may outlive every observer is simply never ended.
 */
export function beginWorkspaceActivity(): () => void {
  epoch += 1;
  running += 1;
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    epoch += 1;
    running -= 1;
  };
}
