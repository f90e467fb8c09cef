import { codeOnly } from './asked-literals';
import { escapeRegExp } from './escape-reg-exp';
import { findPaths } from './find-paths';

/**
 * A value asked to change "from A to B" ("Change the default page size from 20 to 50", "Raise the
 * timeout from 5000 to 10000 ms"), where the step wrote B into the docs, a comment or a new
 * constant nothing uses, and left every A of the code in place: the program still runs on A.
 */

/** One "from A to B" of a description: the numbers and the files named in its sentence. */
export interface AskedValueChange {
  from: string;
  to: string;
  files: string[];
}

const NUMBER = String.raw`\d+(?:\.\d+)?`;
const UNIT = String.raw`(?:\s*(?:ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?|%|kb|mb|gb|px))?`;
const FROM_TO = new RegExp(
  String.raw`\bfrom\s+[\`'"]?(${NUMBER})[\`'"]?${UNIT}\s+to\s+[\`'"]?(${NUMBER})[\`'"]?(?![\w.])`,
  'gi',
);

/** Documents: a value written there changes nothing the program runs. */
const DOC_FILE = /\.(?:md|mdx|markdown|txt|rst|adoc|html?)$|(?:^|\/)(?:README|CHANGELOG|CHANGES|NEWS)[^/]*$/i;

/**
 * The "from A to B" value changes of a description.
 *
 * @example
 * askedValueChanges('Change the default page size in src/list.js from 20 to 50');
 * // [{ from: '20', to: '50', files: ['src/list.js'] }]
 */
export function askedValueChanges(description: string): AskedValueChange[] {
  const asked: AskedValueChange[] = [];
  for (const sentence of description.split(/[\n;]|\.(?=\s|$)/)) {
    const files = findPaths(sentence).map((found) => found.file);
    for (const match of sentence.matchAll(FROM_TO)) {
      const [, from = '', to = ''] = match;
      if (from !== to) asked.push({ from, to, files });
    }
  }
  return asked;
}

/** How many times `value` stands as a number of its own in `code` (not part of 120 or 1.20). */
export function valueCount(code: string, value: string): number {
  return code.match(new RegExp(`(?<![\\w.])${escapeRegExp(value)}(?![\\w]|\\.\\d)`, 'g'))?.length ?? 0;
}

/**
 * The files where an asked "from A to B" did not happen: the code (comments left out) of every
 * target holds A as many times as before. Targets are the named files the step changed, or else
 * every non-document file it changed. Undefined when the change happened somewhere, or no target
 * held A before.
 *
 * @example
 * await staleValue({ from: '20', to: '50', files: [] }, [{ file: 'src/list.js', before: 'f(n = 20)', after: '// 50\nf(n = 20)' }]);
 * // ['src/list.js']
 */
export async function staleValue(
  change: AskedValueChange,
  changed: readonly { file: string; before: string | undefined; after: string }[],
): Promise<string[] | undefined> {
  const named = changed.filter((entry) => change.files.includes(entry.file));
  const targets = named.length > 0 ? named : changed.filter((entry) => !DOC_FILE.test(entry.file));
  const stale: string[] = [];
  for (const { file, before, after } of targets) {
    if (before === undefined) continue;
    const then = valueCount(await codeOnly(file, before), change.from);
    if (then === 0) continue;
    const now = valueCount(await codeOnly(file, after), change.from);
    if (now < then) return undefined;
    stale.push(file);
  }
  return stale.length > 0 ? stale : undefined;
}
