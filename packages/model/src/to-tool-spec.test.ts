import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { stripSchemaKeyword, toJsonSchema, toToolSpec } from './to-tool-spec';

describe('toToolSpec', () => {
  it('builds a ToolSpec with an input-mode JSON Schema and no $schema', () => {
    const spec = toToolSpec({
      name: 'read_file',
      description: 'Read a file',
      input: z.object({ path: z.string().describe('relative path'), maxBytes: z.number().default(1000) }),
    });
    expect(spec).toEqual({
      name: 'read_file',
      description: 'Read a file',
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'relative path' },
          maxBytes: { type: 'number', default: 1000 },
        },
        required: ['path'],
      },
    });
  });

  it('rejects invalid names, empty descriptions and non-object inputs', () => {
    expect(() => toToolSpec({ name: 'read file', description: 'x', input: z.object({}) })).toThrow(
      expect.objectContaining({ code: 'bad-request' }),
    );
    expect(() => toToolSpec({ name: 'x'.repeat(65), description: 'x', input: z.object({}) })).toThrow(
      /invalid/,
    );
    expect(() => toToolSpec({ name: 'ok', description: '  ', input: z.object({}) })).toThrow(/description/);
    expect(() => toToolSpec({ name: 'ok', description: 'x', input: z.string() })).toThrow(/z\.object/);
  });

  it('wraps unrepresentable schemas in a bad-request error', () => {
    expect(() => toToolSpec({ name: 'ok', description: 'x', input: z.object({ n: z.bigint() }) })).toThrow(
      expect.objectContaining({ code: 'bad-request' }),
    );
  });
});

describe('toJsonSchema / stripSchemaKeyword', () => {
  it('supports output mode', () => {
    const schema = z.object({ a: z.number().default(1) });
    expect(toJsonSchema(schema, { io: 'output' })).toEqual({
      type: 'object',
      properties: { a: { type: 'number', default: 1 } },
      required: ['a'],
      additionalProperties: false,
    });
  });

  it('strips only the top-level $schema', () => {
    expect(
      stripSchemaKeyword({ $schema: 'x', type: 'object', properties: { $schema: { type: 'string' } } }),
    ).toEqual({
      type: 'object',
      properties: { $schema: { type: 'string' } },
    });
  });
});
