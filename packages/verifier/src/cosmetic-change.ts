/**
 * A change that only moves whitespace — re-indented lines, a trailing newline, blank lines — when
 * the step was asked for content ("Update the docs for the new flag", "Fix the bug in src/a.js"):
 * the files differ, so "modified" holds, and nothing was done. Whitespace-only work is accepted
 * when it is what was asked (formatting, indentation, line endings, linting).
 */

import { parsedLanguageOf, parseSource, type SyntaxNode } from './code-parser';

/** Words that ask for whitespace or layout work. */
const LAYOUT_ASKED =
  /\b(?:format\w*|re-?format\w*|whitespace|indent\w*|dedent\w*|trailing|spacing|spaces?|tabs?|newlines?|blank\s+lines?|line\s+endings?|eol|crlf|lf|prettier|biome|black|gofmt|rustfmt|lint\w*|style|tidy|cosmetic|wrap\w*|re-?flow)\b/i;

/** Whether the description asks for layout or whitespace work. */
export function layoutAsked(description: string): boolean {
  return LAYOUT_ASKED.test(description);
}

const squash = (text: string) => text.replace(/\s+/g, '');

/** Whether two versions of a file differ only in whitespace (and do differ). */
export function whitespaceOnly(before: string, after: string): boolean {
  return before !== after && squash(before) === squash(after);
}

/** Words that ask for work on comments, docs or the style of literals (the code may stay the same). */
const COMMENTS_ASKED =
  /\b(?:comments?|comment\s+out|uncomment\w*|docstrings?|jsdoc|tsdoc|javadoc|doc-?comments?|docs?|document\w*|annotat\w*|explain\w*|headers?|licen[cs]e|copyright|todos?|fixme|notes?|quot\w*|semicolons?|commas?|dead\s+code|unreachable|clean\s*up|cleanup|renam\w*|naming|identifiers?|refactor\w*|restructur\w*|reorgani[sz]\w*|readab\w*|clarity|simplif\w*)\b/i;

/** Whether the description asks for comment, documentation, literal-style, dead-code, naming or refactoring work (the program may stay the same). */
export function commentsAsked(description: string): boolean {
  return COMMENTS_ASKED.test(description);
}

/** A quoted string token's content with its quote style normalised (`'it\'s'` and `"it's"` agree). */
function normalizedString(token: string): string {
  const quote = token[0];
  if ((quote !== "'" && quote !== '"') || token.length < 2 || token.at(-1) !== quote) return token;
  return `"${token.slice(1, -1).replace(/\\(['"])/g, '$1')}"`;
}

