import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { normalizeToolArguments, parseToolInput } from './parse-tool-input';

describe('normalizeToolArguments', () => {
  it('turns no arguments into {} and parses JSON text', () => {
    expect(normalizeToolArguments(undefined)).toEqual({});
    expect(normalizeToolArguments(null)).toEqual({});
    expect(normalizeToolArguments('')).toEqual({});
    expect(normalizeToolArguments('{"path":"a.txt"}')).toEqual({ path: 'a.txt' });
    expect(normalizeToolArguments('not json')).toBe('not json');
    const args = { a: 1 };
    expect(normalizeToolArguments(args)).toBe(args);
  });
});

describe('parseToolInput', () => {
  const object = z.object({ a: z.number(), b: z.string().default('x') });

  it('validates objects and fills defaults', () => {
    expect(parseToolInput(object, { a: 1 })).toMatchObject({ success: true, data: { a: 1, b: 'x' } });
    expect(parseToolInput(object, { a: 'one' }).success).toBe(false);
  });

  it('validates JSON text as its value first, as the string only when that fails', () => {
    expect(parseToolInput(object, '{"a":2}')).toMatchObject({ success: true, data: { a: 2, b: 'x' } });
    expect(parseToolInput(z.string(), '{"a":2}')).toMatchObject({ success: true, data: '{"a":2}' });
    expect(parseToolInput(z.unknown(), '{"a":2}')).toMatchObject({ success: true, data: { a: 2 } });
    expect(parseToolInput(object, '{"a":').success).toBe(false);
  });

  it('never hands malformed argument text to a tool, even one whose schema takes a string', () => {
    for (const schema of [z.unknown(), z.any(), z.string(), z.union([object, z.string()])]) {
      const result = parseToolInput(schema as z.ZodType<unknown>, '{"path":"notes/plan.md","content":"# Pl');
      expect(result.success).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/^The arguments are not valid JSON \(/);
    }
    expect(parseToolInput(object, '<function=read_file{"path": "README.md"}</function>').success).toBe(false);
  });

  it('treats missing arguments as {}', () => {
    expect(parseToolInput(z.object({}), undefined).success).toBe(true);
    expect(parseToolInput(object, null).success).toBe(false);
  });
});
