import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json';

describe('canonicalJson', () => {
  it('sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ a: 1, b: 2 })).toBe(canonicalJson({ b: 2, a: 1 }));
  });

  it('distinguishes different values and handles primitives, undefined and cycles', () => {
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson('x')).toBe('"x"');
    expect(canonicalJson(undefined)).toBe('undefined');
    expect(canonicalJson([undefined, 1])).toBe('[null,1]');
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    expect(canonicalJson(cycle)).toBe('{"a":1,"self":"[Circular]"}');
    expect(canonicalJson(JSON.parse('{"__proto__":{"x":1},"a":2}'))).toBe('{"__proto__":{"x":1},"a":2}');
  });

  it('is the same for any key order (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(record));
        expect(JSON.parse(canonicalJson(record))).toEqual(JSON.parse(JSON.stringify(record)));
      }),
    );
  });

  it('writes exactly JSON.stringify of a sorted copy without prototype, odd values included (property)', () => {
    const reference = (value: unknown): string => {
      const seen = new Set<object>();
      const normalise = (input: unknown): unknown => {
        if (input === null || typeof input !== 'object') return input;
        if (seen.has(input)) return '[Circular]';
        seen.add(input);
        let out: unknown;
        if (Array.isArray(input)) out = input.map((item) => (item === undefined ? null : normalise(item)));
        else {
          const sorted: Record<string, unknown> = Object.create(null);
          for (const key of Object.keys(input).sort())
            sorted[key] = normalise((input as Record<string, unknown>)[key]);
          out = sorted;
        }
        seen.delete(input);
        return out;
      };
      return JSON.stringify(normalise(value)) ?? 'undefined';
    };
    const odd = fc.constantFrom<unknown>(
      undefined,
      () => 1,
      Symbol('s'),
      Number.NaN,
      -0,
      Number.POSITIVE_INFINITY,
      new Date(0),
      new Map([[1, 2]]),
      { toJSON: () => 'own' },
      'a"\\\u2028\n',
    );
    const key = fc.oneof(
      fc.string(),
      fc.constantFrom('0', '1', '2', '10', '9', '01', '4294967295', '4294967294', '-1', 'toJSON'),
    );
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        fc.jsonValue({ maxDepth: 1 }),
        odd,
        fc.array(tie('v'), { maxLength: 4 }),
        fc.dictionary(key, tie('v'), { maxKeys: 5 }),
      ),
    })).v;
    fc.assert(
      fc.property(value, (input) => {
        expect(canonicalJson(input)).toBe(reference(input));
      }),
      { numRuns: 3_000 },
    );
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: [shared] })).toBe(reference({ a: shared, b: [shared] }));
    expect(canonicalJson({ 10: 'a', 9: 'b', z: 1, a: 2 })).toBe('{"9":"b","10":"a","a":2,"z":1}');
    expect(() => canonicalJson({ a: 1n })).toThrow(TypeError);
  });
});