const TERMINATORS = new Set([
  'ReturnStatement',
  'ThrowStatement',
  'RaiseStatement',
  'BreakStatement',
  'ContinueStatement',
]);
const BLOCKS = new Set(['Block', 'Body']);
/** Calls that compute a value and run nothing else (`Number(process.env.PORT)`, `new Map()`). */
const PURE_CALL =
  /\b(?:Number|String|Boolean|BigInt|parseInt|parseFloat|Number\.parse(?:Int|Float)|Object\.freeze|Symbol|new\s+(?:Map|Set|WeakMap|WeakSet|AbortController|Array|Date|RegExp|URL))\s*\(/g;
/** A call (`f(`, `a.b(`, `x)(`), and `async (` is no call. */
const CALL = /(?<!\basync\s*)[\w$\])]\s*\(/;
const FALSY_CONDITION = /^\(?\s*(?:false|False|0|null|None|undefined|void\s+0|''|""|!1)\s*\)?$/;

/**
 * Whether a statement never runs: it follows a `return`/`throw`/`break`/`continue` in the same
 * block (hoisted function declarations excepted), it is an `if` on a falsy literal (`if (false)`,
 * `if 0:`) without an `else`, a private function of an ES module that nothing refers to, or a
 * Python function defined again at module level before anything used it (the later one wins).
 */
function deadStatement(node: SyntaxNode, text: string): boolean {
  if (
    node.parent &&
    BLOCKS.has(node.parent.name) &&
    node.name !== 'FunctionDeclaration' &&
    !/^[{}:]$/.test(node.name)
  ) {
    for (let previous = node.prevSibling; previous; previous = previous.prevSibling)
      if (TERMINATORS.has(previous.name)) return true;
  }
  if (
    node.parent?.name === 'Script' &&
    (node.name === 'FunctionDeclaration' || node.name === 'FunctionDefinition')
  ) {
    const name = node.getChild('VariableDefinition') ?? node.getChild('VariableName');
    const declared = name ? text.slice(name.from, name.to) : '';
    if (declared !== '') {
      const uses = (from: number, to?: number) =>
        text.slice(from, to).match(new RegExp(`(?<![\\w$.])${declared.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'))
          ?.length ?? 0;
      // A private function of an ES module that nothing refers to.
      if (node.name === 'FunctionDeclaration' && /^\s*(?:import|export)\b/m.test(text) && uses(0) === 1)
        return true;
      // A Python function defined again later at module level before anything used it.
      if (node.name === 'FunctionDefinition') {
        for (let next = node.nextSibling; next; next = next.nextSibling) {
          const other = next.name === 'FunctionDefinition' ? next.getChild('VariableName') : null;
          if (other && text.slice(other.from, other.to) === declared) return uses(node.to, next.from) === 0;
        }
      }
    }
  }
  // A private constant of an ES module that nothing reads, set to a value that runs nothing.
  if (node.parent?.name === 'Script' && node.name === 'VariableDeclaration') {
    const definitions = node.getChildren('VariableDefinition');
    const declaration = text.slice(node.from, node.to);
    if (
      definitions.length === 1 &&
      /^\s*(?:import|export)\b/m.test(text) &&
      !CALL.test(declaration.replace(PURE_CALL, ''))
    ) {
      const [definition] = definitions;
      const declared = definition ? text.slice(definition.from, definition.to) : '';
      const uses = text.match(new RegExp(`(?<![\\w$.])${declared.replace(/\$/g, '\\$')}(?![\\w$])`, 'g'));
      if (declared !== '' && uses?.length === 1) return true;
    }
  }
  if (node.name === 'IfStatement') {
    const children: SyntaxNode[] = [];
    for (let child = node.firstChild; child; child = child.nextSibling) children.push(child);
    const condition = children[1];
    if (condition === undefined || children.some((child) => child.name === 'else' || child.name === 'elif'))
      return false;
    return FALSY_CONDITION.test(text.slice(condition.from, condition.to).trim());
  }
  return false;
}

const IDENTIFIER = new Set(['VariableDefinition', 'VariableName']);

/**
 * Names bound only inside functions (parameters and local variables, never at module level): a
 * consistent rename of them leaves the program the same. JS/TS: `VariableDefinition`s inside a
 * function; Python: parameters.
 */
function localNames(root: SyntaxNode, text: string, python: boolean): Set<string> {
  const local = new Set<string>();
  const global = new Set<string>();
  root.cursor().iterate((ref) => {
    if (!IDENTIFIER.has(ref.name)) return;
    let inFunction = false;
    let inParams = false;
    // A function's or class's own name belongs to the scope around it.
    const start =
      ref.node.parent && FUNCTION_SCOPE.test(ref.node.parent.name) ? ref.node.parent.parent : ref.node.parent;
    for (let node = start; node; node = node.parent) {
      if (node.name === 'ParamList') inParams = true;
      if (FUNCTION_SCOPE.test(node.name)) {
        inFunction = true;
        break;
      }
    }
    const name = text.slice(ref.from, ref.to);
    if (!inFunction) global.add(name);
    else if (python ? inParams : ref.name === 'VariableDefinition') local.add(name);
  });
  for (const name of global) local.delete(name);
  return local;
}

const FUNCTION_SCOPE = /Function|Method|Arrow|Lambda|ClassBody|ClassDeclaration|ClassDefinition/;

/**
 * The code of a source file with what does not change what it runs taken out: comments, the
 * quote style of string literals, code that never runs (after a `return`, under `if (false)`),
 * whitespace. `undefined` when there is no parser for the language or the file does not parse
 * cleanly (then nothing can be said).
 */
async function codeOnly(fileName: string, text: string): Promise<string | undefined> {
  const source = await parseSource(fileName, text);
  if (source === undefined) return undefined;
  const locals = localNames(source.tree.topNode, text, source.language === 'python');
  const canonical = new Map<string, string>();
  let broken = false;
  const parts: string[] = [];
  let at = 0;
  source.tree.iterate({
    enter: (ref) => {
      if (broken) return false;
      if (ref.type.isError) {
        broken = true;
        return false;
      }
      const comment = /Comment$/.test(ref.name);
      const dead = !comment && deadStatement(ref.node, text);
      const string =
        !comment &&
        !dead &&
        ref.name === 'String' &&
        (source.language !== 'python' || !/^[a-zA-Z]/.test(text.slice(ref.from, ref.to)));
      const name = text.slice(ref.from, ref.to);
      const local =
        !comment && !dead && !string && IDENTIFIER.has(ref.name) && locals.has(name) ? name : undefined;
      if (!comment && !dead && !string && local === undefined) return undefined;
      parts.push(text.slice(at, ref.from));
      if (string) parts.push(normalizedString(text.slice(ref.from, ref.to)));
      if (local !== undefined) {
        if (!canonical.has(local)) canonical.set(local, `\u0000${canonical.size}\u0000`);
        parts.push(canonical.get(local) ?? local);
      }
      at = ref.to;
      return false;
    },
  });
  if (broken) return undefined;
  parts.push(text.slice(at));
  return squash(parts.join(''));
}

/**
 * Whether two versions of a source file differ only in comments, whitespace, the quote style of
 * string literals and code that never runs (and do differ): the code the file runs is the same. `false` when the file's
 * language has no parser or either version does not parse cleanly.
 *
 * @example
 * await sameCode('a.js', 'f(1);\n', '// fixed\nf(1);\n'); // true
 */
export async function sameCode(fileName: string, before: string, after: string): Promise<boolean> {
  if (before === after) return false;
  if (parsedLanguageOf(fileName) === undefined) return false;
  const [was, is] = await Promise.all([codeOnly(fileName, before), codeOnly(fileName, after)]);
  return was !== undefined && is !== undefined && was === is;
}
