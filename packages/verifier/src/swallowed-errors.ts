import { codeOnly } from './asked-literals';

/**
 * Asked to handle errors ("Handle errors in fetchUser", "Add error handling to src/api.js",
 * "Propagate errors to the caller", "Retry on failure"), the step wrapped the code in a `try`
 * whose handler does nothing — `catch {}`, `except: pass` — or only logs and carries on
 * (`catch (e) { console.log(e) }`, `except Exception as e: print(e)`), so every failure still
 * vanishes from the caller's view. Handlers that do something (return a fallback, rethrow, wrap,
 * retry, set an exit code) are handling; a log-only handler is the work when logging was asked.
 */

const HANDLING_ASKED =
  /\b(?:handle|catch|report|surface|recover\s+from|propagate|rethrow|re-throw|bubble\s+up|retry)\s+(?:the\s+|any\s+|all\s+|its\s+|their\s+|on\s+)?(?:\w+\s+)?(?:errors?|exceptions?|failures?|rejections?)\b|\berror[-\s]handling\b|\bretr(?:y|ies)\b[^;\n]{0,60}?\b(?:on\s+)?(?:errors?|failures?|exceptions?)\b|\b(?:errors?|exceptions?|failures?)\b[^;\n]{0,60}?\b(?:propagate|bubble\s+up|rethrow|re-throw|retried)\b/i;
/** Silencing asked for ("ignore errors", "swallow", "best effort"): an empty handler is the work. */
const SILENCE_ASKED =
  /\b(?:ignore|swallow|suppress|silence|mute)\w*\b|\bbest[-\s]effort\b|\bfail\s+silently\b/i;
/** Logging asked for ("log errors", "print the exception"): a handler that only logs is the work. */
const LOGGING_ASKED = /\b(?:log(?:s|ged|ging)?|print(?:s|ed|ing)?|warn(?:s|ed|ing)?|trace)\b/i;

/** Whether the description asks for error handling (and not for silencing errors). */
export function handlingAsked(description: string): boolean {
  return HANDLING_ASKED.test(description) && !SILENCE_ASKED.test(description);
}

/** Whether the description asks to log errors (so a handler that only logs is what was asked). */
export function loggingAsked(description: string): boolean {
  return LOGGING_ASKED.test(description);
}

const EMPTY_JS =
  /\bcatch\s*(?:\([^)]*\)\s*)?\{\s*\}|\.catch\(\s*(?:\(\s*\w*\s*(?::[^)]*)?\)|\w+)\s*=>\s*(?:\{\s*\}|undefined|null)\s*\)/g;
