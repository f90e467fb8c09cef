import type { ToolCall } from './chat-model';

/**
 * A `ToolCall` from the argument text a provider sent (whole or reassembled from stream deltas):
 * `arguments` is the parsed JSON, `{}` for an empty or blank text (a call without arguments),
 * or the raw text itself when it is not valid JSON — so a tool can report the bad input instead
 * of the adapter throwing. `rawArguments` is always the text as received.
 *
 * @example
 * parseToolCall({ id: 'call_1', name: 'list_files', rawArguments: '' }).arguments // {}
 */
export function parseToolCall(options: { id: string; name: string; rawArguments: string }): ToolCall {
  const { id, name, rawArguments } = options;
  let parsed: unknown;
  if (rawArguments.trim() === '') parsed = {};
  else {
    try {
      parsed = JSON.parse(rawArguments);
    } catch {
      parsed = rawArguments;
    }
  }
  return { id, name, arguments: parsed, rawArguments };
}
