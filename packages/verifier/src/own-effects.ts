import { lstatSync } from 'node:fs';
import type { LedgerAnalysis } from './ledger-evidence';
import { isWallClockTime } from './step-changes';

/**
 * How far a file's time stamp may trail the plan's clock: the kernel stamps files with a coarse
 * clock (one tick, ≤ 10 ms), so a write just after a call started can carry a time just before it.
 */
const COARSE_CLOCK_MS = 20;

/** When one of the step's own calls that can change files it does not name was running. */
export interface EffectWindow {
  callId: string;
  /** Epoch ms: when the call started. */
  from: number;
  /**
   * Epoch ms: when its result came back; without one, when the step's next call started
   * (`Infinity` when none did).
   */
  to: number;
}

/**
 * The windows of the step's own calls whose effects the ledger does not list: commands that ran
 * (not exploratory ones) and successful calls of other tools, in ledger order.
 */
export function effectWindows(ledger: LedgerAnalysis): EffectWindow[] {
  const commands = new Set(
    ledger.commands.filter((entry) => entry.ran && !entry.run.exploratory).map((entry) => entry.index),
  );
  // A call without a result (the run was cut off, the step resumed) ran at most until the step's
  // next call started: a file changed later is not its work.
  const starts = ledger.calls.map((evidence) => evidence.call.calledAt);
  return ledger.calls
    .filter(
      (evidence) =>
        commands.has(evidence.index) || (evidence.kind === 'other' && evidence.call.status === 'success'),
    )
    .map((evidence) => ({
      callId: evidence.call.callId,
      from: evidence.call.calledAt,
      to:
        evidence.call.respondedAt ??
        starts.find((start) => start > evidence.call.calledAt) ??
        Number.POSITIVE_INFINITY,
    }));
}

/** What {@link ownUnnamedEffect} needs. */
export interface OwnEffectOptions {
  /**
   * When the verification started (epoch ms): a file changed after it was changed by a re-run of
   * the verifier itself (a build it re-ran), not by a neighbour while this step worked.
   */
  verifyStartedAt?: number;
}

/**
 * Which of the step's own unnamed-effect calls (commands, other tools) could have written the
 * file at `absolutePath` as it is now: the one whose run window contains the file's last status
 * change (`ctime`: set by every write, rename or chmod, and not settable by a program). A file
 * changed while none of them ran — between calls, while the model was thinking — was changed by
 * someone else (a parallel step), and is no credit of this step.
 *
 * Returns the call id, or undefined when none of them could have. Without comparable clocks (a
 * plan on a fake clock) or a readable file, the last such call is returned: nothing can tell.
 */
export function ownUnnamedEffect(
  absolutePath: string,
  ledger: LedgerAnalysis,
  options: OwnEffectOptions = {},
): string | undefined {
  const windows = effectWindows(ledger);
  const last = windows.at(-1)?.callId;
  if (last === undefined) return undefined;
  if (!windows.every((window) => isWallClockTime(window.from))) return last;
  let changedAt: number;
  try {
    changedAt = lstatSync(absolutePath).ctimeMs;
  } catch {
    return last;
  }
  for (let index = windows.length - 1; index >= 0; index -= 1) {
    const window = windows[index] as EffectWindow;
    if (changedAt >= window.from - COARSE_CLOCK_MS && changedAt <= window.to + COARSE_CLOCK_MS)
      return window.callId;
  }
  if (options.verifyStartedAt !== undefined && changedAt >= options.verifyStartedAt - COARSE_CLOCK_MS)
    return last;
  return undefined;
}
