import { codeOnly } from './asked-literals';

/**
 * Asked to handle one error ("return {} when the file does not exist (ENOENT) and rethrow other
 * errors", "only when the file is missing"), the step added a handler that catches every error —
 * `catch { return {} }`, `except Exception:` — so a permission error or a syntax error in the file
 * is answered as if the file were missing. A handler that tests the error (`error.code`,
 * `instanceof`, `except FileNotFoundError`) is the work.
 */

/** A request for one kind of error, not for every error. */
const ONE_ERROR_ASKED =
  /\bE(?:NOENT|ACCES|PERM|EXIST|NOTDIR|ISDIR|CONNREFUSED|CONNRESET|TIMEDOUT|ADDRINUSE|PIPE|NOTFOUND|AGAIN|MFILE|NOSPC)\b|\b\w+(?:Error|Exception)\b|\b(?:rethrow|re-throw|re-raise|propagate)\s+(?:any\s+|all\s+)?other\b|\bonly\s+(?:when|if)\b[^.;\n]{0,40}\b(?:missing|not\s+exist|doesn't\s+exist|not\s+found|absent)\b/;
/** Where a request names error handling of some kind at all. */
const HANDLING_WORDS =
  /\b(?:errors?|exceptions?|catch|except|handle|missing|does\s+not\s+exist|doesn't\s+exist|not\s+found|absent|fails?|rethrow|re-raise)\b/i;

/** Whether the description asks to handle one kind of error (and so not every error). */
export function oneErrorAsked(description: string): boolean {
  return ONE_ERROR_ASKED.test(description) && HANDLING_WORDS.test(description);
}

/** A JS/TS handler body that tests what it caught. */
const TESTS_ERROR = /\.(?:code|name|errno|status|message)\b|\binstanceof\b|\bthrow\b/;

/** The number of handlers in a file that catch every error without looking at it. */
async function broadHandlers(file: string, text: string): Promise<number | undefined> {
  const code = await codeOnly(file, text);
  if (/\.py$/i.test(file)) {
    // A bare or `Exception` handler whose body (the lines indented deeper) neither raises nor
    // looks at what it caught.
    let count = 0;
    const lines = code.split('\n');
    lines.forEach((line, index) => {
      const handler =
        /^(\s*)except\s*(?:\(?\s*(?:Exception|BaseException)\s*\)?)?\s*(?:as\s+(\w+)\s*)?:(.*)$/.exec(line);
      if (handler === null) return;
      const indent = handler[1]?.length ?? 0;
      const body = [handler[3] ?? ''];
      for (const next of lines.slice(index + 1)) {
        if (next.trim() !== '' && (/^\s*/.exec(next)?.[0].length ?? 0) <= indent) break;
        body.push(next);
      }
      const text = body.join('\n');
      const looks =
        handler[2] !== undefined &&
        new RegExp(`\\b${handler[2]}\\.(?:errno|args|filename)\\b|isinstance\\(\\s*${handler[2]}\\b`).test(
          text,
        );
      if (!/\braise\b/.test(text) && !looks) count++;
    });
    return count;
  }
  if (!/\.[cm]?[jt]sx?$/i.test(file)) return undefined;
  let count = 0;
  for (const match of code.matchAll(
    /\bcatch\s*(?:\(\s*(\w*)[^)]*\)\s*)?\{|\.catch\(\s*(?:\(\s*(\w*)[^)]*\)|(\w+))\s*=>\s*\{?/g,
  )) {
    const start = (match.index ?? 0) + match[0].length;
    let depth = 1;
    let end = start;
    while (end < code.length && depth > 0) {
      const char = code[end];
      if (char === '{' || char === '(') depth++;
      else if (char === '}' || char === ')') depth--;
      end++;
    }
    if (!TESTS_ERROR.test(code.slice(start, end))) count++;
  }
  return count;
}

/**
 * The files where the step added a handler that catches every error, given each changed file's
 * text before (undefined: created) and after.
 *
 * @example
 * await addedBroadHandlers([{ file: 'a.py', before: 'f()\n', after: 'try:\n    f()\nexcept Exception:\n    pass\n' }]);
 * // ['a.py']
 */
export async function addedBroadHandlers(
  files: readonly { file: string; before: string | undefined; after: string }[],
): Promise<string[]> {
  const found: string[] = [];
  for (const { file, before, after } of files) {
    const now = await broadHandlers(file, after);
    if (now === undefined || now === 0) continue;
    const then = before === undefined ? 0 : ((await broadHandlers(file, before)) ?? 0);
    if (now > then) found.push(file);
  }
  return found;
}
