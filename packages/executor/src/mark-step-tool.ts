import type { ToolSpec } from '@closedloop/model';
import { stepClaimsSchema } from '@closedloop/plan/internal';
import { z } from 'zod';

/** Name of the executor's built-in tool that ends a step. */
export const markStepToolName = 'mark_step';

/** Arguments of the built-in `mark_step` tool. */
export const markStepInputSchema = z.object({
  status: z
    .enum(['success', 'fail'])
    .describe('success when the step is done and the tool results show it; fail otherwise.'),
  notes: z
    .string()
    .min(1)
    .describe(
      'What was accomplished ([SUCCESS]) or why the step could not be completed ([FAIL]). ' +
        'The [SUCCESS]: / [FAIL]: tag is added from `status` when missing.',
    ),
  claims: stepClaimsSchema
    .optional()
    .describe(
      'What you did that can be checked against the workspace: files written or deleted, symbols ' +
        'added, commands that exited 0. Every claim is verified; claim only what tool results showed.',
    ),
});

/** The parsed arguments of `mark_step`. */
export type MarkStepInput = z.infer<typeof markStepInputSchema>;

/** How the model sees `mark_step`. */
export const markStepToolSpec: ToolSpec = {
  name: markStepToolName,
  description:
    'Ends this step. Call it exactly once, when the step is done or cannot be done, with status ' +
    '"success" or "fail", notes starting with [SUCCESS]: or [FAIL]:, and the claims the workspace ' +
    'can confirm. Do not call it together with other tools whose results you have not seen yet.',
  inputSchema: z.toJSONSchema(markStepInputSchema, { io: 'input' }) as Record<string, unknown>,
};
