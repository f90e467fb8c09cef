import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool';
import { ToolError } from './tool-error';

const input = z.object({ a: z.number() });

describe('defineTool', () => {
  it('builds a tool with defaults: not destructive, idempotent, no timeout', async () => {
    const tool = defineTool({ name: 'double', description: 'Doubles a.', input, execute: ({ a }) => a * 2 });
    expect(tool.name).toBe('double');
    expect(tool.destructive).toBe(false);
    expect(tool.idempotent).toBe(true);
    expect(tool.timeoutMs).toBeUndefined();
    expect(tool.output).toBeUndefined();
    const controller = new AbortController();
    await expect(tool.execute({ a: 2 }, { signal: controller.signal, callId: 'c1' })).resolves.toBe(4);
  });

  it('makes destructive tools non-idempotent unless told otherwise', () => {
    const base = { description: 'x', input, execute: () => 1 };
    expect(defineTool({ ...base, name: 'rm', destructive: true }).idempotent).toBe(false);
    expect(defineTool({ ...base, name: 'put', destructive: true, idempotent: true }).idempotent).toBe(true);
    expect(defineTool({ ...base, name: 'inc', idempotent: false }).destructive).toBe(false);
  });

  it('keeps output schema and timeout', () => {
    const tool = defineTool({
      name: 't',
      description: 'x',
      input,
      output: z.number(),
      timeoutMs: 50,
      execute: () => 1,
    });
    expect(tool.output).toBeDefined();
    expect(tool.timeoutMs).toBe(50);
  });

  it.each(['', 'has space', 'dot.name', 'slash/name', 'ünïcode', 'a'.repeat(65)])(
    'rejects the name %j',
    (name) => {
      let caught: unknown;
      try {
        defineTool({ name, description: 'x', input, execute: () => 1 });
      } catch (error) {
        caught = error;
      }
      expect(ToolError.isInstance(caught)).toBe(true);
      expect((caught as ToolError).code).toBe('invalid-definition');
    },
  );

  it('accepts the longest legal name', () => {
    expect(defineTool({ name: 'a'.repeat(64), description: 'x', input, execute: () => 1 }).name).toHaveLength(
      64,
    );
  });

  it('rejects an empty description, a missing schema and a bad timeout', () => {
    expect(() => defineTool({ name: 'x', description: '  ', input, execute: () => 1 })).toThrow(
      /description/,
    );
    expect(() =>
      defineTool({ name: 'x', description: 'd', input: {} as unknown as typeof input, execute: () => 1 }),
    ).toThrow(/zod schema/);
    expect(() => defineTool({ name: 'x', description: 'd', input, timeoutMs: 0, execute: () => 1 })).toThrow(
      /timeoutMs/,
    );
    expect(() =>
      defineTool({ name: 'x', description: 'd', input, timeoutMs: Number.NaN, execute: () => 1 }),
    ).toThrow(/timeoutMs/);
  });
});

describe('ToolError', () => {
  it('carries code, details and cause, and is recognised across copies by its marker', () => {
    const cause = new Error('root');
    const error = new ToolError({ code: 'path-escape', message: 'no', details: { path: '..' }, cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ToolError');
    expect(error.code).toBe('path-escape');
    expect(error.details).toEqual({ path: '..' });
    expect(error.cause).toBe(cause);
    const foreign = Object.assign(new Error('x'), { [Symbol.for('closedloop.tools.error')]: true });
    expect(ToolError.isInstance(foreign)).toBe(true);
    expect(ToolError.isInstance(new Error('x'))).toBe(false);
    expect(ToolError.isInstance(null)).toBe(false);
  });
});
