import type { z } from 'zod';

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * The arguments of a tool call in the form tools receive them: no arguments (`undefined`,
 * `null`, `''`) become `{}`, and a string that holds JSON (a provider's raw argument text) is
 * parsed. Anything else is returned as is. Use it to compare or key calls (the executor's
 * repeated-call check); use {@link parseToolInput} to validate them.
 *
 * @example
 * normalizeToolArguments('{"path":"a.txt"}'); // { path: 'a.txt' }
 * normalizeToolArguments(undefined);          // {}
 */
export function normalizeToolArguments(rawArgs: unknown): unknown {
  const args = rawArgs === undefined || rawArgs === null || rawArgs === '' ? {} : rawArgs;
  if (typeof args !== 'string') return args;
  const parsed = parseJson(args);
  return parsed.ok ? parsed.value : args;
}

/**
 * Validates a tool call's arguments against a tool's input schema, the way the registry does:
 * no arguments are `{}`; a string is tried as given first (a tool may take a string) and, when
 * that fails and it holds JSON, as the parsed JSON. Returns zod's `safeParse` result.
 *
 * @example
 * parseToolInput(z.object({ a: z.number() }), '{"a":1}'); // { success: true, data: { a: 1 } }
 */
export function parseToolInput<Input>(
  schema: z.ZodType<Input>,
  rawArgs: unknown,
): z.ZodSafeParseResult<Input> {
  const args = rawArgs === undefined || rawArgs === null || rawArgs === '' ? {} : rawArgs;
  const first = schema.safeParse(args);
  if (first.success || typeof args !== 'string') return first;
  const parsed = parseJson(args);
  return parsed.ok ? schema.safeParse(parsed.value) : first;
}
