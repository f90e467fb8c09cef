import { createRequire } from 'node:module';
import type { Parser, SyntaxNode, Tree } from '@lezer/common';

export type { SyntaxNode } from '@lezer/common';

/**
 * Languages the verifier parses (lezer grammars: pure JavaScript, no native or WebAssembly code).
 * C++ and PHP need their optional grammar packages (`@lezer/cpp`, `@lezer/php`) installed.
 */
export type CodeLanguage =
  | 'javascript'
  | 'typescript'
  | 'tsx'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'cpp'
  | 'php';

const EXTENSIONS: Readonly<Record<string, CodeLanguage>> = {
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.rs': 'rust',
  '.java': 'java',
  '.cpp': 'cpp',
  '.cc': 'cpp',
  '.cxx': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.hxx': 'cpp',
  '.php': 'php',
};

/** File extensions with a parser (for messages and docs). */
export const PARSED_EXTENSIONS: readonly string[] = Object.keys(EXTENSIONS);

/**
 * The language of a file by its extension, or undefined when the verifier has no parser for it.
 *
 * @example
 * codeLanguageOf('src/auth.py'); // 'python'
 * codeLanguageOf('main.zig'); // undefined
 */
export function codeLanguageOf(fileName: string): CodeLanguage | undefined {
  const match = /\.[^./\\]+$/.exec(fileName);
  return match ? EXTENSIONS[match[0].toLowerCase()] : undefined;
}

/** Grammars that are optional peer dependencies (installed by those who want the language). */
const OPTIONAL_GRAMMARS: Partial<Record<CodeLanguage, string>> = { cpp: '@lezer/cpp', php: '@lezer/php' };
const installed = new Map<string, boolean>();

function grammarInstalled(language: CodeLanguage): boolean {
  const name = OPTIONAL_GRAMMARS[language];
  if (name === undefined) return true;
  let found = installed.get(name);
  if (found === undefined) {
    try {
      createRequire(import.meta.url).resolve(name);
      found = true;
    } catch {
      found = false;
    }
    installed.set(name, found);
  }
  return found;
}

/**
 * The language of a file the verifier can parse here: known extension, grammar installed.
 *
 * @example
 * parsedLanguageOf('src/auth.py'); // 'python'
 * parsedLanguageOf('index.php'); // 'php' when @lezer/php is installed, else undefined
 */
export function parsedLanguageOf(fileName: string): CodeLanguage | undefined {
  const language = codeLanguageOf(fileName);
  return language !== undefined && grammarInstalled(language) ? language : undefined;
}

// Each grammar is imported on first use: importing the verifier loads none of them.
const LOADERS: Readonly<Record<CodeLanguage, () => Promise<Parser>>> = {
  // JSX is on for plain JavaScript: no valid JavaScript expression starts with `<`.
  javascript: async () => (await import('@lezer/javascript')).parser.configure({ dialect: 'jsx' }),
  typescript: async () => (await import('@lezer/javascript')).parser.configure({ dialect: 'ts' }),
  tsx: async () => (await import('@lezer/javascript')).parser.configure({ dialect: 'ts jsx' }),
  python: async () => (await import('@lezer/python')).parser,
  go: async () => (await import('@lezer/go')).parser,
  rust: async () => (await import('@lezer/rust')).parser,
  java: async () => (await import('@lezer/java')).parser,
  cpp: async () => (await import('@lezer/cpp')).parser,
  php: async () => (await import('@lezer/php')).parser,
};

const parsers = new Map<CodeLanguage, Promise<Parser>>();

/** The parser of a language, loaded once on first use. */
export function loadParser(language: CodeLanguage): Promise<Parser> {
  let parser = parsers.get(language);
  if (!parser) {
    parser = LOADERS[language]();
    parsers.set(language, parser);
    parser.catch(() => parsers.delete(language));
  }
  return parser;
}

/**
 * A parsed source file: its lezer syntax tree with the text it came from. Lezer trees keep
 * going after a syntax error (the broken part becomes an error node), so a tree always exists.
 */
export class SourceTree {
  #lineStarts: number[] | undefined;

  constructor(
    readonly fileName: string,
    readonly language: CodeLanguage,
    readonly text: string,
    readonly tree: Tree,
  ) {}

  /** The root node (`Script`, `SourceFile`, `Program`…). */
  get root(): SyntaxNode {
    return this.tree.topNode;
  }

  /** The source text of a node. */
  textOf(node: SyntaxNode | null | undefined): string {
    return node ? this.text.slice(node.from, node.to) : '';
  }

