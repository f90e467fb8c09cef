import { codeOnly, codeWithoutStrings } from './asked-literals';

/**
 * Asked to retry ("Retry fetchUser up to 3 times on failure", "Add retries to the upload"), the
 * step added error handling that runs the operation once: a `catch` that rethrows, wraps or logs,
 * but no loop, no retry helper (`p-retry`, `tenacity`, `@retry`, `backoff`) and no new call back
 * into the function. The request was a retry; one attempt is not one.
 */

const RETRY_ASKED = /\bretr(?:y|ies|ied|ying)\b|\bre-?attempt\w*\b/i;
const NO_RETRY =
  /\b(?:no|without|remove|drop|disable|stop|never)\s+(?:\w+\s+){0,2}retr(?:y|ies|ying)\b|\bdo\s+not\s+retry\b/i;

/** Whether the description asks for a retry (and not to take one away). */
export function retryAsked(description: string): boolean {
  return RETRY_ASKED.test(description) && !NO_RETRY.test(description);
}

const LOOPS_JS = /\b(?:for|while)\s*\(|\bdo\s*\{|\.(?:forEach|reduce)\(/g;
const LOOPS_PY = /^\s*(?:async\s+)?(?:for|while)\b/gm;
const RETRY_HELPER =
  /(?:from\s+['"](?:p-retry|async-retry|retry|exponential-backoff|ts-retry\S*|@lifeomic\/attempt)['"]|require\(\s*['"](?:p-retry|async-retry|retry|exponential-backoff)['"]\s*\)|^\s*(?:from|import)\s+(?:tenacity|backoff|retrying|retry|urllib3\.util\.retry)\b|@(?:retry|backoff\.\w+|tenacity\.retry)\b|\bRetry\s*\(|\bretry\w*\s*\(|\b(?:max_?)?retr(?:y|ies)\w*['"]?\s*[:=]\s*\d)/im;

/**
 * Handlers that only rethrow what they caught (`catch (error) { throw error; }`, `except …:
 * raise`): a loop around one ends at the first failure, it retries nothing.
 */
const RETHROW_ONLY_JS = /\bcatch\s*\(\s*(\w+)\s*\)\s*\{\s*throw\s+\1\s*;?\s*\}/g;
const RETHROW_ONLY_PY = /^([ \t]*)except\b[^:\n]*:[ \t]*\n\1[ \t]+raise[ \t]*$(?!\n\1[ \t]+\S)/gm;

/** Retry machinery in a file: loops (less the ones whose handler only rethrows) and retry helpers. */
async function machinery(
  file: string,
  text: string,
): Promise<{ loops: number; helpers: number } | undefined> {
  const python = /\.py$/.test(file);
  if (!python && !/\.[cm]?[jt]sx?$/.test(file)) return undefined;
  const bare = await codeWithoutStrings(file, text);
  const code = await codeOnly(file, text);
  const rethrows = code.match(python ? RETHROW_ONLY_PY : RETHROW_ONLY_JS)?.length ?? 0;
  return {
    loops: Math.max(0, (bare.match(python ? LOOPS_PY : LOOPS_JS)?.length ?? 0) - rethrows),
    helpers: code.split('\n').filter((line) => RETRY_HELPER.test(line)).length,
  };
}

/**
 * Whether the step's code changes add any retry machinery (a loop, a retry helper or decorator),
 * given the texts before (undefined: created) and after; undefined when no file it changed is
 * code the check reads.
 */
export async function addsRetry(
  files: readonly { file: string; before: string | undefined; after: string }[],
): Promise<boolean | undefined> {
  let read = false;
  for (const { file, before, after } of files) {
    const now = await machinery(file, after);
    if (now === undefined) continue;
    read = true;
    const then = before === undefined ? { loops: 0, helpers: 0 } : ((await machinery(file, before)) ?? now);
    if (now.loops > then.loops || now.helpers > then.helpers) return true;
  }
  return read ? false : undefined;
}
