import { codeOnly } from './asked-literals';
import { escapeRegExp } from './escape-reg-exp';
import { findPaths } from './find-paths';

/**
 * Code a description asks to take away by name — "Remove the `legacyAuth` function from
 * src/auth.js", "Delete `debugLog`" — must be gone from the code afterwards: not left in place,
 * not commented out, not renamed (`_legacyAuth`, `legacyAuthOld`). A mention in a comment
 * ("legacyAuth was removed") is fine; so is an older name that only contains it.
 */

const REMOVING = /\b(?:remove|delete|drop|strip|eliminate|get\s+rid\s+of)\b/i;
const QUOTED = /`([^`\n]{1,80})`/g;
/** A name, or a member (`console.log`). */
const IDENTIFIER = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?$/;
/**
 * A name written without backticks that is still plainly code: called (`debugLog()`), a member
 * (`console.log`), or a camelCase / snake_case / dotted name before a code noun ("the legacyAuth
 * function", "the console.log call").
 */
const BARE =
  /(?<![\w$./-])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)(?:\(\)|(?=\s+(?:calls?|statements?|lines?|functions?|methods?|helpers?|imports?|variables?|constants?|exports?|class(?:es)?|invocations?)\b))/g;
/** Code-shaped: a dot, an underscore or a lower-to-upper case change (not an English word). */
const CODE_SHAPED = /\.|_|[a-z][A-Z]/;
/** Words that ask for every occurrence, not the one in a file the step happened to change. */
const EVERY = /\b(?:all|every|each|any|everywhere|across|throughout|codebase|whole|entire)\b/i;

/** One name the step was asked to remove, with the files named for it (none: any it changed). */
export interface AskedRemoval {
  name: string;
  files: string[];
  /** Every occurrence was asked for ("Remove all `console.log` calls from src/"). */
  everywhere?: true;
  /** The folder the removal is asked in ("from src/"), when named. */
  folder?: string;
  /** Only its uses were asked to go ("every use of `oldApi`", "calls to `x`"): its declaration may stay. */
  usesOnly?: true;
}

/** The words before a name ask to remove its uses, not its declaration ("calls to the `x`"). */
function asksForUsesOnly(before: string): boolean {
  return /\b(?:uses?|usages?|calls?|references?|invocations?|imports?)\s+(?:of|to)\s+(?:the\s+)?(?:\w+\s+)?$/i.test(
    before,
  );
}

/** The folder a removal is limited to ("from `src/legacy/`"), with its trailing slash. */
function folderNamedIn(text: string): string | undefined {
  return /\b(?:from|in|inside|within|under|across|throughout)\s+(?:the\s+)?`?((?:[\w@.-]+\/)+)(?=[\s,;:)`'"]|$)/i.exec(
    text,
  )?.[1];
}

/** The backticked identifiers a description asks to remove (not paths, not swaps). */
export function askedRemovals(description: string): AskedRemoval[] {
  const found = new Map<string, AskedRemoval>();
  for (const clause of description.split(/[.;\n](?:\s|$)|\bthen\b/i)) {
    const blanked = clause.replace(QUOTED, (quoted) => ' '.repeat(quoted.length));
    const verb = REMOVING.exec(blanked);
    if (verb === null) continue;
    // "Replace `x` with `y`", "rename", "instead of": which name stays is another check's.
    if (/\b(?:replace|rename|instead\s+of|move|keep|except|unless|only)\b/i.test(blanked)) continue;
    const rest = clause.slice(verb.index + verb[0].length);
    const files = findPaths(rest).map((path) => path.file);
    for (const match of rest.matchAll(QUOTED)) {
      const usesOnly = asksForUsesOnly(rest.slice(0, match.index ?? 0));
      const name = (match[1] ?? '').replace(/\(\)$/, '').trim();
      if (!IDENTIFIER.test(name) || name.length < 3) continue;
      if (files.some((file) => file === name || file.endsWith(`/${name}`))) continue;
      const folder = folderNamedIn(rest);
      found.set(name, {
        name,
        files,
        ...(EVERY.test(clause) ? { everywhere: true as const } : {}),
        ...(folder !== undefined ? { folder: folder.replace(/\/+$/, '') } : {}),
        ...(usesOnly ? { usesOnly: true as const } : {}),
      });
    }
    // Names without backticks, when they can only be code.
    const bareRest = blanked.slice(verb.index + verb[0].length);
    for (const match of bareRest.matchAll(BARE)) {
      const name = match[1] ?? '';
      if (found.has(name) || !CODE_SHAPED.test(name) || name.length < 3) continue;
      // A file name ("the utils.js import") is a path, not code, unless followed by a call.
      if (!match[0].endsWith('()') && /\.(?:[cm]?[jt]sx?|py|json|md|ya?ml|css|html?)$/i.test(name)) continue;
      const usesOnly = asksForUsesOnly(bareRest.slice(0, match.index ?? 0));
      const folder = folderNamedIn(rest);
      found.set(name, {
        name,
        files: files.filter((file) => file !== name),
        ...(EVERY.test(clause) ? { everywhere: true as const } : {}),
        ...(folder !== undefined ? { folder: folder.replace(/\/+$/, '') } : {}),
        ...(usesOnly ? { usesOnly: true as const } : {}),
      });
    }
  }
  return [...found.values()];
}

const word = (name: string) => new RegExp(`(?<![\\w$])${escapeRegExp(name)}(?![\\w$])`);
/** A declaration or use of `name` as code (for text inside comments). */
const asCode = (name: string) =>
  new RegExp(
    `\\b(?:function|def|class|const|let|var|fn|func|async|export)\\s+\\*?\\s*${escapeRegExp(name)}(?![\\w$])|(?<![\\w$])${escapeRegExp(name)}\\s*(?:=[^=]|\\()`,
  );
const count = (text: string, pattern: RegExp) => text.split('\n').filter((line) => pattern.test(line)).length;

/**
 * What is wrong with a removal in one file, or undefined when the name is gone (or the file did
 * not have it in its code before).
 */
export async function removalProblem(
  file: string,
  name: string,
  before: string,
  after: string,
  options: { usesOnly?: boolean } = {},
): Promise<string | undefined> {
  // Asked to remove its uses only: the lines declaring it may stay.
  const declaration = new RegExp(
    `^\\s*(?:export\\s+)?(?:default\\s+)?(?:async\\s+)?(?:function\\*?|def|class|const|let|var|fn|func)\\s+${escapeRegExp(name)}(?![\\w$])`,
  );
  const uses = (code: string) =>
    options.usesOnly ? code.replace(/^.*$/gm, (line) => (declaration.test(line) ? '' : line)) : code;
  const [codeBefore, codeAfter] = await Promise.all([
    codeOnly(file, before).then(uses),
    codeOnly(file, after).then(uses),
  ]);
  if (!word(name).test(codeBefore)) return undefined;
  if (word(name).test(codeAfter)) return `${file} still has \`${name}\` in its code`;
  // Comments: the text that is not code.
  const comments = (text: string, code: string) =>
    text
      .split('\n')
      .filter((line, index) => line.trim() !== (code.split('\n')[index] ?? '').trim())
      .join('\n');
  const pattern = asCode(name);
  if (count(comments(after, codeAfter), pattern) > count(comments(before, codeBefore), pattern))
    return `${file} has \`${name}\` commented out, not removed`;
  const identifiers = (code: string) => new Set(code.match(/[A-Za-z_$][\w$]*/g) ?? []);
  const old = identifiers(codeBefore);
  const lower = name.toLowerCase();
  const renamed = [...identifiers(codeAfter)].find(
    (id) => !old.has(id) && id !== name && id.toLowerCase().includes(lower),
  );
  if (renamed !== undefined) return `${file} renamed \`${name}\` to \`${renamed}\` instead of removing it`;
  return undefined;
}
