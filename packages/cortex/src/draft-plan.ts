import {
  type ChatMessage,
  type ChatModel,
  generateObject,
  type ToolSpec,
  type Usage,
} from '@closedloop/model';
import { addUsage } from '@closedloop/model/provider';
import { Plan, PlanError } from '@closedloop/plan';
import { z } from 'zod';
import { CortexError } from './cortex-error';

/** The planner's answer: a zod schema, so the model's JSON is validated before `Plan.create`. */
export const plannerOutputSchema = z.object({
  title: z.string().describe('A short title for the whole plan.'),
  successCriteria: z
    .array(z.string())
    .default([])
    .describe('Checkable facts that hold when the whole request is done (goal level).'),
  protocols: z
    .array(z.string())
    .default([])
    .describe(
      'Names of verification protocols to run on the finished work (goal level), from the list given.',
    ),
  steps: z
    .array(
      z.object({
        id: z.string().min(1).describe('A short, stable, unique id such as "write-parser".'),
        title: z.string().optional().describe('A short title.'),
        description: z
          .string()
          .min(1)
          .describe('What the step does, concretely enough for an agent with the tools.'),
        dependsOn: z
          .array(z.string())
          .default([])
          .describe('Ids of the steps whose results this step needs.'),
        requiredTools: z
          .array(z.string())
          .default([])
          .describe('Tools the step must call successfully, in this order (names from the tool list).'),
        successCriteria: z
          .array(z.string())
          .default([])
          .describe('Checkable facts that hold when the step is done.'),
        protocols: z
          .array(z.string())
          .default([])
          .describe('Protocols to run on this step (names from the list).'),
      }),
    )
    .min(1)
    .describe('The steps. Independent steps must not depend on each other, so they can run in parallel.'),
});

/** The planner's parsed answer. */
export type PlannerOutput = z.infer<typeof plannerOutputSchema>;

/** The system prompt of the planner call. */
export const plannerSystemPrompt = [
  'You are the planner of an agent that proves its work. Turn the request into a plan: a DAG of steps.',
  'Each step is done by an agent with tool calls and then verified against evidence (files, commands, tests).',
  'Rules:',
  '- Give every step a short unique id; dependsOn lists only ids of other steps in this plan; no cycles.',
  '- Keep steps atomic: one verifiable outcome each. Do not add steps that only "report" or "summarise".',
  '- Steps that do not need each other must not depend on each other, so they run in parallel.',
  '- requiredTools and protocols may only name tools and protocols from the lists given.',
  '- successCriteria are checkable facts (a file exists, a command exits 0), not intentions.',
].join('\n');

/** Options of {@link draftPlan}. */
export interface DraftPlanOptions {
  model: ChatModel;
  request: string;
  /** The tools steps may use (names and descriptions go into the prompt; names are checked). */
  tools: readonly ToolSpec[];
  /** Names of the protocols steps and the goal may use (checked). */
  protocols?: readonly string[];
  /**
   * The most steps a plan may have (default 300). A larger draft goes back once with the limit;
   * a second one throws `CortexError('plan-too-large')`, before any plan is built or journaled.
   */
  maxSteps?: number;
  signal?: AbortSignal;
  /** Plan id; default a random UUID. */
  planId?: string;
  clock?: () => number;
}

/** What {@link draftPlan} returns. */
export interface DraftPlanResult {
  plan: Plan;
  output: PlannerOutput;
  /** 1, or 2 when the repair turn was needed. */
  attempts: number;
  usage: Usage;
}

function describeProblems(error: unknown): string[] {
  if (PlanError.isInstance(error)) {
    const details = Object.keys(error.details).length > 0 ? ` ${JSON.stringify(error.details)}` : '';
    return [`${error.code}: ${error.message}${details}`];
  }
  return [error instanceof Error ? error.message : String(error)];
}

/** Problems `Plan.create` does not know about: unknown tool and protocol names. */
function nameProblems(
  output: PlannerOutput,
  tools: ReadonlySet<string>,
  protocols: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  for (const step of output.steps) {
    for (const tool of step.requiredTools) {
      if (!tools.has(tool)) problems.push(`step "${step.id}" requires tool "${tool}", which does not exist`);
    }
    for (const protocol of step.protocols) {
      if (!protocols.has(protocol))
        problems.push(`step "${step.id}" names protocol "${protocol}", which does not exist`);
    }
  }
  for (const protocol of output.protocols) {
    if (!protocols.has(protocol))
      problems.push(`the plan names protocol "${protocol}", which does not exist`);
  }
  return problems;
}

