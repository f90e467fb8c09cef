import { codeOnly } from './asked-literals';
import { findPaths } from './find-paths';

/**
 * Code a description asks to take away by name — "Remove the `legacyAuth` function from
 * src/auth.js", "Delete `debugLog`" — must be gone from the code afterwards: not left in place,
 * not commented out, not renamed (`_legacyAuth`, `legacyAuthOld`). A mention in a comment
 * ("legacyAuth was removed") is fine; so is an older name that only contains it.
 */

const REMOVING = /\b(?:remove|delete|drop|strip|eliminate|get\s+rid\s+of)\b/i;
const QUOTED = /`([^`\n]{1,80})`/g;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** One name the step was asked to remove, with the files named for it (none: any it changed). */
export interface AskedRemoval {
  name: string;
  files: string[];
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
      const name = (match[1] ?? '').replace(/\(\)$/, '').trim();
      if (!IDENTIFIER.test(name) || name.length < 3) continue;
      if (files.some((file) => file === name || file.endsWith(`/${name}`))) continue;
      found.set(name, { name, files });
    }
  }
  return [...found.values()];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
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
): Promise<string | undefined> {
  const [codeBefore, codeAfter] = await Promise.all([codeOnly(file, before), codeOnly(file, after)]);
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
