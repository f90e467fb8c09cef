import path from 'node:path';
import { exportedNames, resolveSpecifier } from './dangling-imports';

/**
 * Callers a changed signature left behind: a step adds a required parameter to a function, drops
 * one, or renames an export, and some callers in other files still call it the old way. Seen by
 * reading the module before and after the step and every other module that uses it: named and
 * namespace ES imports (`import * as m` → `m.fn(…)`), CommonJS `require` (destructured or whole),
 * Python `from pkg.mod import fn`, `from .mod import fn` and `import pkg.mod as m`.
 * {@link danglingImports} covers ES named imports of a name that is gone; this covers the rest.
 */

/** JS/TS and Python modules. */
export const CALLER_MODULE = /\.(?:[cm]?[jt]sx?|py)$/;

/** How many arguments a function takes: at least `min`, at most `max` (Infinity with a rest parameter). */
export interface Arity {
  min: number;
  max: number;
}

/** The index just after the bracket that closes the one at `open` (strings skipped), or -1. */
function closing(text: string, open: number): number {
  let depth = 0;
  for (let at = open; at < text.length; at++) {
    const char = text[at] ?? '';
    if (char === '"' || char === "'" || char === '`') {
      const end = text.indexOf(char, at + 1);
      if (end === -1) return -1;
      at = end;
    } else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char) && --depth === 0) return at + 1;
  }
  return -1;
}

/** The top-level comma-separated items between the brackets at `open` (empty items dropped). */
function items(text: string, open: number): string[] | undefined {
  const end = closing(text, open);
  if (end === -1) return undefined;
  const inner = text.slice(open + 1, end - 1);
  const found: string[] = [];
  let depth = 0;
  let start = 0;
  for (let at = 0; at < inner.length; at++) {
    const char = inner[at] ?? '';
    if (char === '"' || char === "'" || char === '`') {
      const close = inner.indexOf(char, at + 1);
      if (close === -1) break;
      at = close;
    } else if ('([{<'.includes(char)) depth++;
    else if (')]}'.includes(char) || (char === '>' && inner[at - 1] !== '=')) depth--;
    else if (char === ',' && depth === 0) {
      found.push(inner.slice(start, at));
      start = at + 1;
    }
  }
  found.push(inner.slice(start));
  return found.map((item) => item.trim()).filter((item) => item !== '');
}

/** The arity of a parameter list. */
function arityOf(params: string[], python: boolean): Arity {
  let min = 0;
  let max = 0;
  let rest = false;
  for (const param of params) {
    if (python && (param === '/' || param.startsWith('**'))) continue;
    // Python's `*args` / bare `*`: what follows is keyword-only.
    if (python && param.startsWith('*')) {
      if (param !== '*') rest = true;
      break;
    }
    if (!python && param.startsWith('...')) {
      rest = true;
      break;
    }
    if (!python && /^this\s*:/.test(param)) continue;
    max++;
    const optional = python ? param.includes('=') : /^[\w$]+\s*\?|=(?!>)/.test(param.replace(/=>/g, ''));
    if (!optional) min = max;
  }
  return { min, max: rest ? Number.POSITIVE_INFINITY : max };
}

