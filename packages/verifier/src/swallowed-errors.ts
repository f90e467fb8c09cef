import { codeOnly } from './asked-literals';

/**
 * Asked to handle errors ("Handle errors in fetchUser", "Add error handling to src/api.js"), the
 * step wrapped the code in a `try` whose handler does nothing — `catch {}`, `except: pass` — so
 * every failure vanishes. Handlers that do something (return a fallback, log, rethrow, wrap) are
 * handling.
 */

const HANDLING_ASKED =
  /\b(?:handle|catch|report|surface|recover\s+from)\s+(?:the\s+|any\s+|all\s+|its\s+|their\s+)?(?:\w+\s+)?(?:errors?|exceptions?|failures?|rejections?)\b|\berror[-\s]handling\b/i;
/** Silencing asked for ("ignore errors", "swallow", "best effort"): an empty handler is the work. */
const SILENCE_ASKED =
  /\b(?:ignore|swallow|suppress|silence|mute)\w*\b|\bbest[-\s]effort\b|\bfail\s+silently\b/i;

/** Whether the description asks for error handling (and not for silencing errors). */
export function handlingAsked(description: string): boolean {
  return HANDLING_ASKED.test(description) && !SILENCE_ASKED.test(description);
}

const EMPTY_JS =
  /\bcatch\s*(?:\([^)]*\)\s*)?\{\s*\}|\.catch\(\s*(?:\(\s*\w*\s*\)|\w+)\s*=>\s*(?:\{\s*\}|undefined|null)\s*\)/g;
const ANY_JS = /\bcatch\s*(?:\([^)]*\)\s*)?\{|\.catch\(/g;
const EMPTY_PY = /^\s*except\b[^:\n]*:\s*(?:(?:pass|\.\.\.)\s*$|\n\s*(?:pass|\.\.\.)\s*$)/gm;
const ANY_PY = /^\s*except\b[^:\n]*:/gm;

/** Handlers in a file's code: all of them and the empty ones. */
async function handlers(file: string, text: string): Promise<{ all: number; empty: number } | undefined> {
  const code = await codeOnly(file, text);
  if (/\.py$/.test(file))
    return { all: code.match(ANY_PY)?.length ?? 0, empty: code.match(EMPTY_PY)?.length ?? 0 };
  if (/\.[cm]?[jt]sx?$/.test(file))
    return { all: code.match(ANY_JS)?.length ?? 0, empty: code.match(EMPTY_JS)?.length ?? 0 };
  return undefined;
}

/**
 * The files where the step added only handlers that do nothing (each with the count), given the
 * texts before (undefined: created) and after.
 */
export async function swallowedErrors(
  files: readonly { file: string; before: string | undefined; after: string }[],
): Promise<string[]> {
  let added = 0;
  let addedEmpty = 0;
  const where: string[] = [];
  for (const { file, before, after } of files) {
    const now = await handlers(file, after);
    if (now === undefined) continue;
    const then =
      before === undefined ? { all: 0, empty: 0 } : ((await handlers(file, before)) ?? { all: 0, empty: 0 });
    const more = now.all - then.all;
    const moreEmpty = now.empty - then.empty;
    if (more > 0) added += more;
    if (moreEmpty > 0) {
      addedEmpty += moreEmpty;
      where.push(file);
    }
  }
  return added > 0 && addedEmpty >= added ? where : [];
}
