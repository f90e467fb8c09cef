import { z } from 'zod';

function parseJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
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
 * no arguments are `{}`; a string is argument text (adapters pass the raw text on when it is not
 * valid JSON): JSON text is validated as the value it holds first and, only when that fails, as
 * the string itself (a tool that takes a string); text that is not JSON — a model's malformed or
 * truncated arguments — fails with a "not valid JSON" issue and is never handed to the tool as
 * a string, even when the schema would take one (`z.any()`, `z.string()`, a union with a string).
 * Returns zod's `safeParse` result.
 *
 * @example
 * parseToolInput(z.object({ a: z.number() }), '{"a":1}'); // { success: true, data: { a: 1 } }
 * parseToolInput(z.unknown(), '{"a":');                    // { success: false, error: … not valid JSON … }
 */
export function parseToolInput<Input>(
  schema: z.ZodType<Input>,
  rawArgs: unknown,
): z.ZodSafeParseResult<Input> {
  const args = rawArgs === undefined || rawArgs === null || rawArgs === '' ? {} : rawArgs;
  if (typeof args !== 'string') return schema.safeParse(args);
  const parsed = parseJson(args);
  if (!parsed.ok) {
    return {
      success: false,
      error: new z.ZodError([
        {
          code: 'custom',
          path: [],
          input: args,
          message: `The arguments are not valid JSON (${parsed.reason}); send one complete JSON object that matches the tool's input schema.`,
        },
      ]),
    } as z.ZodSafeParseResult<Input>;
  }
  const first = schema.safeParse(parsed.value);
  if (first.success) return first;
  const asText = schema.safeParse(args);
  return asText.success ? asText : first;
}
