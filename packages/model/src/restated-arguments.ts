/** Whether text could be one whole JSON object or JSON string (cheap, before parsing it). */
function mayBeWholeJson(text: string): boolean {
  // Scans from both ends rather than trimming: long arguments are checked once per delta.
  let start = 0;
  let end = text.length - 1;
  while (start <= end && isJsonSpace(text.charCodeAt(start))) start++;
  while (end > start && isJsonSpace(text.charCodeAt(end))) end--;
  const first = text[start];
  const last = text[end];
  return end > start && ((first === '{' && last === '}') || (first === '"' && last === '"'));
}

/** JSON's insignificant whitespace: space, tab, line feed, carriage return. */
function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** A complete JSON text's value, a JSON string holding JSON unwrapped once; `undefined` if not JSON. */
function wholeJson(text: string): { value: unknown } | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'string' && mayBeWholeJson(value)) return wholeJson(value) ?? { value };
    return { value };
  } catch {
    return undefined;
  }
}

/** The text without JSON whitespace (inside strings too: only for comparing two texts alike). */
function compact(text: string): string {
  return text.replace(/[ \t\n\r]+/g, '');
}

/**
 * Whether a streamed argument delta restates arguments: `same` (the whole arguments again after
 * they were complete, possibly re-serialised or double-encoded — LiteLLM, GLM parsers and some
 * proxies send them again at the end, and appending them would double the JSON), `whole` (the
 * arguments so far were incomplete and the delta is the whole arguments from their start — vLLM's
 * end-of-stream flush of the GLM and xLAM parsers; it replaces them), `different` (other complete
 * arguments: which the model meant is unknown), `no` (an ordinary delta). Parses only when the
 * delta looks like whole JSON, so ordinary deltas cost a few character reads.
 *
 * @example
 * restatedArguments('{"q": 1}', '"{\\"q\\":1}"'); // 'same'
 * restatedArguments('{"q": ', '{"q": 1}'); // 'whole'
 */
export function restatedArguments(existing: string, incoming: string): 'no' | 'same' | 'whole' | 'different' {
  if (existing === '' || incoming === '' || !mayBeWholeJson(incoming)) return 'no';
  if (!mayBeWholeJson(existing)) return wholeFromStart(existing, incoming) ? 'whole' : 'no';
  const before = wholeJson(existing);
  if (!before) return wholeFromStart(existing, incoming) ? 'whole' : 'no';
  const after = wholeJson(incoming);
  if (!after) return 'no';
  return JSON.stringify(before.value) === JSON.stringify(after.value) ? 'same' : 'different';
}

/**
 * Whether `incoming` is a whole JSON object that begins with the incomplete `existing` (spacing
 * aside): the arguments restated from their start, not a continuation.
 */
function wholeFromStart(existing: string, incoming: string): boolean {
  if (!compact(incoming).startsWith(compact(existing))) return false;
  const after = wholeJson(incoming);
  return after !== undefined && typeof after.value === 'object' && after.value !== null;
}
