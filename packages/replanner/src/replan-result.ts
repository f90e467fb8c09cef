import { z } from 'zod';

/** One new step of a redesign, as the model writes it. Ids are assigned by the plan. */
export const replanStepSchema = z.object({
  description: z.string().describe('What the step does, concretely enough for an agent with the tools.'),
  title: z.string().optional().describe('A short title.'),
  requiredTools: z
    .array(z.string())
    .optional()
    .describe('Tools the step must call successfully, in this order (names from the tool list).'),
  successCriteria: z
    .array(z.string())
    .optional()
    .describe('Checkable facts that hold when the step is done.'),
});
export type ReplanStep = z.infer<typeof replanStepSchema>;

/** `redesign`: new steps replacing the failed steps and everything downstream of them. */
export const replanRedesignSchema = z.object({
  action: z.literal('redesign'),
  steps: z.array(replanStepSchema).describe('The new steps, in the order they should be shown.'),
  dependencies: z
    .record(z.string(), z.array(z.union([z.number(), z.string()])))
    .default({})
    .describe(
      'Key: index of a new step ("0", "1"…). Value: what it depends on — a number is the index of ' +
        'another new step, a string is the id of an existing step that is kept.',
    ),
});
export type ReplanRedesign = z.infer<typeof replanRedesignSchema>;

/** `give_up`: the goal cannot be reached from here; the failed steps are blocked. */
export const replanGiveUpSchema = z.object({
  action: z.literal('give_up'),
  reason: z.string().describe('Why no redesign can succeed with the available tools.'),
});
export type ReplanGiveUp = z.infer<typeof replanGiveUpSchema>;

/**
 * The replanner model's answer, a union discriminated by `action`.
 * Dependencies are relative: numbers index `steps`, strings name preserved steps by id.
 *
 * @example
 * replanResultSchema.parse({
 *   action: 'redesign',
 *   steps: [{ description: 'Build the API skeleton' }, { description: 'Implement the endpoints' }],
 *   dependencies: { '0': ['3', '4'], '1': [0] },
 * });
 */
export const replanResultSchema = z.discriminatedUnion('action', [replanRedesignSchema, replanGiveUpSchema]);
/** The parsed answer (defaults applied). */
export type ReplanResult = z.infer<typeof replanResultSchema>;
/** The answer as a model (or a test) may write it (`dependencies` optional). */
export type ReplanResultInput = z.input<typeof replanResultSchema>;
