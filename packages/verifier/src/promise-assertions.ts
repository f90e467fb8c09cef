import { namedImports, resolveSpecifier } from './dangling-imports';

/**
 * Assertions on a promise's truthiness: `assert.ok(total([1, 2]))`, `expect(load()).toBeTruthy()`
 * where `total` / `load` is an async function of the project and the call is not awaited. A
 * promise is always truthy and always defined: the assertion passes whatever the code resolves to.
 */

/** The names a JS/TS module declares async (`async function f`, `const f = async (…) =>`). */
export function asyncNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const match of text.matchAll(
    /\basync\s+function\s*\*?\s*([A-Za-z_$][\w$]*)|\b([A-Za-z_$][\w$]*)\s*(?::[^=\n]+)?=\s*async\b/g,
  ))
    names.add(match[1] ?? match[2] ?? '');
  return names;
}

/** The local names of async functions a test file imports from the project's relative modules. */
export function importedAsyncNames(
  file: string,
  text: string,
  read: (file: string) => string | undefined,
  exists: (file: string) => boolean,
): Set<string> {
  const found = new Set<string>();
  for (const { names, specifier } of namedImports(text)) {
    const module = resolveSpecifier(file, specifier, exists);
    const source = module === undefined ? undefined : read(module);
    if (source === undefined) continue;
    const declared = asyncNames(source);
    for (const name of names) if (declared.has(name)) found.add(name);
  }
  return found;
}

/** Assertion lines of a test file (JS/TS). */
const ASSERTION = /\bassert(?:\.\w+)?\s*\(|\bexpect\s*\(/;

/**
 * The assertions of `text` that only test an unawaited async call for truthiness or existence,
 * and whether they are all its assertions. `names`: the async functions it may call.
 */
export function truthyPromiseAssertions(
  text: string,
  names: ReadonlySet<string>,
): { lines: string[]; all: boolean } {
  if (names.size === 0) return { lines: [], all: false };
  const alternatives = [...names].map((name) => name.replace(/\$/g, '\\$')).join('|');
  const call = String.raw`(?<!await\s+)(?<![\w$.])(?:${alternatives})\s*\([^()]*(?:\([^()]*\)[^()]*)*\)`;
  const truthy = new RegExp(
    String.raw`\bassert(?:\.ok)?\s*\(\s*${call}\s*[,)]|\bexpect\s*\(\s*${call}\s*\)\s*\.\s*(?:toBeTruthy|toBeDefined|not\s*\.\s*(?:toBeNull|toBeUndefined|toBeFalsy))\s*\(|\bassert\.(?:notEqual|notStrictEqual)\s*\(\s*${call}\s*,\s*(?:null|undefined)\s*\)`,
  );
  const assertions = text.split('\n').filter((line) => ASSERTION.test(line) && !/^\s*(?:\/\/|\*)/.test(line));
  const lines = assertions.filter((line) => truthy.test(line)).map((line) => line.trim());
  return { lines, all: lines.length > 0 && lines.length === assertions.length };
}
