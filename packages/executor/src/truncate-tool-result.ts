/**
 * Shortens a tool result for the conversation. Keeps the head (three quarters of the budget)
 * and the tail (one quarter) — errors tend to be at the end of command output — joined by a
 * marker that says how much was cut. Text within `maxChars` is returned unchanged.
 *
 * @example
 * truncateToolResult('x'.repeat(10_000), 100); // 75 × 'x', marker, 25 × 'x'
 */
export function truncateToolResult(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = Math.floor(maxChars * 0.75);
  const tail = maxChars - head;
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}\n…[truncated ${omitted} of ${text.length} characters]…\n${tail > 0 ? text.slice(text.length - tail) : ''}`;
}
