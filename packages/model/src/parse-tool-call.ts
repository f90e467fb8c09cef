import type { ToolCall } from './chat-model';

/** The JSON text inside `parsed` when a server encoded the arguments' JSON text as a JSON string. */
function encodedTwice(parsed: unknown): { text: string; value: unknown } | undefined {
  if (typeof parsed !== 'string' || !/^\s*[[{]/.test(parsed)) return undefined;
  try {
    const value: unknown = JSON.parse(parsed);
    return typeof value === 'object' && value !== null ? { text: parsed, value } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A `ToolCall` from the argument text a provider sent (whole or reassembled from stream deltas):
 * `arguments` is the parsed JSON, `{}` for an empty or blank text or `null` (a call without
 * arguments; Mistral and some gateways send `"null"`), or the raw text itself when it is not valid
 * JSON — so a tool can report the bad input instead of the adapter throwing. `rawArguments` is
 * the text as received, except when a server encoded the arguments twice (a JSON string holding
 * the JSON object, as some gateways and proxies do): then both are the object the string holds.
 *
 * @example
 * parseToolCall({ id: 'call_1', name: 'list_files', rawArguments: '' }).arguments // {}
 * parseToolCall({ id: 'call_2', name: 'read', rawArguments: '"{\\"path\\":\\"a\\"}"' }).rawArguments // '{"path":"a"}'
 */
export function parseToolCall(options: { id: string; name: string; rawArguments: string }): ToolCall {
  const { id, name } = options;
  let { rawArguments } = options;
  let parsed: unknown;
  if (rawArguments.trim() === '') parsed = {};
  else {
    try {
      parsed = JSON.parse(rawArguments);
    } catch {
      parsed = rawArguments;
    }
    const inner = encodedTwice(parsed);
    if (inner) ({ text: rawArguments, value: parsed } = inner);
    else if (parsed === null) parsed = {};
  }
  return { id, name, arguments: parsed, rawArguments };
}
