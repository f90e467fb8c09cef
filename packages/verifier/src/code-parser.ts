import { createRequire } from 'node:module';
import path from 'node:path';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';

/** A syntax-tree node (tree-sitter). Valid only inside the {@link withSyntaxTree} callback. */
export type SyntaxNode = TreeSitter.Node;

/** Languages the verifier parses (tree-sitter grammars compiled to WebAssembly). */
export type CodeLanguage =
  | 'javascript'
  | 'typescript'
  | 'tsx'
  | 'python'
  | 'go'
  | 'rust'
  | 'java'
  | 'c-sharp'
  | 'cpp'
  | 'ruby'
  | 'php'
  | 'bash';

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
  '.cs': 'c-sharp',
  '.cpp': 'cpp',
  '.cc': 'cpp',
  '.cxx': 'cpp',
  '.hpp': 'cpp',
  '.hh': 'cpp',
  '.hxx': 'cpp',
  '.rb': 'ruby',
  '.php': 'php',
  '.sh': 'bash',
  '.bash': 'bash',
};

/** File extensions with a parser, by language (for messages and docs). */
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

interface Runtime {
  module: typeof TreeSitter;
  folder: string;
}

let runtime: Promise<Runtime> | undefined;
const parsers = new Map<CodeLanguage, Promise<TreeSitter.Parser>>();

function loadRuntime(): Promise<Runtime> {
  runtime ??= (async () => {
    const require = createRequire(import.meta.url);
    const entry = require.resolve('@vscode/tree-sitter-wasm');
    const module = require('@vscode/tree-sitter-wasm') as typeof TreeSitter;
    const folder = path.dirname(entry);
    await module.Parser.init({ locateFile: (file: string) => path.join(folder, file) });
    return { module, folder };
  })();
  runtime.catch(() => {
    runtime = undefined;
  });
  return runtime;
}

/**
 * A parser for a language, loaded on first use (the WebAssembly runtime once, then each grammar
 * once: a few milliseconds each). Importing the verifier loads nothing.
 */
export function loadParser(language: CodeLanguage): Promise<TreeSitter.Parser> {
  let parser = parsers.get(language);
  if (!parser) {
    parser = (async () => {
      const { module, folder } = await loadRuntime();
      const grammar = await module.Language.load(path.join(folder, `tree-sitter-${language}.wasm`));
      const created = new module.Parser();
      created.setLanguage(grammar);
      return created;
    })();
    parsers.set(language, parser);
    parser.catch(() => parsers.delete(language));
  }
  return parser;
}

/**
 * Parses a source file and calls `visit` with the root node of its syntax tree; the tree is
 * freed when `visit` returns, so return plain data, never nodes. Resolves to `undefined` when
 * there is no parser for the file's language.
 *
 * @example
 * const hasErrors = await withSyntaxTree('a.py', 'def f(:\n  pass\n', (root) => root.hasError);
 */
export async function withSyntaxTree<T>(
  fileName: string,
  text: string,
  visit: (root: SyntaxNode, language: CodeLanguage) => T,
): Promise<T | undefined> {
  const language = codeLanguageOf(fileName);
  if (language === undefined) return undefined;
  const parser = await loadParser(language);
  const tree = parser.parse(text);
  if (!tree) throw new Error(`The ${language} parser returned no tree for ${fileName}.`);
  try {
    return visit(tree.rootNode, language);
  } finally {
    tree.delete();
  }
}

/**
 * Syntax errors in a tree: `ERROR` nodes and nodes the parser had to insert (`MISSING`), as
 * `line:column message` strings (1-based), at most `max`.
 */
export function treeErrors(root: SyntaxNode, max = 10): string[] {
  const errors: string[] = [];
  if (!root.hasError) return errors;
  const visit = (node: SyntaxNode): void => {
    if (errors.length >= max) return;
    const where = `${node.startPosition.row + 1}:${node.startPosition.column + 1}`;
    if (node.isMissing) {
      errors.push(`${where} missing ${node.type}`);
      return;
    }
    if (node.type === 'ERROR') {
      const snippet = node.text.split('\n')[0]?.slice(0, 40) ?? '';
      errors.push(`${where} unexpected ${JSON.stringify(snippet)}`);
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return errors;
}