/**
 * The planner: one `generateObject` call with {@link plannerOutputSchema}, bounded by
 * `maxSteps`, validated with
 * `Plan.create` (acyclic, no dangling or duplicate ids) and against the tool and protocol names
 * before anything runs. An invalid draft goes back to the model once with the exact problems;
 * a second invalid draft throws `CortexError('invalid-plan')` with the problems in `details`.
 * Model failures propagate as `ModelError`.
 */
export async function draftPlan(options: DraftPlanOptions): Promise<DraftPlanResult> {
  const { model, request, signal } = options;
  const toolNames = new Set(options.tools.map((tool) => tool.name));
  const protocolNames = new Set(options.protocols ?? []);
  const toolList =
    options.tools.length === 0
      ? '(none)'
      : options.tools.map((tool) => `- ${tool.name}: ${tool.description.split('\n')[0]}`).join('\n');
  const protocolList =
    protocolNames.size === 0 ? '(none)' : [...protocolNames].map((name) => `- ${name}`).join('\n');
  let messages: ChatMessage[] = [
    { role: 'system', content: plannerSystemPrompt },
    {
      role: 'user',
      content: `## Request\n${request}\n\n## Tools\n${toolList}\n\n## Protocols\n${protocolList}\n\nAnswer with the plan.`,
    },
  ];
  const maxSteps = options.maxSteps ?? 300;
  let usage: Usage | undefined;
  let lastProblems: string[] = [];
  let tooLarge = false;
  for (let attempt = 1; attempt <= 2; attempt++) {
    const answer = await generateObject(model, plannerOutputSchema, { messages, signal, name: 'plan' });
    usage = usage ? addUsage(usage, answer.usage) : answer.usage;
    const output = answer.object;
    let plan: Plan | undefined;
    // Checked first, before anything else looks at (or copies) a huge draft.
    tooLarge = output.steps.length > maxSteps;
    let problems = tooLarge
      ? [
          `the plan has ${output.steps.length} steps, more than the maximum of ${maxSteps}: merge related work into fewer, larger steps`,
        ]
      : nameProblems(output, toolNames, protocolNames);
    if (problems.length === 0) {
      try {
        plan = Plan.create(
          {
            title: output.title,
            goal: request,
            steps: output.steps.map((step) => ({
              id: step.id,
              ...(step.title !== undefined ? { title: step.title } : {}),
              description: step.description,
              dependsOn: step.dependsOn,
              requiredTools: step.requiredTools,
              successCriteria: step.successCriteria,
              protocols: step.protocols,
            })),
          },
          {
            ...(options.planId !== undefined ? { id: options.planId } : {}),
            ...(options.clock ? { clock: options.clock } : {}),
          },
        );
      } catch (error) {
        problems = describeProblems(error);
      }
    }
    if (plan) return { plan, output, attempts: attempt, usage };
    lastProblems = problems;
    messages = [
      ...messages,
      {
        role: 'assistant',
        // A draft far over the limit is not echoed back in full.
        content: tooLarge
          ? JSON.stringify({ ...output, steps: output.steps.slice(0, maxSteps) }).concat(
              ` (… ${output.steps.length - maxSteps} more steps omitted)`,
            )
          : JSON.stringify(output),
      },
      {
        role: 'user',
        content: [
          'The plan is invalid and nothing was run. Problems:',
          ...problems.map((problem, index) => `${index + 1}. ${problem}`),
          '',
          'Answer again with the complete corrected plan.',
        ].join('\n'),
      },
    ];
  }
  if (tooLarge) {
    throw new CortexError({
      code: 'plan-too-large',
      message: `The planner's plan is too large after a repair turn: ${lastProblems.join('; ')}. Raise planner.maxSteps if the task really needs it.`,
      details: { problems: lastProblems, maxSteps },
    });
  }
  throw new CortexError({
    code: 'invalid-plan',
    message: `The planner gave no valid plan after a repair turn: ${lastProblems.join('; ')}`,
    details: { problems: lastProblems },
  });
}

/** The one-step plan of a request that needs no planner (see `isSimpleRequest`). */
export function directPlan(request: string, options: { planId?: string; clock?: () => number } = {}): Plan {
  return Plan.create(
    {
      title: request.slice(0, 80),
      goal: request,
      steps: [{ id: 'task', title: 'Do the task', description: request }],
    },
    {
      ...(options.planId !== undefined ? { id: options.planId } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
    },
  );
}
