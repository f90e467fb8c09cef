import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { findTagged, killTagged, processScopeVariable } from '@closedloop/tools/internal';

/** What tells a process apart from a later one with the same pid. */
export interface ProcessIdentity {
  host: string;
  /** Linux: the start time field of `/proc/<pid>/stat` (clock ticks since boot). */
  startTime?: string;
}

/** A process a tool call started, as the journal recorded it. */
export interface RecordedProcess {
  pid: number;
  identity?: unknown;
}

const thisHost = hostname();

function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) are space-separated; start time is field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** This host and, on Linux, the process's start time. */
export function identifyProcess(pid: number): ProcessIdentity {
  const startTime = startTimeOf(pid);
  return { host: thisHost, ...(startTime !== undefined ? { startTime } : {}) };
}

function errnoCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : undefined;
}

function exists(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === 'EPERM';
  }
}

/**
 * True while the process group a recorded process leads still has a member on this host. A
 * process group keeps its id while it has members, so a live group with that id is the recorded
 * one — unless its leader is a different, later process with the reused pid (start times differ).
 */
export function isLeftover(process: RecordedProcess): boolean {
  const identity = process.identity as Partial<ProcessIdentity> | undefined;
  if (identity?.host !== undefined && identity.host !== thisHost) return false;
  if (!exists(-process.pid)) return false;
  const leader = startTimeOf(process.pid);
  if (leader !== undefined && identity?.startTime !== undefined && leader !== identity.startTime)
    return false;
  return true;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Before a resume judges a call whose owner died, the processes that call started must be gone:
 * a command keeps running after its parent is killed, and could finish its effect after the
 * workspace was looked at (and a re-run would then repeat it). Those are the process groups of
 * `processes` (their pids, journaled as they started) and every process carrying one of `tags`
 * (the call's environment tag, journaled before it ran: that finds a process whose pid the owner
 * died before journaling, and one that left the group with `setsid` or a double fork). Waits up
 * to `timeoutMs` for them to end on their own (their effect completes), then kills them.
 * Processes on another host cannot be seen and are not waited for.
 */
export async function settleLeftoverProcesses(
  processes: readonly RecordedProcess[],
  options: { timeoutMs?: number; pollMs?: number; tags?: readonly string[] } = {},
): Promise<{ waitedFor: number[]; killed: number[] }> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const pollMs = options.pollMs ?? 50;
  const tags = options.tags ?? [];
  const tagged = async () => (await Promise.all(tags.map((tag) => findTagged(tag)))).flat();
  let running = processes.filter(isLeftover);
  let runningTagged = await tagged();
  const waitedFor = [...new Set([...running.map((recorded) => recorded.pid), ...runningTagged])];
  const killed: number[] = [];
  for (
    const deadline = Date.now() + timeoutMs;
    (running.length > 0 || runningTagged.length > 0) && Date.now() < deadline;
  ) {
    await sleep(pollMs);
    running = running.filter(isLeftover);
    runningTagged = await tagged();
  }
  for (const recorded of running) {
    try {
      process.kill(-recorded.pid, 'SIGKILL');
      killed.push(recorded.pid);
    } catch {
      // gone meanwhile
    }
  }
  if (runningTagged.length > 0) {
    for (const tag of tags) await killTagged(tag);
    killed.push(...runningTagged.filter((pid) => !killed.includes(pid)));
  }
  for (
    let waited = 0;
    (running.some(isLeftover) || (await tagged()).length > 0) && waited < 2_000;
    waited += pollMs
  )
    await sleep(pollMs);
  return { waitedFor, killed };
}

/**
 * The process scope (`runInProcessScope` of `@closedloop/tools/internal`) of a run's verification:
 * every process the verifier starts for the run (test re-runs, protocols, goal checks) carries it.
 * It names the run and its workspace (a hash of the real path): a resume kills its own run's
 * leftovers, never the verification of another run that happens to have the same id (another
 * journal folder, another user, another test on the same host). A step run by a worker process
 * (`cortex.runStep`) has a scope of its own (`stepId`): the attempt that takes over a killed one
 * stops what that attempt's verification left running, not the verification of a sibling step
 * another worker on the same host is running.
 */
export function verificationScopeOf(runId: string, workspace?: string, stepId?: string): string {
  let scope = `verify:${runId}`;
  if (workspace !== undefined) {
    let root: string;
    try {
      root = realpathSync(workspace);
    } catch {
      root = resolve(workspace);
    }
    scope += `@${createHash('sha256').update(root).digest('hex').slice(0, 16)}`;
  }
  return stepId === undefined ? scope : `${scope}#${stepId}`;
}

/**
 * Kills what a killed owner's verification left running (its test re-runs keep going, and write
 * into the workspace, after their parent dies): a resume calls it before anything else looks at the
 * workspace. A verification's result is journaled only when it is complete (`step-verified`), so
 * nothing of an interrupted one is kept: it runs again, and its leftovers must not run beside it.
 * Waits up to `timeoutMs` for them to be gone. Returns their pids.
 */
export async function stopLeftoverVerification(
  runId: string,
  options: { workspace?: string | undefined; stepId?: string; timeoutMs?: number; pollMs?: number } = {},
): Promise<number[]> {
  const scope = verificationScopeOf(runId, options.workspace, options.stepId);
  const found = await findTagged(scope, processScopeVariable);
  if (found.length === 0) return [];
  const timeoutMs = options.timeoutMs ?? 2_000;
  const pollMs = options.pollMs ?? 50;
  for (let waited = 0; waited < timeoutMs; waited += pollMs) {
    await killTagged(scope, 'SIGKILL', processScopeVariable);
    if ((await findTagged(scope, processScopeVariable)).length === 0) break;
    await sleep(pollMs);
  }
  return found;
}
