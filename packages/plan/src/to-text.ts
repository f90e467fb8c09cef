/**
 * A value as text: strings as they are, an `Error` as its message, anything else as JSON
 * (`String(value)` when JSON cannot represent it: `undefined`, functions, cycles, bigints).
 * The ledger stores tool results this way and `formatToolHistory` renders arguments with it.
 */
export function toText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return value.message;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