  /** 1-based line and column of an offset. */
  position(offset: number): { line: number; column: number } {
    if (!this.#lineStarts) {
      const starts = [0];
      for (let index = this.text.indexOf('\n'); index !== -1; index = this.text.indexOf('\n', index + 1))
        starts.push(index + 1);
      this.#lineStarts = starts;
    }
    const starts = this.#lineStarts;
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((starts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (starts[low] ?? 0) + 1 };
  }

  /** 1-based line of a node's start. */
  lineOf(node: SyntaxNode): number {
    return this.position(node.from).line;
  }
}

/**
 * Parses a source file by its extension. Resolves to `undefined` when there is no parser for the
 * file's language (or its optional grammar is not installed).
 *
 * @example
 * const source = await parseSource('a.py', 'def f(x):\n    return x\n');
 * source?.root.firstChild?.name; // 'FunctionDefinition'
 */
export async function parseSource(fileName: string, text: string): Promise<SourceTree | undefined> {
  const language = parsedLanguageOf(fileName);
  if (language === undefined) return undefined;
  const parser = await loadParser(language);
  return new SourceTree(fileName, language, text, parser.parse(text));
}

/** The children of a node, tokens (`export`, `(`, `,`) included. */
export function childrenOf(node: SyntaxNode): SyntaxNode[] {
  const children: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) children.push(child);
  return children;
}

/** The nodes with one of these names inside a node (the node itself excluded), in source order. */
export function descendants(node: SyntaxNode, ...names: string[]): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  let self = true;
  node.cursor().iterate((inner) => {
    if (self) self = false;
    else if (names.includes(inner.name)) found.push(inner.node);
  });
  return found;
}

/** True when a node has a direct child with one of these names (`default`, `pub`…). */
export function hasChild(node: SyntaxNode, ...names: string[]): boolean {
  for (let child = node.firstChild; child; child = child.nextSibling)
    if (names.includes(child.name)) return true;
  return false;
}

/**
 * The node's children split at `separator` tokens (default `,`), without brackets and comments:
 * the arguments of a call, the specifiers of an import.
 */
export function childGroups(node: SyntaxNode, separator = ','): SyntaxNode[][] {
  const groups: SyntaxNode[][] = [[]];
  for (let child = node.firstChild; child; child = child.nextSibling) {
    if (child.name === separator) groups.push([]);
    else if (!BRACKETS.has(child.name) && !COMMENTS.has(child.name)) groups.at(-1)?.push(child);
  }
  return groups.filter((group) => group.length > 0);
}

const BRACKETS: ReadonlySet<string> = new Set(['(', ')', '[', ']', '{', '}']);
const COMMENTS: ReadonlySet<string> = new Set(['LineComment', 'BlockComment', 'Comment']);

const JSX_NAMES: ReadonlySet<string> = new Set([
  'JSXBuiltin',
  'JSXIdentifier',
  'JSXMemberExpression',
  'JSXNamespacedName',
]);

/** The tag name of a JSX open or close tag (`''` for a fragment). */
function jsxTagName(source: SourceTree, tag: SyntaxNode | null): string {
  for (let child = tag?.firstChild; child; child = child.nextSibling)
    if (JSX_NAMES.has(child.name)) return source.textOf(child).replace(/\s+/g, '');
  return '';
}

/**
 * Syntax errors in a tree as `line:column message` strings (1-based), at most `max`: the error
 * nodes lezer's recovery left (a skipped token or a missing one), and what a grammar accepts but
 * the language does not (a JSX element closed with another tag's name, Python 2's `print`
 * statement, a Go file without its `package` clause).
 */
export function treeErrors(source: SourceTree, max = 10): string[] {
  const errors: string[] = [];
  const seenLines = new Set<number>();
  const at = (offset: number, message: string) => {
    const { line, column } = source.position(offset);
    errors.push(`${line}:${column} ${message}`);
    seenLines.add(line);
  };
  if (source.language === 'go') {
    let first = source.root.firstChild;
    while (first && (first.name === 'LineComment' || first.name === 'BlockComment'))
      first = first.nextSibling;
    if (first?.name !== 'PackageClause') at(first?.from ?? 0, 'expected the package clause first');
  }
  source.tree.iterate({
    enter: (node) => {
      if (errors.length >= max) return false;
      if (node.name === 'JSXElement') {
        const close = node.node.getChild('JSXCloseTag');
        const open = node.node.getChild('JSXOpenTag') ?? node.node.getChild('JSXFragmentTag');
        const opened = jsxTagName(source, open);
        const closed = jsxTagName(source, close);
        if (close && open && opened !== closed)
          at(close.from, `closing tag </${closed}> does not match <${opened}>`);
        return undefined;
      }
      if (node.name === 'PrintStatement') {
        at(node.from, 'print is a function in Python 3: print(…)');
        return false;
      }
      if (!node.type.isError) return undefined;
      const { line, column } = source.position(node.from);
      // One error per line: recovery often leaves several nodes for one mistake.
      if (seenLines.has(line)) return false;
      seenLines.add(line);
      const snippet = source.text.slice(node.from, node.to).split('\n')[0]?.trim().slice(0, 40) ?? '';
      if (snippet !== '') errors.push(`${line}:${column} unexpected ${JSON.stringify(snippet)}`);
      else if (node.from >= source.text.trimEnd().length)
        errors.push(`${line}:${column} unexpected end of file`);
      else {
        const next = source.text.slice(node.from).trimStart().split(/\s/)[0]?.slice(0, 40) ?? '';
        errors.push(`${line}:${column} syntax error before ${JSON.stringify(next)}`);
      }
      return false;
    },
  });
  return errors;
}