const ANY_JS = /\bcatch\s*(?:\([^)]*\)\s*)?\{|\.catch\(/g;
const EMPTY_PY = /^\s*except\b[^:\n]*:\s*(?:(?:pass|\.\.\.)\s*$|\n\s*(?:pass|\.\.\.)\s*$)/gm;
const ANY_PY = /^\s*except\b[^:\n]*:/gm;

/** A call that only reports: `console.error(…)`, `logger.warn(…)`, `print(…)`, `traceback.print_exc()`. */
const LOG_CALL_JS =
  /^(?:console|logger|log|this\.logger|this\.log)\.\w+\s*\(|^(?:log|logError|warn|debug)\s*\(/;
const LOG_CALL_PY =
  /^(?:print|(?:logging|logger|log|LOGGER|LOG|self\.logger|self\.log|current_app\.logger)\.\w+|traceback\.print_exc|sys\.stderr\.write|warnings\.warn)\s*\(/;

/** The index just after the bracket closing the one at `open` (strings skipped), or -1. */
function closing(code: string, open: number): number {
  const pairs: Record<string, string> = { '{': '}', '(': ')', '[': ']' };
  const stack: string[] = [];
  for (let at = open; at < code.length; at++) {
    const char = code[at] as string;
    if (char === '"' || char === "'" || char === '`') {
      const end = code.indexOf(char, at + 1);
      if (end < 0) return -1;
      at = end;
      continue;
    }
    if (pairs[char] !== undefined) stack.push(pairs[char] as string);
    else if (char === stack.at(-1)) {
      stack.pop();
      if (stack.length === 0) return at + 1;
    }
  }
  return -1;
}

/** Whether `body` is one or more log calls and nothing else. */
function onlyLogCalls(body: string, call: RegExp): boolean {
  let rest = body.trim();
  if (rest === '') return false;
  while (rest !== '') {
    const head = call.exec(rest);
    if (head === null) return false;
    const end = closing(rest, head[0].length - 1);
    if (end < 0) return false;
    rest = rest
      .slice(end)
      .replace(/^\s*;?\s*/, '')
      .trim();
  }
  return true;
}

/** Whether the JS code at `at` is inside a loop's block (a log-only handler there retries). */
function inJsLoop(code: string, at: number): boolean {
  for (const loop of code.slice(0, at).matchAll(/\b(?:for|while)\s*\(|\bdo\s*\{/g)) {
    const start = (loop.index ?? 0) + loop[0].length - 1;
    const headEnd = code[start] === '{' ? start : closing(code, start);
    if (headEnd < 0) continue;
    const open = code.indexOf('{', headEnd);
    if (open < 0 || open > at) continue;
    const end = closing(code, open);
    if (end > at) return true;
  }
  return false;
}

/** JS handlers whose body only logs: `catch (e) { console.log(e) }`, `.catch((e) => console.error(e))`. */
function logOnlyJs(code: string): number {
  let count = 0;
  for (const match of code.matchAll(/\bcatch\s*(?:\([^)]*\)\s*)?\{/g)) {
    const open = (match.index ?? 0) + match[0].length - 1;
    const end = closing(code, open);
    if (end > 0 && onlyLogCalls(code.slice(open + 1, end - 1), LOG_CALL_JS) && !inJsLoop(code, open)) count++;
  }
  for (const match of code.matchAll(/\.catch\(\s*(?:\(\s*\w*\s*(?::[^)]*)?\)|\w+)\s*=>\s*/g)) {
    const start = (match.index ?? 0) + match[0].length;
    const outer = closing(code, (match.index ?? 0) + '.catch'.length);
    if (outer < 0) continue;
    let body = code.slice(start, outer - 1).trim();
    if (body.startsWith('{') && body.endsWith('}')) body = body.slice(1, -1);
    if (onlyLogCalls(body, LOG_CALL_JS)) count++;
  }
  return count;
}

/** Whether line `index` (indented `indent`) is inside a `for`/`while` body of its function. */
function inPyLoop(lines: readonly string[], index: number, indent: number): boolean {
  let level = indent;
  for (let at = index - 1; at >= 0; at--) {
    const line = lines[at] as string;
    if (line.trim() === '') continue;
    const depth = /^\s*/.exec(line)?.[0].length ?? 0;
    if (depth >= level) continue;
    level = depth;
    if (/^\s*(?:async\s+)?(?:for|while)\b/.test(line)) return true;
    if (/^\s*(?:async\s+)?(?:def|class)\b/.test(line) || depth === 0) return false;
  }
  return false;
}

/** Python `except` blocks whose body only logs (`print(e)`, `logging.exception(…)`). */
function logOnlyPy(code: string): number {
  const lines = code.split('\n');
  let count = 0;
  lines.forEach((line, index) => {
    const head = /^(\s*)except\b[^:\n]*:(.*)$/.exec(line);
    if (head === null) return;
    const indent = head[1]?.length ?? 0;
    const body: string[] = [];
    if ((head[2] ?? '').trim() !== '') body.push((head[2] ?? '').trim());
    else
      for (const next of lines.slice(index + 1)) {
        if (next.trim() === '') continue;
        if ((/^\s*/.exec(next)?.[0].length ?? 0) <= indent) break;
        body.push(next.trim());
      }
    if (onlyLogCalls(body.join('\n'), LOG_CALL_PY) && !inPyLoop(lines, index, indent)) count++;
  });
  return count;
}

/** Handlers in a file's code: all of them, the empty ones and the ones that only log. */
async function handlers(
  file: string,
  text: string,
): Promise<{ all: number; empty: number; logOnly: number } | undefined> {
  const code = await codeOnly(file, text);
  if (/\.py$/.test(file))
    return {
      all: code.match(ANY_PY)?.length ?? 0,
      empty: code.match(EMPTY_PY)?.length ?? 0,
      logOnly: logOnlyPy(code),
    };
  if (/\.[cm]?[jt]sx?$/.test(file))
    return {
      all: code.match(ANY_JS)?.length ?? 0,
      empty: code.match(EMPTY_JS)?.length ?? 0,
      logOnly: logOnlyJs(code),
    };
  return undefined;
}

/** What {@link swallowedErrors} found: the files and whether any handler there logs. */
export interface SwallowedErrors {
  /** Files where the step added handlers that all swallow errors. */
  files: string[];
  /** Some of those handlers log before carrying on (the rest are empty). */
  logged: boolean;
}

/**
 * The files where the step added only handlers that swallow errors — empty ones and, unless
 * `logIsHandling`, ones that only log — given the texts before (undefined: created) and after.
 */
export async function swallowedErrors(
  files: readonly { file: string; before: string | undefined; after: string }[],
  options: { logIsHandling?: boolean } = {},
): Promise<SwallowedErrors> {
  let added = 0;
  let addedSwallowing = 0;
  let logged = false;
  const where: string[] = [];
  for (const { file, before, after } of files) {
    const now = await handlers(file, after);
    if (now === undefined) continue;
    const then =
      before === undefined
        ? { all: 0, empty: 0, logOnly: 0 }
        : ((await handlers(file, before)) ?? { all: 0, empty: 0, logOnly: 0 });
    const more = now.all - then.all;
    const moreEmpty = Math.max(0, now.empty - then.empty);
    const moreLogOnly = options.logIsHandling ? 0 : Math.max(0, now.logOnly - then.logOnly);
    if (more > 0) added += more;
    if (moreEmpty + moreLogOnly > 0) {
      addedSwallowing += moreEmpty + moreLogOnly;
      if (moreLogOnly > 0) logged = true;
      where.push(file);
    }
  }
  return { files: added > 0 && addedSwallowing >= added ? where : [], logged };
}
