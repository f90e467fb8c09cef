/**
 * A change that only moves whitespace — re-indented lines, a trailing newline, blank lines — when
 * the step was asked for content ("Update the docs for the new flag", "Fix the bug in src/a.js"):
 * the files differ, so "modified" holds, and nothing was done. Whitespace-only work is accepted
 * when it is what was asked (formatting, indentation, line endings, linting).
 */

/** Words that ask for whitespace or layout work. */
const LAYOUT_ASKED =
  /\b(?:format\w*|re-?format\w*|whitespace|indent\w*|dedent\w*|trailing|spacing|spaces?|tabs?|newlines?|blank\s+lines?|line\s+endings?|eol|crlf|lf|prettier|biome|black|gofmt|rustfmt|lint\w*|style|tidy|cosmetic|wrap\w*|re-?flow)\b/i;

/** Whether the description asks for layout or whitespace work. */
export function layoutAsked(description: string): boolean {
  return LAYOUT_ASKED.test(description);
}

const squash = (text: string) => text.replace(/\s+/g, '');

/** Whether two versions of a file differ only in whitespace (and do differ). */
export function whitespaceOnly(before: string, after: string): boolean {
  return before !== after && squash(before) === squash(after);
}
