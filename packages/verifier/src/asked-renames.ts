import { codeWithoutStrings } from './asked-literals';
import { escapeRegExp } from './escape-reg-exp';
import { findPaths } from './find-paths';

/**
 * A rename asked for by name — "Rename `fetchUser` to `getUser` across the codebase" — done in
 * one file of many: the old name is still declared or used as code elsewhere (the callers still
 * import and call it), so the code no longer agrees with itself. A rename scoped to named files
 * ("… in src/a.js") is judged in those files; otherwise every tracked code file counts. The old
 * name may stay where the description keeps it (an alias, a deprecated re-export, compatibility)
 * and in comments and strings.
 */

const RENAME =
  /\brename\s+`([A-Za-z_$][\w$]*)(?:\(\))?`\s+to\s+`([A-Za-z_$][\w$]*)(?:\(\))?`((?:[^.;\n]|\.(?=\S))*)/i;
/** The same without backticks: "Rename the function fetchUser to loadUser", "Rename parse_args() to read_args()". */
const RENAME_BARE =
  /\brename\s+(?:the\s+)?(?:(function|method|class|variable|constant|helper|hook|component|type|interface|export)\s+)?([A-Za-z_$][\w$]*)(\(\))?\s+(?:(?:function|method|class|helper)\s+)?to\s+([A-Za-z_$][\w$]*)(\(\))?(?![\w$./-])((?:[^.;\n]|\.(?=\S))*)/i;
/** Code-shaped: an underscore, a `$` or a lower-to-upper case change (not an English word). */
const CODE_SHAPED = /[_$]|[a-z][A-Z]/;
/** The old name is meant to stay. */
const KEEPS_OLD = /\b(?:alias\w*|deprecat\w*|backward\w*|compat\w*|keep|re-?export\w*|shim)\b/i;
/** Code files the check reads. */
export const CODE_FILE = /\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb|php|cs|swift|vue|svelte)$/;
/** Folders of generated or vendored code. */
const NOT_SOURCE = /(?:^|\/)(?:node_modules|dist|build|out|vendor|coverage|\.git)\//;

/** One rename the step was asked to make. */
export interface AskedRename {
  from: string;
  to: string;
  /** The files named for it (none: the whole codebase). */
  files: string[];
}

/** The rename a description asks for (backticked, or plainly code without), unless it keeps the old name. */
export function askedRename(description: string): AskedRename | undefined {
  if (KEEPS_OLD.test(description)) return undefined;
  let match: [string, string, string] | undefined;
  const quoted = RENAME.exec(description);
  if (quoted !== null) match = [quoted[1] ?? '', quoted[2] ?? '', quoted[3] ?? ''];
  else {
    const bare = RENAME_BARE.exec(description);
    const [, noun, oldName = '', oldCall, newName = '', newCall, tail = ''] = bare ?? [];
    // Without backticks, only names that are plainly code: a code noun, a call, or a code shape.
    const code = (name: string, call: string | undefined) =>
      noun !== undefined || call !== undefined || CODE_SHAPED.test(name);
    if (bare !== null && code(oldName, oldCall) && code(newName, newCall)) match = [oldName, newName, tail];
  }
  if (match === undefined) return undefined;
  const [from, to, rest] = match;
  if (from.length < 3 || from === to) return undefined;
  const everywhere =
    /\b(?:everywhere|across|throughout|all\s+(?:files|callers|uses|usages|references)|codebase|project|repo(?:sitory)?)\b/i.test(
      rest,
    );
  return { from, to, files: everywhere ? [] : findPaths(rest).map((path) => path.file) };
}

/** The 1-based line where `name` is still code (not a member `.name`, not in a comment or string). */
export async function oldNameLine(file: string, text: string, name: string): Promise<number | undefined> {
  const code = await codeWithoutStrings(file, text);
  const pattern = new RegExp(`(?<![\\w$.])${escapeRegExp(name)}(?![\\w$])`);
  const index = code.split('\n').findIndex((line) => pattern.test(line));
  return index < 0 ? undefined : index + 1;
}

/** Whether a path is source code the rename should reach. */
export function renameReaches(file: string): boolean {
  return CODE_FILE.test(file) && !NOT_SOURCE.test(file);
}
