/**
 * Prose a step added that is only a placeholder: a README section whose body is `TODO`, `TBD`,
 * "Coming soon", "Lorem ipsum" or `...`. The heading is there; what it was to explain is not.
 */

/** Files of prose. */
export const PROSE_FILE = /\.(?:md|mdx|markdown|rst|adoc|txt)$/i;

/** A line that only holds a placeholder (list markers and emphasis around it allowed). */
const PLACEHOLDER_LINE =
  /^\s*(?:[-*+>]\s*)?[*_`]*\s*(?:todo|tbd|tba|fixme|wip|xxx|coming\s+soon|to\s+be\s+(?:written|added|done|documented|completed)|lorem\s+ipsum\b.*|placeholder|\.{3}|…|n\/a)\s*[.!:]?\s*(?:\(.*\))?\s*[*_`]*\s*$/i;

/** Lines that carry no content: blank, headings, rules, fences. */
const FRAME_LINE = /^\s*(?:#{1,6}\s.*|[=\-~^*_]{3,}|```.*|<!--.*-->)?\s*$/;

/** The request itself asks for a placeholder or an outline ("add a TODO section", "stub out the docs"). */
const PLACEHOLDER_ASKED =
  /\b(?:todo|tbd|placeholder|outline|skeleton|stub|stubs|template|headings?\s+only|empty\s+section)\b/i;

/**
 * The lines a step added to a prose file when every one of them is a heading or a placeholder and
 * at least one is a placeholder; undefined otherwise (or when the request asks for placeholders).
 *
 * @example
 * placeholderProse('# demo\n', '# demo\n\n## Usage\n\nTODO\n', 'Add a Usage section'); // ['TODO']
 */
export function placeholderProse(
  before: string | undefined,
  after: string,
  description: string,
): string[] | undefined {
  if (PLACEHOLDER_ASKED.test(description)) return undefined;
  const old = new Map<string, number>();
  for (const line of (before ?? '').split('\n')) old.set(line.trim(), (old.get(line.trim()) ?? 0) + 1);
  const added: string[] = [];
  for (const line of after.split('\n')) {
    const key = line.trim();
    const left = old.get(key) ?? 0;
    if (left > 0) old.set(key, left - 1);
    else added.push(line);
  }
  const content = added.filter((line) => !FRAME_LINE.test(line));
  if (content.length === 0 || !content.every((line) => PLACEHOLDER_LINE.test(line))) return undefined;
  return content.map((line) => line.trim());
}
