import type { z } from 'zod';
import type { Tool, ToolContext } from './tool';
import { ToolError } from './tool-error';

const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** Options of {@link defineTool}. */
export interface DefineToolOptions<Input, Output> {
  /** What the model calls it: `^[a-zA-Z0-9_-]{1,64}$` (the strictest provider rule). */
  name: string;
  /** What the model reads to decide when to call it. */
  description: string;
  /** Validates the model's arguments; its JSON Schema is what the model sees. */
  input: z.ZodType<Input>;
  /** When given, the registry checks the result against it (`output-invalid` otherwise). */
  output?: z.ZodType<Output>;
  /** Deletes or overwrites data, runs commands, pushes… Default `false`. */
  destructive?: boolean;
  /** Safe to re-run after a crash. Default `!destructive`. */
  idempotent?: boolean;
  /** The registry stops waiting after this long and answers `timeout`. */
  timeoutMs?: number;
  /** The JSON Schema the model sees; default `z.toJSONSchema(input)` (MCP tools pass their own). */
  inputJsonSchema?: Record<string, unknown>;
  /** Renders a result for the model; default: strings as is, anything else as JSON. */
  toText?: (output: Output) => string;
  execute(input: Input, context: ToolContext): Promise<Output> | Output;
}

/**
 * Builds a {@link Tool}. Checks the definition eagerly: a bad name, an empty description or a
 * non-positive timeout throws a `ToolError` with code `invalid-definition`.
 *
 * @example
 * ```ts
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Adds two numbers.',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => a + b,
 * });
 * ```
 */
export function defineTool<Input, Output>(options: DefineToolOptions<Input, Output>): Tool<Input, Output> {
  const { name, description, input, output, timeoutMs, execute } = options;
  if (typeof name !== 'string' || !toolNamePattern.test(name)) {
    throw new ToolError({
      code: 'invalid-definition',
      message: `Tool name ${JSON.stringify(name)} is invalid: use 1 to 64 characters from a-z, A-Z, 0-9, "_" and "-".`,
      details: { name },
    });
  }
  if (typeof description !== 'string' || description.trim() === '') {
    throw new ToolError({
      code: 'invalid-definition',
      message: `Tool "${name}" needs a non-empty description: the model reads it to decide when to call the tool.`,
      details: { name },
    });
  }
  if (input === null || typeof input !== 'object' || typeof input.safeParse !== 'function') {
    throw new ToolError({
      code: 'invalid-definition',
      message: `Tool "${name}" needs a zod schema as \`input\`.`,
      details: { name },
    });
  }
  if (typeof execute !== 'function') {
    throw new ToolError({
      code: 'invalid-definition',
      message: `Tool "${name}" needs an \`execute\` function.`,
      details: { name },
    });
  }
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0)) {
    throw new ToolError({
      code: 'invalid-definition',
      message: `Tool "${name}" has timeoutMs ${String(timeoutMs)}: use a positive number of milliseconds.`,
      details: { name, timeoutMs },
    });
  }
  const destructive = options.destructive ?? false;
  const tool: Tool<Input, Output> = {
    name,
    description,
    input,
    destructive,
    idempotent: options.idempotent ?? !destructive,
    timeoutMs,
    execute: async (value, context) => execute(value, context),
  };
  return {
    ...tool,
    ...(output !== undefined ? { output } : {}),
    ...(options.toText !== undefined ? { toText: options.toText } : {}),
    ...(options.inputJsonSchema !== undefined ? { inputJsonSchema: options.inputJsonSchema } : {}),
  };
}
