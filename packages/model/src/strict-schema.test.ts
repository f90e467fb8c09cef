import { describe, expect, it } from 'vitest';
import { strictSchemaProblem, useStrictTool } from './strict-schema';

const closed = {
  type: 'object',
  properties: { path: { type: 'string' }, lines: { type: 'array', items: { type: 'integer' } } },
  required: ['path', 'lines'],
  additionalProperties: false,
};

describe('strictSchemaProblem', () => {
  it('accepts closed, fully required object schemas (nested too)', () => {
    expect(strictSchemaProblem(closed)).toBeUndefined();
    expect(
      strictSchemaProblem({
        type: 'object',
        properties: { inner: closed, either: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
        required: ['inner', 'either'],
        additionalProperties: false,
      }),
    ).toBeUndefined();
  });

  it('names what makes a schema non-strict', () => {
    expect(strictSchemaProblem({ type: 'object', properties: {} })).toMatch(/additionalProperties/);
    expect(strictSchemaProblem({ ...closed, required: ['path'] })).toMatch(/optional properties \(lines\)/);
    expect(
      strictSchemaProblem({
        ...closed,
        properties: { ...closed.properties, extra: { type: 'object', properties: {} } },
        required: ['path', 'lines', 'extra'],
      }),
    ).toMatch(/\$\.properties\.extra/);
    expect(strictSchemaProblem({ ...closed, not: { required: ['x'] } })).toMatch(/"not"/);
    expect(strictSchemaProblem({ type: 'string' })).toMatch(/not an object/);
  });

  it('useStrictTool honours strict: false', () => {
    expect(useStrictTool({ inputSchema: closed })).toBe(true);
    expect(useStrictTool({ inputSchema: closed, strict: false })).toBe(false);
    expect(useStrictTool({ inputSchema: { type: 'object', properties: { a: {} } }, strict: true })).toBe(
      false,
    );
  });
});
