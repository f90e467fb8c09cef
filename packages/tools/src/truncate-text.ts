const truncationMarker = (omitted: number, total: number) =>
  `\n\n[… truncated: ${omitted} of ${total} characters omitted …]\n\n`;

/**
 * Cuts `text` to at most `max` characters, keeping its head (70 %) and tail (30 %, where errors
 * of command output tend to be) around a marker that says how much was left out. The marker
 * counts toward `max`; when `max` is too small to hold it, the text is cut to its first `max`
 * characters. Text within `max` is returned unchanged.
 *
 * The registry cuts every result text with it, and `@closedloop/executor` cuts what goes back
 * to the model (tool results, dependency outputs) with it too.
 *
 * @example
 * truncateText('x'.repeat(10_000), 200); // 'xxx…\n\n[… truncated: 9853 of 10000 characters omitted …]\n\n…xxx'
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = max - truncationMarker(text.length, text.length).length;
  if (room <= 0) return text.slice(0, max);
  const head = Math.ceil(room * 0.7);
  const tail = room - head;
  return (
    text.slice(0, head) +
    truncationMarker(text.length - room, text.length) +
    (tail > 0 ? text.slice(-tail) : '')
  );
}
