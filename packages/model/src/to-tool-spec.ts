import { z } from 'zod';
import type { JsonSchema, ToolSpec } from './chat-model';
import { ModelError } from './model-error';

/** Options for {@link toJsonSchema}. */
export interface ToJsonSchemaOptions {
  /**
   * `input`: the shape a value must have to parse (tool arguments, model answers; defaults are
   * optional). `output`: the parsed shape (defaults required, `additionalProperties: false`).
   * Default `input`.
   */
  io?: 'input' | 'output';
}

/** Removes the top-level `$schema` keyword (providers reject or ignore it). Returns a copy. */
export function stripSchemaKeyword(schema: JsonSchema): JsonSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}

/**
 * Converts a zod schema to a JSON Schema object for a model (via `z.toJSONSchema`, without
 * `$schema`). Throws `ModelError('bad-request')` when the schema cannot be represented
 * (transforms in `output` mode, `bigint`, custom types…).
 */
export function toJsonSchema(schema: z.ZodType, options: ToJsonSchemaOptions = {}): JsonSchema {
  const io = options.io ?? 'input';
  try {
    return stripSchemaKeyword(z.toJSONSchema(schema, { io }) as JsonSchema);
  } catch (error) {
    throw new ModelError({
      code: 'bad-request',
      message: `zod schema cannot be converted to JSON Schema (io: ${io}): ${
        error instanceof Error ? error.message : String(error)
      }. Use JSON-representable types, or move transforms out of the schema.`,
      cause: error,
    });
  }
}

const toolNamePattern = /^[a-zA-Z0-9_-]{1,64}$/;

/** Input of {@link toToolSpec}. */
export interface ToToolSpecInput {
  /** 1–64 characters of `[a-zA-Z0-9_-]` (the strictest provider rule). */
  name: string;
  description: string;
  /** zod schema of the tool's arguments; must describe an object. */
  input: z.ZodType;
}

/**
 * Builds the `ToolSpec` a model sees from a name, a description and a zod input schema (JSON
 * Schema in `input` mode, without `$schema`). Throws `ModelError('bad-request')` for an invalid
 * name, an empty description, or a schema that is not an object.
 */
export function toToolSpec(tool: ToToolSpecInput): ToolSpec {
  if (!toolNamePattern.test(tool.name)) {
    throw new ModelError({
      code: 'bad-request',
      message: `tool name ${JSON.stringify(tool.name)} is invalid: use 1-64 characters of [a-zA-Z0-9_-]`,
    });
  }
  if (tool.description.trim() === '') {
    throw new ModelError({
      code: 'bad-request',
      message: `tool ${tool.name}: description must not be empty (the model relies on it)`,
    });
  }
  const inputSchema = toJsonSchema(tool.input, { io: 'input' });
  if (inputSchema.type !== 'object') {
    throw new ModelError({
      code: 'bad-request',
      message: `tool ${tool.name}: input schema must be a z.object(...), got JSON Schema type ${JSON.stringify(
        inputSchema.type,
      )}`,
    });
  }
  return { name: tool.name, description: tool.description, inputSchema };
}
