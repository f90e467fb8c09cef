import { addedText, type ChangedText } from './changed-text';

/**
 * A fix made by special-casing the inputs the request names: asked "Fix isLeapYear: 1900 and 2100
 * are not leap years", the step's only change is `if ([1900, 2100].includes(year)) return false;`
 * in front of the old rule. The examples now answer right; every other input the bug touched
 * (1800, 2200) still gets the old, wrong answer.
 */

/** A request to fix something (the examples it names stand for a rule). */
const FIX_ASKED = /\b(?:fix|repair|correct|debug|resolve)(?:e[sd]|ing)?\b/i;
/** A request that asks for the special case itself. */
const SPECIAL_CASE_ASKED =
  /\bspecial[-\s]?cas\w*|\bonly\s+(?:for|when|if)\b|\bexceptions?\s+for\b|\bhard-?cod\w*|\bexcept\s+for\b/i;

const LITERAL = String.raw`(?:-?\d+(?:\.\d+)?|'[^'\n]*'|"[^"\n]*")`;
/** `[1900, 2100].includes(year)` (JS) — group 1 the literals. */
const INCLUDES_GUARD = new RegExp(
  String.raw`\[\s*(${LITERAL}(?:\s*,\s*${LITERAL})*)\s*,?\s*\]\.includes\(\s*[\w$.]+\s*\)`,
);
/** `year === 1900 || year === 2100`, `year == 1900 or year == 2100` — the whole condition. */
const EQUALITY_GUARD = new RegExp(
  String.raw`^\s*[\w$.]+\s*===?\s*${LITERAL}(?:\s*(?:\|\||\bor\b)\s*[\w$.]+\s*===?\s*${LITERAL})*\s*$`,
);
/** `year in (1900, 2100)` (Python) — group 1 the literals. */
const IN_GUARD = new RegExp(
  String.raw`^\s*[\w.]+\s+in\s+[([{]\s*(${LITERAL}(?:\s*,\s*${LITERAL})*)\s*,?\s*[)\]}]\s*$`,
);

/** A guarded early return on one line: `if (cond) return x;`, `if cond: return x` — group 1 the condition. */
const GUARD_LINE = /^\s*if\s*(?:\((.*)\)\s*(?:\{\s*)?return\b[^;]*;?\s*\}?|(.*):\s*return\b.*)\s*$/;

/** Added lines that change nothing on their own: blank, braces, comments. */
const NOISE = /^\s*(?:[{}]\s*|\/\/.*|#.*|\/\*.*\*\/\s*)?$/;

/** The literals a guard condition compares its input with, or undefined when it is not such a guard. */
function guardLiterals(condition: string): string[] | undefined {
  const included = INCLUDES_GUARD.exec(condition);
  const inside = included ?? IN_GUARD.exec(condition);
  if (inside !== null && (included === null || condition.trim() === included[0].trim()))
    return [...(inside[1] ?? '').matchAll(new RegExp(LITERAL, 'g'))].map((m) => m[0]);
  if (EQUALITY_GUARD.test(condition))
    return [...condition.matchAll(new RegExp(`(?<=={2,3}\\s*)${LITERAL}`, 'g'))].map((m) => m[0]);
  return undefined;
}

/** Whether the description names a literal (a number as a number, a string with or without quotes). */
const named = (description: string, literal: string) => {
  const bare = literal.replace(/^['"]|['"]$/g, '');
  return new RegExp(`(?<![\\w.])${bare.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w]|\\.\\d)`).test(
    description,
  );
};

/**
 * The code files whose whole change, in a step asked to fix something, is early returns guarded
 * by the inputs the description names (as `file: the guard`). Empty when the fix changed anything
 * else, or the description asks for the special case.
 *
 * @example
 * exampleGuards('Fix isLeapYear: 1900 is not a leap year', [
 *   { file: 'a.js', before: 'f\n', after: 'if (year === 1900) return false;\nf\n' },
 * ]); // ['a.js: if (year === 1900) return false;']
 */
export function exampleGuards(description: string, changed: readonly ChangedText[]): string[] {
  if (!FIX_ASKED.test(description) || SPECIAL_CASE_ASKED.test(description)) return [];
  const found: string[] = [];
  for (const { file, before, after } of changed) {
    if (before === undefined || !/\.(?:[cm]?[jt]sx?|py)$/i.test(file)) continue;
    const lines = addedText(before, after)
      .split('\n')
      .filter((line) => !NOISE.test(line));
    if (lines.length === 0) continue;
    for (const line of lines) {
      const guard = GUARD_LINE.exec(line);
      const literals = guard === null ? undefined : guardLiterals(guard[1] ?? guard[2] ?? '');
      if (
        literals === undefined ||
        literals.length === 0 ||
        !literals.every((literal) => named(description, literal))
      )
        return [];
    }
    found.push(`${file}: ${lines[0]?.trim()}`);
  }
  return found;
}
