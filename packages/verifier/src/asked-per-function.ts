/**
 * Something asked of every function of a file ("Add type hints to every function in
 * app/calc.py", "Add a docstring to each function in app/util.py", "Add a JSDoc comment to every
 * exported function in src/math.js") that the step gave only some of them. Read from the file's
 * text: Python `def`s (a docstring is the first statement of the body; a type hint is an
 * annotated parameter or a `->` return), JS/TS functions and arrow constants (a doc comment is a
 * `/** … *\/` block right above; a type is an annotated parameter or return).
 */

/** What each function must have. */
export type PerFunction = 'types' | 'docs';

/** A request of something for every function of one file. */
export interface AskedPerFunction {
  what: PerFunction;
  file: string;
  /** Only the exported (public) functions. */
  exported: boolean;
}

const ASKED =
  /\b(?:add|write|put|give)\s+(?:(?:a|an|the)\s+)?(?<what>type\s+(?:hints?|annotations?)|types|return\s+types|docstrings?|(?:JS|TS)Doc(?:\s+comments?|\s+blocks?)?|doc(?:umentation)?\s+comments?)\s+(?:to|for|on)\s+(?:every|each|all(?:\s+(?:of\s+)?the)?)\s+(?<exported>exported\s+|public\s+)?(?:functions?|methods?|functions\s+and\s+methods)\s+(?:in|of)\s+(?:the\s+(?:file|module)\s+)?[\x60'"]?(?<file>[\w./-]+\.(?:py|[cm]?[jt]sx?))\b/gi;

/** The per-function asks of a description. */
export function askedPerFunction(description: string): AskedPerFunction[] {
  return [...description.matchAll(ASKED)].map((match) => ({
    what: /types?\b|hints?|annotations?/i.test(match.groups?.what ?? '') ? 'types' : 'docs',
    file: match.groups?.file ?? '',
    exported: match.groups?.exported !== undefined,
  }));
}

/** A function of a file: its name, whether it has types and docs, whether it is exported. */
interface FunctionFacts {
  name: string;
  line: number;
  typed: boolean;
  documented: boolean;
  exported: boolean;
}

/** The text from `open` (a `(`) to its matching `)`, or undefined. */
function parenthesised(text: string, open: number): string | undefined {
  let depth = 0;
  for (let at = open; at < text.length; at++) {
    if (text[at] === '(') depth++;
    else if (text[at] === ')' && --depth === 0) return text.slice(open + 1, at);
  }
  return undefined;
}

/** The functions of a Python or JS/TS file, with what they have. */
export function functionFacts(file: string, text: string): FunctionFacts[] {
  const found: FunctionFacts[] = [];
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  if (file.endsWith('.py')) {
    for (const match of text.matchAll(/^([ \t]*)(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/gm)) {
      const open = (match.index ?? 0) + match[0].length - 1;
      const params = parenthesised(text, open);
      if (params === undefined) continue;
      const rest = text.slice(open + params.length + 2);
      const header = /^\s*(->[^:]+)?:/.exec(rest);
      const body = rest.slice(header?.[0].length ?? 0);
      const typed =
        header?.[1] !== undefined ||
        params
          .split(',')
          .some((param) => /^\s*\*{0,2}[A-Za-z_]\w*\s*:/.test(param) && !/^\s*(?:self|cls)\s*$/.test(param));
      const documented = /^[ \t]*(?:#[^\n]*)?\n(?:[ \t]*\n)*[ \t]+[rRuUbB]?(?:"""|'''|"|')/.test(body);
      const name = match[2] ?? '';
      found.push({
        name,
        line: lineOf(match.index ?? 0),
        typed,
        documented,
        exported: !name.startsWith('_'),
      });
    }
    return found;
  }
  for (const match of text.matchAll(
    /^[ \t]*(export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*(?:<[^>(]*>)?\s*\(|^[ \t]*(export\s+)?(?:const|let)\s+([A-Za-z_$][\w$]*)\s*(?::[^=\n]+)?=\s*(?:async\s+)?(?:function\b[^(]*)?\(/gm,
  )) {
    const open = (match.index ?? 0) + match[0].length - 1;
    const params = parenthesised(text, open);
    if (params === undefined) continue;
    const after = text.slice(open + params.length + 2);
    // An arrow constant: its parameters are followed by `=>` (a return type may come between).
    if (match[4] !== undefined && !/function/.test(match[0]) && !/^\s*(?::[^=]+)?=>/.test(after)) continue;
    const typed = /^\s*:/.test(after) || params.split(',').some((param) => /^\s*[\w$]+\??\s*:/.test(param));
    const above = text.slice(0, match.index).replace(/\s+$/, '');
    // A `/** … */` block right above (the last comment there opens with `/**`).
    const documented = above.endsWith('*/') && above.startsWith('/**', above.lastIndexOf('/*'));
    found.push({
      name: match[2] ?? match[4] ?? '',
      line: lineOf(match.index ?? 0),
      typed,
      documented,
      exported: (match[1] ?? match[3]) !== undefined,
    });
  }
  return found;
}

/** The functions of `text` that lack what `ask` asks of each. */
export function functionsLacking(ask: AskedPerFunction, text: string): string[] {
  return functionFacts(ask.file, text)
    .filter((fn) => !ask.exported || fn.exported)
    .filter((fn) => (ask.what === 'types' ? !fn.typed : !fn.documented))
    .map((fn) => `${fn.name} (line ${fn.line})`);
}
