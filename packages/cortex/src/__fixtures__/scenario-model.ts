import type { GenerateRequest } from '@closedloop/model';
import { type ScriptedError, ScriptedModel, type ScriptedResponse } from '@closedloop/model/testing';
import type { ReplanResultInput } from '@closedloop/replanner';
import { claimExtractionSystemPrompt, toolCallGuardSystemPrompt } from '@closedloop/verifier/internal';
import { aggregatorSystemPrompt } from '../aggregate-answer';
import { type PlannerOutput, plannerSystemPrompt } from '../draft-plan';

/** How one step answers: turn `n` of the step's conversation (0-based). */
export type StepScript =
  | ScriptedResponse[]
  | ((turn: number, request: GenerateRequest) => ScriptedResponse | ScriptedError);

/** A scripted world for whole runs: the planner, each step (by id), the replanner and the answer. */
export interface ScenarioOptions {
  /** Successive planner answers (objects are sent as JSON, strings as they are). */
  plans?: Array<PlannerOutput | Record<string, unknown> | string>;
  /** Step scripts by step id, or by step title (redesigned steps get new ids); `'*'` answers any other step. */
  steps?: Record<string, StepScript>;
  /** Successive replanner answers. */
  replans?: Array<ReplanResultInput | string>;
  /** The aggregation answer (default: a fixed text). */
  answer?: string | Error;
  /** Latency of every call. */
  latencyMs?: number | ((request: GenerateRequest) => number);
  /** The answer to factored claim extraction (`{ claims: [...] }` JSON); default: no claims. */
  claims?: string;
  /** The tool-call guard's answer for destructive calls (default `YES`). */
  guard?: string | ((request: GenerateRequest) => string);
}

const systemOf = (request: GenerateRequest): string =>
  request.messages[0]?.role === 'system' ? request.messages[0].content : '';

/** The step id of an executor request (from the step prompt's `# Your step: <id>` heading). */
export function stepIdOf(request: GenerateRequest): string | undefined {
  for (const message of request.messages) {
    if (message.role !== 'user') continue;
    const match = /# Your step: (\S+)/.exec(message.content);
    if (match) return match[1];
  }
  return undefined;
}

/** The step title of an executor request (`# Your step: <id> — <title>`). */
export function stepTitleOf(request: GenerateRequest): string | undefined {
  for (const message of request.messages) {
    if (message.role !== 'user') continue;
    const match = /# Your step: \S+ — (.+)$/m.exec(message.content);
    if (match) return match[1]?.trim();
  }
  return undefined;
}

/** A scripted model that plays a scenario, plus counters of what it was asked. */
export function scenarioModel(options: ScenarioOptions): ScriptedModel & {
  asked: {
    planner: number;
    replanner: number;
    aggregate: number;
    guard: number;
    steps: Record<string, number>;
  };
} {
  const plans = [...(options.plans ?? [])];
  const replans = [...(options.replans ?? [])];
  const asked = { planner: 0, replanner: 0, aggregate: 0, guard: 0, steps: {} as Record<string, number> };
  const model = new ScriptedModel({
    ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
    matchers: [
      {
        match: () => true,
        respond: (request) => {
          const system = systemOf(request);
          if (system.startsWith(claimExtractionSystemPrompt))
            return { text: options.claims ?? '{"claims":[]}' };
          if (system === toolCallGuardSystemPrompt) {
            asked.guard++;
            const answer = options.guard ?? 'YES';
            return { text: typeof answer === 'string' ? answer : answer(request) };
          }
          if (system.startsWith(plannerSystemPrompt)) {
            asked.planner++;
            const plan = plans.shift();
            if (plan === undefined) throw new Error('scenario: no planner answer left');
            return { text: typeof plan === 'string' ? plan : JSON.stringify(plan) };
          }
          if (system.startsWith('You are the replanner')) {
            asked.replanner++;
            const replan = replans.shift();
            if (replan === undefined) throw new Error('scenario: no replanner answer left');
            return { text: typeof replan === 'string' ? replan : JSON.stringify(replan) };
          }
          if (system.startsWith(aggregatorSystemPrompt)) {
            asked.aggregate++;
            if (options.answer instanceof Error) return { error: options.answer };
            return { text: options.answer ?? 'All done.' };
          }
          const stepId = stepIdOf(request);
          if (stepId === undefined) throw new Error(`scenario: unexpected request: ${system.slice(0, 80)}`);
          asked.steps[stepId] = (asked.steps[stepId] ?? 0) + 1;
          const title = stepTitleOf(request);
          const script =
            options.steps?.[stepId] ??
            (title !== undefined ? options.steps?.[title] : undefined) ??
            options.steps?.['*'];
          if (script === undefined) throw new Error(`scenario: no script for step ${stepId}`);
          const turn = request.messages.filter((message) => message.role === 'assistant').length;
          if (typeof script === 'function') return script(turn, request);
          const response = script[turn];
          if (response === undefined) throw new Error(`scenario: step ${stepId} has no turn ${turn}`);
          return response;
        },
      },
    ],
  });
  return Object.assign(model, { asked });
}

/** A step that writes one file, then marks success with the file as a claim. */
export function writeStep(path: string, content: string): ScriptedResponse[] {
  return [
    { toolCalls: [{ name: 'write_file', arguments: { path, content } }] },
    {
      toolCalls: [
        {
          name: 'mark_step',
          arguments: {
            status: 'success',
            notes: `[SUCCESS]: wrote ${path}`,
            claims: { filesWritten: [path] },
          },
        },
      ],
    },
  ];
}

/** A step that reports failure right away. */
export function failStep(reason: string): ScriptedResponse[] {
  return [{ toolCalls: [{ name: 'mark_step', arguments: { status: 'fail', notes: `[FAIL]: ${reason}` } }] }];
}

/** A step that claims a file it never wrote (a hallucination the verifier catches). */
export function lyingStep(path: string): ScriptedResponse[] {
  return [
    {
      toolCalls: [
        {
          name: 'mark_step',
          arguments: {
            status: 'success',
            notes: `[SUCCESS]: wrote ${path}`,
            claims: { filesWritten: [path] },
          },
        },
      ],
    },
  ];
}
