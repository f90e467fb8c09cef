import { ModelError, type ToolSpec, toToolSpec } from '@closedloop/model';
import type { z } from 'zod';
import { ReplannerError } from './replanner-error';

/**
 * A tool the replanner may tell the model about: a model-facing `ToolSpec` (name, description,
 * JSON schema) or a closedloop tool (`defineTool(...)`, anything with a zod `input`).
 */
export type ReplannerTool =
  | ToolSpec
  | { readonly name: string; readonly description: string; readonly input: z.ZodType };

/**
 * Normalises tools to `ToolSpec`s, in the given order. Throws `ReplannerError('invalid-input')`
 * for duplicate names or a tool whose schema cannot be shown to a model.
 */
export function toToolSpecs(tools: readonly ReplannerTool[] | undefined): ToolSpec[] {
  if (!Array.isArray(tools)) {
    throw new ReplannerError({
      code: 'invalid-input',
      message: 'options.tools must be an array of ToolSpecs or closedloop tools (pass [] for none).',
    });
  }
  const seen = new Set<string>();
  return tools.map((tool) => {
    if (seen.has(tool.name)) {
      throw new ReplannerError({
        code: 'invalid-input',
        message: `Tool name ${JSON.stringify(tool.name)} appears twice in options.tools; tool names must be unique.`,
        details: { tool: tool.name },
      });
    }
    seen.add(tool.name);
    if ('inputSchema' in tool) return tool;
    try {
      return toToolSpec({ name: tool.name, description: tool.description, input: tool.input });
    } catch (error) {
      throw new ReplannerError({
        code: 'invalid-input',
        message: `Tool ${JSON.stringify(tool.name)} cannot be described to the model: ${
          ModelError.isInstance(error) ? error.message : String(error)
        }`,
        details: { tool: tool.name },
        cause: error,
      });
    }
  });
}
