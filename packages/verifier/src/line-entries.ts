/**
 * Files of plain lines no code parser reads — ignore lists, `.env` files, `requirements.txt` —
 * where an entry is a line: a symbol claim about one ("added `DEBUG` to .env", "added the
 * `coverage` entry to .gitignore") is checked by the line itself.
 */

const IGNORE_FILE =
  /(?:^|\/)\.(?:git|docker|npm|prettier|eslint|stylelint|vercel|slug|hg|cf)ignore$|(?:^|\/)\.gitattributes$|(?:^|\/)CODEOWNERS$/;
const ENV_FILE = /(?:^|\/)\.env(?:\.[\w.-]+)?$|(?:^|\/)[\w.-]+\.env$/;
const REQUIREMENTS_FILE = /(?:^|\/)requirements[\w.-]*\.(?:txt|in)$|(?:^|\/)constraints\.txt$/;

/** Whether a file is read as lines of entries (an ignore list, an env file, a requirements list). */
export function isLineEntryFile(file: string): boolean {
  return IGNORE_FILE.test(file) || ENV_FILE.test(file) || REQUIREMENTS_FILE.test(file);
}

/** The entry a line declares in such a file, or undefined for a blank line or a comment. */
function entryOf(file: string, line: string): string | undefined {
  const trimmed = line.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return undefined;
  if (ENV_FILE.test(file)) return /^(?:export\s+)?([A-Za-z_][\w.]*)\s*=/.exec(trimmed)?.[1];
  if (REQUIREMENTS_FILE.test(file)) return /^([A-Za-z0-9][\w.-]*)/.exec(trimmed)?.[1]?.toLowerCase();
  // Ignore lists: the pattern, without its anchoring slash, trailing slash or negation.
  return trimmed
    .split(/\s+/)[0]
    ?.replace(/^!/, '')
    .replace(/^\//, '')
    .replace(/\/(?:\*\*?)?$/, '');
}

/** Whether `text` (a line-entry file) has an entry named `name`. */
export function hasLineEntry(file: string, text: string, name: string): boolean {
  const wanted = entryOf(file, REQUIREMENTS_FILE.test(file) ? name.toLowerCase() : name) ?? name;
  const bare = ENV_FILE.test(file) ? name : wanted;
  return text.split(/\r?\n/).some((line) => {
    const entry = entryOf(file, line);
    return entry !== undefined && (entry === bare || entry === name);
  });
}
