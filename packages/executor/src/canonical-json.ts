/**
 * JSON with object keys sorted at every depth, so that `{ a: 1, b: 2 }` and `{ b: 2, a: 1 }`
 * produce the same text. Used to detect identical repeated tool calls. Values JSON cannot
 * represent (`undefined`, functions) are dropped as `JSON.stringify` drops them; cycles are
 * written as `"[Circular]"` instead of throwing.
 *
 * The text is written directly (no sorted copy of the value): exactly what `JSON.stringify` of
 * such a copy gives — a copy without prototype, so an object's `toJSON` is not called, and
 * integer-like keys first in numeric order, as every JavaScript object orders them.
 */
export function canonicalJson(value: unknown): string {
  try {
    return write(value, new Set<object>()) ?? 'undefined';
  } catch (error) {
    if (error !== ownToJson) throw error;
    return viaSortedCopy(value);
  }
}

const circular = '"[Circular]"';
/** Thrown by {@link write} on an own `toJSON` function, which JSON.stringify would call on the copy. */
const ownToJson = Symbol('own toJSON');

/** `JSON.stringify` of the sorted copy of `value`; undefined where JSON drops it. */
function write(value: unknown, seen: Set<object>): string | undefined {
  if (value === null || typeof value !== 'object') {
    // A function or a symbol inside a copy is what JSON.stringify drops (or writes `null` in arrays).
    return typeof value === 'function' ? undefined : JSON.stringify(value);
  }
  if (seen.has(value)) return circular;
  seen.add(value);
  let out: string;
  if (Array.isArray(value)) {
    out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += write(value[i], seen) ?? 'null';
    }
    out += ']';
  } else {
    const record = value as Record<string, unknown>;
    out = '{';
    let first = true;
    for (const key of jsonKeyOrder(Object.keys(record))) {
      const field = record[key];
      if (key === 'toJSON' && typeof field === 'function') throw ownToJson;
      const text = write(field, seen);
      if (text === undefined) continue;
      out += `${first ? '' : ','}${JSON.stringify(key)}:${text}`;
      first = false;
    }
    out += '}';
  }
  seen.delete(value);
  return out;
}

/** Integer-like keys (array indices) in numeric order, then the others sorted, as a new object holds them. */
function jsonKeyOrder(keys: string[]): string[] {
  keys.sort();
  if (!keys.some(isArrayIndex)) return keys;
  const indices = keys.filter(isArrayIndex);
  indices.sort((a, b) => Number(a) - Number(b));
  for (const key of keys) if (!isArrayIndex(key)) indices.push(key);
  return indices;
}

function isArrayIndex(key: string): boolean {
  if (key === '0') return true;
  if (key.length === 0 || key.length > 10 || key.charCodeAt(0) < 49 || key.charCodeAt(0) > 57) return false;
  for (let i = 1; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return Number(key) < 4_294_967_295;
}

/** JSON.stringify of a sorted copy: for the odd value holding an own `toJSON` function. */
function viaSortedCopy(value: unknown): string {
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
      const sorted: Record<string, unknown> = Object.create(null);
      for (const key of Object.keys(record).sort()) sorted[key] = normalise(record[key]);
      out = sorted;
    }
    seen.delete(input);
    return out;
  };
  return JSON.stringify(normalise(value)) ?? 'undefined';
}
