import type { ChatMessage } from '@closedloop/model';
import { Plan, type PlanEvent, type StepDraft } from '@closedloop/plan';
import { defineTool } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, beforeEach } from 'vitest';
import { z } from 'zod';

/** A plan whose step `stepId` (default: the last one) is `in_progress`, dependencies completed. */
export function inProgressPlan(options: { steps?: StepDraft[]; goal?: string; stepId?: string } = {}): {
  plan: Plan;
  stepId: string;
  events: PlanEvent[];
} {
  const steps = options.steps ?? [{ id: 'work', description: 'Write hello.txt containing "hello".' }];
  const plan = Plan.create({ title: 'test plan', goal: options.goal ?? 'Say hello in a file.', steps });
  const stepId = options.stepId ?? steps.at(-1)!.id;
  for (const dependency of plan.step(stepId).dependsOn) {
    plan.markStep(dependency, { status: 'in_progress' });
    plan.markStep(dependency, { status: 'completed' });
  }
  plan.markStep(stepId, { status: 'in_progress' });
  const events: PlanEvent[] = [];
  plan.subscribe((event) => events.push(event));
  return { plan, stepId, events };
}

/** A tool that echoes its text argument. */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Returns the text it is given.',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => `echo: ${text}`,
});

/** Resolves after `ms`, or rejects when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      },
      { once: true },
    );
  });
}

/** The tool messages of a conversation, in order. */
export function toolMessages(messages: readonly ChatMessage[]): Extract<ChatMessage, { role: 'tool' }>[] {
  return messages.filter(
    (message): message is Extract<ChatMessage, { role: 'tool' }> => message.role === 'tool',
  );
}

/** Gives every test of the file a fresh temp workspace (passed to `use`), removed afterwards. */
export function useTempWorkspace(use: (workspace: TempWorkspace) => void): void {
  let current: TempWorkspace | undefined;
  beforeEach(async () => {
    current = await createTempWorkspace();
    use(current);
  });
  afterEach(async () => {
    await current?.cleanup();
  });
}
