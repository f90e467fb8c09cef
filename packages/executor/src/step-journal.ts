import type { GenerateResult, ToolCall } from '@closedloop/model';
import type { ToolCallRecord } from '@closedloop/plan';
import type { AnyTool } from '@closedloop/tools';
import { canonicalJson } from './canonical-json';

/** A model response of an interrupted attempt, as the journal recorded it. */
export interface RecordedTurn {
  /** `turn` for a ReAct turn, `summary` for the success-cap summary call. */
  purpose: 'turn' | 'summary';
  response: GenerateResult;
}

/** What resume feeds back into an interrupted step instead of asking the model again. */
export interface StepReplay {
  /**
   * The attempt's model responses, in order: each stands in for one model call. Tool results are
   * not listed here: they are the step's ledger (a call with a recorded result is not run again).
   */
  turns: readonly RecordedTurn[];
  /**
   * The ledger entries (call ids) this attempt recorded, in order. Default: the whole ledger. A
   * step retried after an unverified attempt has the earlier attempt's entries too: they are not
   * this attempt's results.
   */
  callIds?: readonly string[];
  /** Which attempt of the step was interrupted (1 = the first; the caller's retry count). */
  attempt?: number;
  /** The extra instructions that attempt ran with (a retry's), so the step continues as it was. */
  instructions?: string;
}

/** A tool call about to run, as {@link StepJournal.snapshot} sees it. */
export interface DispatchedCall {
  stepId: string;
  callId: string;
  tool: AnyTool;
  /** The validated input the tool will run with. */
  input: unknown;
}

/**
 * Durable-execution hooks of one step (cortex passes them when the run is journaled):
 * - `commit` resolves once every event emitted so far is durable. The executor awaits it before
 *   a tool runs (the model's response, the ledger entry and `tool-call-dispatched` are then on
 *   disk — and every earlier result with them), and before it uses the model's answer to new
 *   results of non-idempotent tools (a command's output could not be had again; the commit runs
 *   while the model works).
 * - `snapshot` returns evidence of the state a call is about to change (a file's hash, a
 *   workspace fingerprint…). It is journaled in `tool-call-dispatched`, so a resume can compare
 *   it with the workspace when the call has no recorded result.
 * - `replay`, on resume: the interrupted attempt's recorded model turns. They are fed back in
 *   order — no model call is made for them — and the ledger's recorded results are fed back for
 *   their calls — no tool runs again. The step goes live at the first turn or call without a
 *   recording.
 *
 * With a journal, a call interrupted by an abort is left `pending` in the ledger (it is not given
 * an "aborted" result), so a resume can still run it or reconcile it.
 */
export interface StepJournal {
  commit(): Promise<void>;
  snapshot?(call: DispatchedCall): unknown | Promise<unknown>;
  /**
   * Evidence that tells a process a tool started from a later one with the same pid (host,
   * start time), journaled in `tool-call-process-started` (committed at once).
   */
  identifyProcess?(pid: number): unknown;
  /**
   * Waits until the call may act on the workspace and returns the function that lets others act
   * again, which the executor calls once the call's result is recorded (or it ended without one).
   * Taken before the call's snapshot: cortex lets a call judged on resume by the whole
   * workspace's fingerprint (a command, a custom non-idempotent tool) act alone, so a change
   * found after a crash is that call's own, not a concurrent step's. When it rejects after the
   * step's signal aborted, the call is left `pending` (it never started); any other rejection is
   * the call's error result.
   */
  acquire?(call: DispatchedCall): Promise<() => void>;
  replay?: StepReplay;
}

/** What a replayed call gets back: the recorded result, as the live call would have produced it. */
export interface RecordedOutcome {
  ok: boolean;
  text: string;
}

/**
 * Walks an interrupted attempt's recording: hands out recorded model responses in order while
 * the loop asks for the same kind of call, and pairs the calls of a replayed response with the
 * ledger entries recorded for them (same tool and arguments, in order). Anything that does not
 * match ends the replay: from there the step is live.
 */
export class StepReplayer {
  readonly #turns: readonly RecordedTurn[];
  readonly #ledger: readonly ToolCallRecord[];
  #turn = 0;
  #call = 0;
  /** True while the calls being handled belong to a replayed response. */
  #inReplayedTurn = false;

  constructor(replay: StepReplay, ledger: readonly ToolCallRecord[]) {
    this.#turns = replay.turns;
    if (replay.callIds === undefined) this.#ledger = ledger;
    else {
      const mine = new Set(replay.callIds);
      this.#ledger = ledger.filter((record) => mine.has(record.callId));
    }
  }

  /** The recorded response standing in for the next model call, or `undefined` (call live). */
  nextResponse(purpose: 'turn' | 'summary'): GenerateResult | undefined {
    const turn = this.#turns[this.#turn];
    if (turn === undefined || turn.purpose !== purpose) {
      this.#turn = this.#turns.length;
      this.#inReplayedTurn = false;
      return undefined;
    }
    this.#turn++;
    this.#inReplayedTurn = true;
    return turn.response;
  }

  /** The ledger entry recorded for `call` of the replayed response, or `undefined` (record it anew). */
  claim(call: ToolCall): ToolCallRecord | undefined {
    if (!this.#inReplayedTurn) return undefined;
    const record = this.#ledger[this.#call];
    if (
      record === undefined ||
      record.tool !== call.name ||
      canonicalJson(record.args) !== canonicalJson(call.arguments ?? {})
    ) {
      // The rest of the ledger cannot belong to this response either.
      this.#call = this.#ledger.length;
      return undefined;
    }
    this.#call++;
    return record;
  }

  /** The recorded result of a claimed entry; `undefined` while it is still `pending`. */
  static outcomeOf(record: ToolCallRecord): RecordedOutcome | undefined {
    if (record.status === 'success') return { ok: true, text: record.result ?? '' };
    if (record.status === 'error') return { ok: false, text: record.error ?? '' };
    return undefined;
  }
}
