import type { CortexOptions } from '@closedloop/cortex';
import type { ChatModel, GenerateRequest } from '@closedloop/model';
import type { AnyTool } from '@closedloop/tools';
import { effectFile } from './scenario';

/**
 * Where a worker process stops dead inside a step's effect (the edit of its effect file), for a
 * test to SIGKILL it there:
 * - `before-effect`: the edit was dispatched (on record) but has not touched the file;
 * - `after-effect`: the file is edited, but the call has not returned (no `tool-call-finished`);
 * - `after-journal`: the edit returned and the step went on to its next model turn (the test
 *   waits until `tool-call-finished` is in the step's transcript before it kills).
 */
export type FreezePoint = 'before-effect' | 'after-effect' | 'after-journal';

/** `CLOSEDLOOP_FREEZE` of a scale-out process: which step freezes, and where. */
export interface Freeze {
  stepId: string;
  point: FreezePoint;
}

/** Never resolves: the process waits here until it is killed. */
const forever = () => new Promise<never>(() => {});

/**
 * Wraps a scenario cortex so the step `freeze.stepId` stops at `freeze.point`, after `onFrozen`
 * reported it (once per process: the worker that takes the step over runs the same code and does
 * not freeze, because it is started without `CLOSEDLOOP_FREEZE`).
 */
export function freezeCortex(
  options: Omit<CortexOptions, 'store' | 'stepRunner'>,
  freeze: Freeze,
  onFrozen: (point: FreezePoint) => void,
): Omit<CortexOptions, 'store' | 'stepRunner'> {
  const stop = (point: FreezePoint) => {
    onFrozen(point);
    return forever();
  };
  const target = effectFile(freeze.stepId);
  const tools = (options.tools as AnyTool[]).map((tool): AnyTool => {
    if (tool.name !== 'edit_file') return tool;
    return {
      ...tool,
      execute: async (input, context) => {
        const mine = (input as { path?: unknown }).path === target;
        if (mine && freeze.point === 'before-effect') await stop('before-effect');
        const output = await tool.execute(input, context);
        if (mine && freeze.point === 'after-effect') await stop('after-effect');
        return output;
      },
    };
  });
  const inner = options.model as ChatModel;
  // The step's turn after its edit (the one that answers with mark_step): two assistant turns before it.
  const held = (request: GenerateRequest) =>
    freeze.point === 'after-journal' &&
    request.tools?.some((tool) => tool.name === 'mark_step') === true &&
    request.messages.some(
      (message) => message.role === 'user' && message.content.includes(`# Your step: ${freeze.stepId}`),
    ) &&
    request.messages.filter((message) => message.role === 'assistant').length === 2;
  const model: ChatModel = {
    specificationVersion: inner.specificationVersion,
    provider: inner.provider,
    modelId: inner.modelId,
    capabilities: inner.capabilities,
    async doGenerate(request, callOptions) {
      if (held(request)) await stop('after-journal');
      return inner.doGenerate(request, callOptions);
    },
    async *doStream(request, callOptions) {
      if (held(request)) await stop('after-journal');
      yield* inner.doStream(request, callOptions);
    },
  };
  return { ...options, tools, model };
}
