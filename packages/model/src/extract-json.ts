/** Outcome of {@link extractJson}. */
export type ExtractJsonResult =
  | { ok: true; value: unknown /** The JSON text that parsed. */; json: string }
  | { ok: false; error: string };

function tryParse(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** End index (exclusive) of the balanced object/array starting at `start`, or -1. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{') stack.push('}');
    else if (ch === '[') stack.push(']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * Finds the JSON value in a model's text answer: the whole text if it parses, else the first
 * ```` ```json ```` (or bare ```` ``` ````) fenced block that parses, else the first balanced
 * `{…}` or `[…]` in the prose that parses. `<think>…</think>` blocks are ignored.
 *
 * @example
 * extractJson('Sure! ```json\n{"a":1}\n```') // { ok: true, value: { a: 1 }, json: '{"a":1}' }
 */
export function extractJson(text: string): ExtractJsonResult {
  const cleaned = text.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  if (cleaned === '') return { ok: false, error: 'the answer is empty' };
  const whole = tryParse(cleaned);
  if (whole.ok) return { ok: true, value: whole.value, json: cleaned };

  for (const match of cleaned.matchAll(/```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)```/g)) {
    const body = (match[1] ?? '').trim();
    const parsed = tryParse(body);
    if (parsed.ok) return { ok: true, value: parsed.value, json: body };
  }

  let firstError: string | undefined;
  for (let i = 0; i < cleaned.length; i++) {
    const ch = cleaned[i];
    if (ch !== '{' && ch !== '[') continue;
    const end = balancedEnd(cleaned, i);
    if (end === -1) continue;
    const candidate = cleaned.slice(i, end);
    const parsed = tryParse(candidate);
    if (parsed.ok) return { ok: true, value: parsed.value, json: candidate };
    firstError ??= parsed.error;
  }
  return {
    ok: false,
    error: firstError
      ? `no valid JSON found in the answer (${firstError})`
      : `no JSON object or array found in the answer (${whole.error})`,
  };
}
