import type { Step } from '@closedloop/plan';
import type { ToolRegistry } from '@closedloop/tools';
import type { RunEvent } from './run-events';

/**
 * The non-idempotent tools (one entry per call) that an interrupted step may have run, so resume
 * knows whether it can re-run the step or must ask a human. A call the tool-call guard held for a
 * human is left out when the journal shows it never ran: it was denied, or its approval was never
 * granted (the run stopped while a human was being asked). Only events since the step's latest
 * `step-started` count, so call ids of earlier attempts never match.
 *
 * @example
 * unsafeInterruptedCalls({ step, history, registry }) // ['charge']
 */
export function unsafeInterruptedCalls(options: {
  step: Step;
  history: readonly RunEvent[];
  registry: ToolRegistry;
}): string[] {
  const { step, history, registry } = options;
  const since = history.findLastIndex((event) => event.type === 'step-started' && event.stepId === step.id);
  const held = new Set<string>();
  const ran = new Set<string>();
  for (const event of history.slice(Math.max(since, 0))) {
    if (event.type === 'approval-requested' && event.kind === 'tool-call' && event.stepId === step.id) {
      if (event.callId !== undefined) held.add(event.callId);
    } else if (event.type === 'guard-decided' && event.stepId === step.id) {
      const allowed =
        event.decision.action === 'allow' ||
        (event.decision.action === 'ask-human' && event.approved === true);
      (allowed ? ran : held).add(event.callId);
    }
  }
  return step.ledger
    .filter((call) => ran.has(call.callId) || !held.has(call.callId))
    .map((call) => call.tool)
    .filter((name) => {
      const tool = registry.get(name);
      return tool !== undefined && !tool.idempotent;
    });
}