/** The top-level functions of a module by name, with their arity (a name declared twice is left out). */
export function functionArities(file: string, text: string): Map<string, Arity> {
  const python = file.endsWith('.py');
  const found = new Map<string, Arity>();
  const seen = new Set<string>();
  const pattern = python
    ? /^(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/gm
    : /^(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?\s+([A-Za-z_$][\w$]*)\s*(?:<[^>()]*>)?\s*\(|(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\*?\s*[\w$]*\s*)?\()/gm;
  for (const match of text.matchAll(pattern)) {
    const name = match[1] ?? match[2] ?? '';
    const open = (match.index ?? 0) + match[0].length - 1;
    const params = items(text, open);
    if (params === undefined) continue;
    // `const f = (a) => …`: an arrow's parameters only when an arrow follows them.
    if (match[2] !== undefined && !/^\s*(?::[^=]*)?=>/.test(text.slice(closing(text, open)))) {
      if (!/function/.test(match[0])) continue;
    }
    if (seen.has(name)) found.delete(name);
    else found.set(name, arityOf(params, python));
    seen.add(name);
  }
  return found;
}

/** The required fields of each object type a TS module declares (`interface X { a: T; b?: U }`, `type X = { … }`). */
export function requiredFields(text: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const match of text.matchAll(
    /^(?:export\s+)?(?:interface\s+([A-Za-z_$][\w$]*)(?:<[^>{]*>)?(?:\s+extends\s+[^{]+)?|type\s+([A-Za-z_$][\w$]*)(?:<[^>=]*>)?\s*=)\s*\{/gm,
  )) {
    const open = (match.index ?? 0) + match[0].length - 1;
    const end = closing(text, open);
    if (end === -1) continue;
    const body = text.slice(open + 1, end - 1).replace(/\{[^{}]*\}/g, '{}');
    const fields = new Set<string>();
    for (const field of body.matchAll(/(?:^|[;,\n])\s*(?:readonly\s+)?['"]?([A-Za-z_$][\w$]*)['"]?\s*:/g))
      fields.add(field[1] ?? '');
    found.set(match[1] ?? match[2] ?? '', fields);
  }
  return found;
}

/** The keys an object literal at `open` sets, or undefined when it spreads another object in. */
function literalKeys(code: string, open: number): Set<string> | undefined {
  const entries = items(code, open);
  if (entries === undefined || entries.some((entry) => entry.startsWith('...'))) return undefined;
  return new Set(entries.map((entry) => /^['"]?([A-Za-z_$][\w$]*)/.exec(entry)?.[1] ?? ''));
}

/** The names a module offers to others: ES and CommonJS exports, or a Python module's top-level names. */
export function offeredNames(file: string, text: string): Set<string> | undefined {
  if (file.endsWith('.py')) {
    const names = new Set<string>();
    for (const match of text.matchAll(
      /^(?:async\s+def|def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?::[^=\n]+)?=/gm,
    ))
      names.add(match[1] ?? match[2] ?? '');
    for (const match of text.matchAll(/^(?:from\s+\S+\s+)?import\s+([^\n(]+)$/gm))
      for (const item of (match[1] ?? '').split(','))
        names.add(
          item
            .trim()
            .split(/\s+as\s+/)
            .pop()
            ?.split('.')[0] ?? '',
        );
    // A module that builds its names at run time (`globals()[…]`, `__getattr__`) offers anything.
    return /\bglobals\(\)\s*\[|\bdef\s+__getattr__\b|^from\s+\S+\s+import\s+\*/m.test(text)
      ? undefined
      : names;
  }
  const names = exportedNames(text);
  if (
    names === undefined ||
    /\bmodule\.exports\s*=(?!\s*\{)|Object\.assign\(\s*(?:module\.)?exports\b/.test(text)
  )
    return undefined;
  const commonjs = /\bmodule\.exports\s*=\s*\{([^}]*)\}/.exec(text);
  for (const item of commonjs?.[1]?.split(',') ?? []) {
    const name = item.trim().split(/\s*:/)[0]?.trim() ?? '';
    if (/^[A-Za-z_$][\w$]*$/.test(name)) names.add(name);
  }
  for (const match of text.matchAll(/\b(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=/g))
    names.add(match[1] ?? '');
  return names;
}

/** How a module's names are reached from an importer: local name → exported name, namespaces by local name. */
interface Bindings {
  module: string;
  names: Map<string, string>;
  namespaces: string[];
}

/** The workspace file a Python module path names (`app.users` from anywhere, `.users` beside `importer`). */
function resolvePython(
  importer: string,
  dotted: string,
  exists: (file: string) => boolean,
): string | undefined {
  const dots = /^\.*/.exec(dotted)?.[0].length ?? 0;
  let base = dots === 0 ? '' : path.posix.dirname(importer);
  for (let level = 1; level < dots; level++) base = path.posix.dirname(base);
  const rest = dotted.slice(dots).split('.').filter(Boolean).join('/');
  const stem = base === '' || base === '.' ? rest : rest === '' ? base : `${base}/${rest}`;
  return [`${stem}.py`, `${stem}/__init__.py`].find((candidate) => candidate !== '.py' && exists(candidate));
}

/** The modules an importer uses and how it names what they offer. */
function bindingsOf(file: string, text: string, exists: (file: string) => boolean): Bindings[] {
  const found: Bindings[] = [];
  const add = (module: string | undefined, names: [string, string][], namespaces: string[]) => {
    if (module !== undefined) found.push({ module, names: new Map(names), namespaces });
  };
  const pairs = (list: string, separator: RegExp): [string, string][] =>
    list
      .split(',')
      .map((item) => item.trim().replace(/^type\s+/, ''))
      .filter((item) => item !== '')
      .map((item) => {
        const [name = '', local = name] = item.split(separator).map((part) => part.trim());
        return [local, name];
      });
  if (file.endsWith('.py')) {
    for (const match of text.matchAll(/^from\s+(\.*[\w.]*)\s+import\s+\(?([^)\n]+(?:\n[^)\n]+)*)\)?/gm)) {
      const list = (match[2] ?? '').replace(/#[^\n]*/g, '').replace(/\s*\n\s*/g, ' ');
      if (list.trim() === '*') continue;
      const names = pairs(list, /\s+as\s+/);
      add(resolvePython(file, match[1] ?? '', exists), names, []);
      // `from app import users`: a submodule reached as a namespace.
      for (const [local, name] of names)
        add(
          resolvePython(file, `${match[1]}${(match[1] ?? '').endsWith('.') ? '' : '.'}${name}`, exists),
          [],
          [local],
        );
    }
    for (const match of text.matchAll(/^import\s+([\w.]+)(?:\s+as\s+(\w+))?\s*$/gm))
      add(resolvePython(file, match[1] ?? '', exists), [], [match[2] ?? match[1] ?? '']);
    return found;
  }
  const resolve = (specifier: string) =>
    specifier.startsWith('.') ? resolveSpecifier(file, specifier, exists) : undefined;
  for (const match of text.matchAll(
    /\bimport\s+(?:type\s+)?(?:([A-Za-z_$][\w$]*)\s*,\s*)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g,
  ))
    add(resolve(match[3] ?? ''), pairs(match[2] ?? '', /\s+as\s+/), []);
  for (const match of text.matchAll(/\bimport\s+\*\s+as\s+([A-Za-z_$][\w$]*)\s+from\s*['"]([^'"]+)['"]/g))
    add(resolve(match[2] ?? ''), [], [match[1] ?? '']);
  for (const match of text.matchAll(
    /\b(?:const|let|var)\s+\{([^}]*)\}\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)/g,
  ))
    add(resolve(match[2] ?? ''), pairs(match[1] ?? '', /\s*:\s*/), []);
  for (const match of text.matchAll(
    /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\(\s*['"]([^'"]+)['"]\s*\)/g,
  ))
    add(resolve(match[2] ?? ''), [], [match[1] ?? '']);
  return found;
}

/** A use of a changed module that its new version no longer accepts. */
export interface StaleCaller {
  caller: string;
  line: number;
  /** What is wrong, for messages: `calls formatPrice with 1 argument (it now takes 2)`. */
  problem: string;
  module: string;
}

/** Removes comments and the insides of strings (not Python f-strings: they hold code), keeping every offset and line. */
function blankText(file: string, text: string): string {
  const pattern = file.endsWith('.py')
    ? /#[^\n]*|(?:(?<!\w)[fF])?(?:"""[\s\S]*?"""|'''[\s\S]*?'''|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/g
    : /\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g;
  return text.replace(pattern, (match) => {
    if (/^[fF]/.test(match)) return match;
    if (/^["']/.test(match)) return `${match[0]}${match.slice(1, -1).replace(/[^\n]/g, ' ')}${match.at(-1)}`;
    return match.replace(/[^\n]/g, ' ');
  });
}

/**
 * The uses, in `callers`, of modules the step changed (`changed`: their text before and after)
 * that worked before the step and no longer do: a name the module offered before and not after
 * (reached through a namespace, `require` or a Python import), or a call with a number of
 * arguments the old function accepted and the new one does not. Calls that spread their
 * arguments (`f(...xs)`, `f(*xs)`) are not judged.
 */
export function staleCallers(
  callers: readonly { file: string; text: string }[],
  changed: ReadonlyMap<string, { before: string; after: string }>,
  exists: (file: string) => boolean,
): StaleCaller[] {
  const found: StaleCaller[] = [];
  for (const { file, text } of callers) {
    const code = blankText(file, text);
    const lineOf = (index: number) => text.slice(0, index).split('\n').length;
    for (const binding of bindingsOf(file, text, exists)) {
      const change = changed.get(binding.module);
      if (change === undefined || binding.module === file) continue;
      const before = offeredNames(binding.module, change.before);
      const after = offeredNames(binding.module, change.after);
      const oldArity = functionArities(binding.module, change.before);
      const newArity = functionArities(binding.module, change.after);
      const gone = (name: string) => before?.has(name) === true && after !== undefined && !after.has(name);
      const uses: { name: string; callee: string }[] = [];
      for (const [local, name] of binding.names) {
        // ES named imports of a name that is gone are danglingImports' to report.
        if (gone(name) && (file.endsWith('.py') || /\brequire\(/.test(code))) {
          const at = code.search(new RegExp(`(?<![\\w$.])${local.replace(/\$/g, '\\$')}(?![\\w$])`));
          found.push({
            caller: file,
            line: lineOf(Math.max(0, at)),
            problem: `uses ${name}, which it no longer offers`,
            module: binding.module,
          });
        }
        uses.push({ name, callee: local.replace(/\$/g, '\\$') });
      }
      for (const namespace of binding.namespaces) {
        const escaped = namespace.replace(/[.$]/g, '\\$&');
        for (const match of code.matchAll(new RegExp(`(?<![\\w$.])${escaped}\\.([A-Za-z_$][\\w$]*)`, 'g'))) {
          const name = match[1] ?? '';
          if (gone(name))
            found.push({
              caller: file,
              line: lineOf(match.index ?? 0),
              problem: `uses ${namespace}.${name}, which it no longer offers`,
              module: binding.module,
            });
        }
        for (const name of newArity.keys()) uses.push({ name, callee: `${escaped}\\.${name}` });
      }
      // Objects typed with an object type that now requires fields they do not set.
      const oldFields = requiredFields(change.before);
      const newFields = requiredFields(change.after);
      for (const [local, name] of binding.names) {
        const added = [...(newFields.get(name) ?? [])].filter(
          (field) => oldFields.get(name)?.has(field) === false,
        );
        if (added.length === 0) continue;
        for (const match of code.matchAll(
          new RegExp(`:\\s*${local.replace(/\$/g, '\\$')}\\s*=\\s*\\{`, 'g'),
        )) {
          const keys = literalKeys(code, (match.index ?? 0) + match[0].length - 1);
          const missing = added.filter((field) => keys !== undefined && !keys.has(field));
          if (missing.length > 0)
            found.push({
              caller: file,
              line: lineOf(match.index ?? 0),
              problem: `builds a ${name} without ${missing.join(', ')}, which it now requires`,
              module: binding.module,
            });
        }
      }
      for (const { name, callee } of uses) {
        const old = oldArity.get(name);
        const now = newArity.get(name);
        if (old === undefined || now === undefined || (old.min === now.min && old.max === now.max)) continue;
        for (const match of code.matchAll(new RegExp(`(?<![\\w$.])${callee}\\s*\\(`, 'g'))) {
          const open = (match.index ?? 0) + match[0].length - 1;
          // The declaration itself (`def f(`, `function f(`) is no call.
          if (/\b(?:def|function)\s+$/.test(code.slice(Math.max(0, open - 40), match.index))) continue;
          const args = items(code, open);
          if (args === undefined || args.some((arg) => /^(?:\.\.\.|\*)/.test(arg))) continue;
          const count = args.length;
          const fitsOld = count >= old.min && count <= old.max;
          const fitsNew = count >= now.min && count <= now.max;
          if (fitsOld && !fitsNew)
            found.push({
              caller: file,
              line: lineOf(match.index ?? 0),
              problem: `calls ${name} with ${count} argument${count === 1 ? '' : 's'} (it now takes ${now.min === now.max ? now.min : `${now.min} to ${now.max}`})`,
              module: binding.module,
            });
        }
      }
    }
  }
  return found;
}
