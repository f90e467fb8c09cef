import { describe, expect, it } from 'vitest';
import { markStepInputSchema, markStepToolSpec } from './mark-step-tool';

describe('mark_step', () => {
  it('is an object tool whose only required fields are status and notes', () => {
    expect(markStepToolSpec.name).toBe('mark_step');
    expect(markStepToolSpec.inputSchema).toMatchObject({ type: 'object', required: ['status', 'notes'] });
    expect(Object.keys(markStepToolSpec.inputSchema.properties as object)).toEqual([
      'status',
      'notes',
      'claims',
    ]);
  });

  it('fills claim defaults', () => {
    const parsed = markStepInputSchema.parse({
      status: 'success',
      notes: 'done',
      claims: {
        symbolsAdded: [{ file: 'a.ts', name: 'a' }],
        commandsPassed: [{ argv: ['npm', 'test'] }],
        tags: [{ name: 'v1.0.0' }],
      },
    });
    expect(parsed.claims).toEqual({
      filesWritten: [],
      filesDeleted: [],
      symbolsAdded: [{ file: 'a.ts', name: 'a', kind: 'any' }],
      commandsPassed: [{ argv: ['npm', 'test'] }],
      tags: [{ name: 'v1.0.0', action: 'create' }],
    });
  });

  it('rejects an empty argv and unknown statuses', () => {
    expect(markStepInputSchema.safeParse({ status: 'partial', notes: 'x' }).success).toBe(false);
    expect(
      markStepInputSchema.safeParse({
        status: 'success',
        notes: 'x',
        claims: { commandsPassed: [{ argv: [] }] },
      }).success,
    ).toBe(false);
  });
});
