/**
 * JSON with object keys sorted at every depth, so that `{ a: 1, b: 2 }` and `{ b: 2, a: 1 }`
 * produce the same text. Used to detect identical repeated tool calls. Values JSON cannot
 * represent (`undefined`, functions) are dropped as `JSON.stringify` drops them; cycles are
 * written as `"[Circular]"` instead of throwing.
 */
export function canonicalJson(value: unknown): string {
  const seen = new Set<object>();
  const normalise = (input: unknown): unknown => {
    if (input === null || typeof input !== 'object') return input;
    if (seen.has(input)) return '[Circular]';
    seen.add(input);
    let out: unknown;
    if (Array.isArray(input)) {
      out = input.map((item) => (item === undefined ? null : normalise(item)));
    } else {
      const record = input as Record<string, unknown>;
      // No prototype: a `__proto__` key must stay an ordinary property.
      const sorted: Record<string, unknown> = Object.create(null);
      for (const key of Object.keys(record).sort()) sorted[key] = normalise(record[key]);
      out = sorted;
    }
    seen.delete(input);
    return out;
  };
  return JSON.stringify(normalise(value)) ?? 'undefined';
}
