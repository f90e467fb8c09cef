import { describe, expect, it } from 'vitest';
import { CortexError } from './cortex-error';
import { assertRunId, createMemoryRunStore, createRunId } from './run-store';
import { runStoreConformance } from './run-store-conformance';

describe('memory run store conformance', () => {
  for (const check of runStoreConformance(() => createMemoryRunStore())) it(check.name, check.run);
});

describe('run ids', () => {
  it('creates time-sortable, valid ids', () => {
    const early = createRunId(1_000);
    const late = createRunId(2_000_000_000_000);
    expect(() => assertRunId(early)).not.toThrow();
    expect([late, early].sort()).toEqual([early, late]);
    expect(createRunId()).not.toBe(createRunId());
  });

  it('rejects non-string ids with a typed error', () => {
    try {
      assertRunId(42);
      expect.unreachable();
    } catch (error) {
      expect(CortexError.isInstance(error) && error.code).toBe('invalid-run-id');
      expect((error as Error).message).toContain('42');
    }
  });
});
