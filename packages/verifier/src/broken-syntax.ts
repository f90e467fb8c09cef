/**
 * Code the step left unparsable: a file it created or changed that has syntax errors now and
 * parsed before (or is new). "Added `double` to src/a.js" holds for a file whose `double` is
 * declared and never closed — the module does not load, so nothing in it works. JSON files whose
 * readers take comments and trailing commas (`tsconfig.json`, `.vscode/*.json`, `biome.json`, …)
 * are judged leniently; any other JSON (package.json, a program's config) as JSON.parse reads it. Broken
 * syntax is the work when the description asks for it ("a fixture with a syntax error"), and files
 * under fixture folders are left alone. A CSV or TSV file is broken when a row has another number
 * of fields than its header.
 */
import { canCheckSyntax, checkSyntax } from './protocols/syntax-check';

const BROKEN_ASKED =
  /\b(?:syntax\s+errors?|invalid|malformed|broken|corrupt\w*|unparsable|unparseable|does\s+not\s+parse|parse\s+errors?)\b|语法错误|構文エラー/i;
const FIXTURE_PATH = /(?:^|\/)(?:__fixtures__|fixtures?|testdata|test-data)\//i;
const JSON_FILE = /\.json$/i;
/** JSON files whose readers take comments and trailing commas (JSONC): compiler, editor and tool configs. */
const JSONC_FILE =
  /(?:^|\/)(?:[tj]sconfig[\w.-]*\.json|\.vscode\/[^/]+\.json|\.devcontainer(?:\.json|\/[^/]+\.json)|devcontainer\.json|biome\.json|\.eslintrc\.json|turbo\.json|deno\.json|tslint\.json|api-extractor\.json|typedoc\.json|nest-cli\.json|angular\.json|\.babelrc\.json|babel\.config\.json|\.swcrc\.json|language-configuration\.json|\.?oxlintrc\.json|renovate\.json|[\w.-]*\.code-workspace\.json)$/i;

const CSV_FILE = /\.(?:csv|tsv)$/i;

/**
 * The rows of a CSV (or TSV) text whose number of fields differs from the header's (quoted
 * fields may hold separators, quotes and line breaks); `undefined` when every row agrees.
 */
function csvErrors(file: string, text: string): string[] | undefined {
  const separator = /\.tsv$/i.test(file) ? '\t' : ',';
  const rows: { line: number; fields: number }[] = [];
  let fields = 1;
  let quoted = false;
  let line = 1;
  let start = 1;
  let empty = true;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') index++;
      else if (char === '"') quoted = false;
      else if (char === '\n') line++;
      continue;
    }
    if (char === '"') {
      quoted = true;
      empty = false;
    } else if (char === separator) {
      fields++;
      empty = false;
    } else if (char === '\n') {
      if (!empty || fields > 1) rows.push({ line: start, fields });
      line++;
      start = line;
      fields = 1;
      empty = true;
    } else if (char !== '\r') empty = false;
  }
  if (!empty || fields > 1) rows.push({ line: start, fields });
  const header = rows[0];
  if (header === undefined || quoted) return quoted ? ['a quoted field is never closed'] : undefined;
  const wrong = rows.filter((row) => row.fields !== header.fields);
  if (wrong.length === 0) return undefined;
  return wrong
    .slice(0, 3)
    .map((row) => `line ${row.line} has ${row.fields} field(s), the header has ${header.fields}`);
}

/** Whether the description asks for unparsable content on purpose. */
export function brokenSyntaxAsked(description: string): boolean {
  return BROKEN_ASKED.test(description);
}

/** JSON with comments and trailing commas taken out (strings kept as they are). */
function withoutJsonComments(text: string): string {
  return text
    .replace(/"(?:[^"\\]|\\.)*"|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (match) =>
      match.startsWith('"') ? match : '',
    )
    .replace(/,(\s*[}\]])/g, '$1');
}

/** The syntax errors of one file's text; `undefined` when it parses or nothing can tell. */
async function errorsOf(file: string, text: string): Promise<string[] | undefined> {
  if (CSV_FILE.test(file)) return csvErrors(file, text);
  if (JSON_FILE.test(file) && !JSONC_FILE.test(file)) {
    // Read by JSON.parse (package.json, app config): a comment or trailing comma breaks it.
    if (text.trim() === '') return undefined;
    try {
      JSON.parse(text);
      return undefined;
    } catch (error) {
      return [error instanceof Error ? error.message : String(error)];
    }
  }
  if (JSON_FILE.test(file)) {
    try {
      JSON.parse(withoutJsonComments(text));
      return undefined;
    } catch (error) {
      try {
        JSON.parse(text);
        return undefined;
      } catch {
        return [error instanceof Error ? error.message : String(error)];
      }
    }
  }
  const check = await checkSyntax(file, text);
  return check.status === 'invalid' ? check.errors : undefined;
}

/**
 * The files among `files` that the step left with syntax errors (confirmed by the language's
 * toolchain, see {@link checkSyntax}) when their earlier version, if any, parsed. Fixture folders
 * are skipped.
 */
export async function brokenByStep(
  files: readonly { file: string; before: string | undefined; created: boolean; after: string }[],
): Promise<{ file: string; errors: string[] }[]> {
  const judged = await Promise.all(
    files
      .filter(({ file }) => (canCheckSyntax(file) || CSV_FILE.test(file)) && !FIXTURE_PATH.test(file))
      .map(async ({ file, before, created, after }) => {
        if (!created && before === undefined) return undefined;
        const errors = await errorsOf(file, after);
        if (errors === undefined || errors.length === 0) return undefined;
        if (before !== undefined && (await errorsOf(file, before)) !== undefined) return undefined;
        return { file, errors };
      }),
  );
  return judged.filter((entry) => entry !== undefined);
}
