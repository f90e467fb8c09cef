import type { FinishReason, GenerateResult, Usage } from '@closedloop/model';
import type { StepId } from '@closedloop/plan';
import type { ToolProgress } from '@closedloop/tools';
import type { GuardDecision } from './tool-call-guard';

/**
 * Events of one step's loop, passed to `onEvent` as they happen (noun-then-verb, kebab-case).
 * Ledger changes are not repeated here: they are the plan's own `tool-call-started` /
 * `tool-call-finished` / `step-marked` / `step-finalized` events (`plan.subscribe`).
 */
export type ExecutorEvent =
  | {
      type: 'model-call-started';
      stepId: StepId;
      /** 1-based loop turn; the success-cap summary call carries the turn it follows. */
      iteration: number;
      /** `turn` for a ReAct turn, `summary` for the success-cap summary call (no tools). */
      purpose: 'turn' | 'summary';
      streaming: boolean;
    }
  | {
      type: 'model-call-finished';
      stepId: StepId;
      iteration: number;
      purpose: 'turn' | 'summary';
      usage: Usage;
      finishReason: FinishReason;
      /** Number of tool calls in the response. */
      toolCalls: number;
      durationMs: number;
      /**
       * The whole response, when the step runs with a journal (`journal` option): a resume feeds
       * it back instead of asking the model again.
       */
      response?: GenerateResult;
    }
  | { type: 'text-delta'; stepId: StepId; iteration: number; delta: string }
  | {
      type: 'tool-call-delta';
      stepId: StepId;
      iteration: number;
      /** Position of the call in the response, as the provider streams it. */
      index: number;
      id?: string;
      name?: string;
      argumentsDelta: string;
    }
  | {
      type: 'tool-call-progress';
      stepId: StepId;
      callId: string;
      tool: string;
      progress: ToolProgress;
    }
  | {
      /**
       * A tool call is about to run (only with a journal): from here its effect may have happened.
       * A resume that finds this event but no result for the call reconciles it.
       */
      type: 'tool-call-dispatched';
      stepId: StepId;
      callId: string;
      tool: string;
      /** The journal's snapshot of what the call will change (e.g. a file's hash before a write). */
      before?: unknown;
      /**
       * The environment tag every process of the call carries (`ToolContext.processTag`): a
       * resume finds the call's processes by it even when their pids were never journaled.
       * Absent in journals written before it was recorded.
       */
      processTag?: string;
    }
  | {
      /**
       * A running tool call started a process (only with a journal). A process can outlive its
       * killed parent: a resume finds it by `pid` (and `identity`) before judging the call.
       */
      type: 'tool-call-process-started';
      stepId: StepId;
      callId: string;
      tool: string;
      pid: number;
      /** The journal's evidence that tells this process from a later one with the same pid. */
      identity?: unknown;
    }
  | {
      type: 'guard-decided';
      stepId: StepId;
      callId: string;
      tool: string;
      decision: GuardDecision;
      /** For `ask-human`: what `onAskHuman` answered (`false` when no handler is set). */
      approved?: boolean;
    };

/** The `type` of every {@link ExecutorEvent}. */
export type ExecutorEventType = ExecutorEvent['type'];
