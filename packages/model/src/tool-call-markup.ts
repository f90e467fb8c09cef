/**
 * Tool-call markup left in an answer's text: what a model writes to call a tool when the server
 * in front of it has no tool-call parser for its format (vLLM, llama.cpp or LM Studio without the
 * model's parser). The server then sends the markup as ordinary content and ends the answer with
 * `stop`: read as text, a call the model meant becomes a final answer that did nothing.
 */

/** The model formats a call is written in, each with the tool name it carries. */
const markupFormats: ReadonlyArray<{ format: string; pattern: RegExp }> = [
  // Hermes, Qwen 2.5/3: <tool_call>{"name": "read_file", "arguments": {…}}</tool_call>
  { format: '<tool_call>', pattern: /<tool_call>\s*\{\s*"name"\s*:\s*"([^"]+)"/ },
  // Mistral: [TOOL_CALLS][{"name": …}] or [TOOL_CALLS]read_file[ARGS]{…}
  {
    format: '[TOOL_CALLS]',
    pattern: /\[TOOL_CALLS\]\s*(?:\[\s*\{\s*"name"\s*:\s*"([^"]+)"|([\w.-]+)\s*\[ARGS\])/,
  },
  // Llama 3.1: <|python_tag|>{"name": …}
  { format: '<|python_tag|>', pattern: /<\|python_tag\|>\s*\{\s*"name"\s*:\s*"([^"]+)"/ },
  // DeepSeek V3/R1: <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read_file
  {
    format: '<｜tool▁call▁begin｜>',
    pattern: /<｜tool▁call▁begin｜>\s*(?:function)?\s*<｜tool▁sep｜>\s*([\w.-]+)/,
  },
  // Llama 3.2 and others: <function=read_file>{…}</function>
  { format: '<function=…>', pattern: /<function=([\w.-]+)>/ },
];

/** A whole answer that is one call object (in a ```json fence or not): {"name": …, "arguments": {…}}. */
const bareCall =
  /^(?:```(?:json)?\s*)?\{\s*"name"\s*:\s*"([^"]+)"\s*,\s*"(?:arguments|parameters)"\s*:\s*\{[\s\S]*\}\s*(?:```)?$/;

/**
 * The tool call an answer's text holds as markup, when it names one of `toolNames` (the tools
 * the request offered): its format and tool name, or undefined. Markup naming no offered tool (a
 * model explaining the format, a tutorial) is ordinary text.
 *
 * @example
 * ```ts
 * toolCallMarkup('<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>', ['read_file']);
 * // → { format: '<tool_call>', name: 'read_file' }
 * ```
 */
export function toolCallMarkup(
  text: string,
  toolNames: Iterable<string>,
): { format: string; name: string } | undefined {
  if (text === '') return undefined;
  const offered = new Set(toolNames);
  if (offered.size === 0) return undefined;
  for (const { format, pattern } of markupFormats) {
    const match = pattern.exec(text);
    const name = match?.slice(1).find((group) => group !== undefined);
    if (name !== undefined && offered.has(name)) return { format, name };
  }
  const whole = bareCall.exec(text.trim());
  if (whole?.[1] !== undefined && offered.has(whole[1]))
    return { format: 'a bare JSON call', name: whole[1] };
  return undefined;
}
