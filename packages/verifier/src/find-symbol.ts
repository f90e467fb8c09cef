import { type CodeLanguage, parsedLanguageOf, parseSource, type SourceTree } from './code-parser';
import { cppSymbols } from './symbols/cpp-symbols';
import { goSymbols } from './symbols/go-symbols';
import { javaSymbols } from './symbols/java-symbols';
import { phpSymbols } from './symbols/php-symbols';
import { pythonSymbols } from './symbols/python-symbols';
import { rustSymbols } from './symbols/rust-symbols';
import { scriptSymbols } from './symbols/script-symbols';
import type { Declaration, FoundSymbol } from './symbols/symbol-list';

export type { FoundSymbol } from './symbols/symbol-list';

/** Kinds of symbols a claim can name (the plan's `StepClaims.symbolsAdded[].kind`). */
export type SymbolKind =
  | 'function'
  | 'class'
  | 'interface'
  | 'type'
  | 'variable'
  | 'export'
  | 'import'
  | 'any';

/** Options of {@link findSymbol}. */
export interface FindSymbolOptions {
  /**
   * File name; its extension picks the parser: JS/TS (`.js .mjs .cjs .jsx .ts .mts .cts .tsx`),
   * Python (`.py .pyi`), Go, Rust, Java; C++ (`.cpp .cc .cxx .hpp .hh .hxx`) and PHP when their
   * optional grammars (`@lezer/cpp`, `@lezer/php`) are installed.
   */
  fileName: string;
  /** The file's source text. */
  text: string;
  /** The symbol name (`validateToken`, `Auth.validate` for a method, a module path for `import`). */
  name: string;
  kind?: SymbolKind;
  /** Count methods as functions. Default true. */
  includeMethods?: boolean;
}

/**
 * True when {@link findSymbol} has a parser for files with this name (C++ and PHP: when the
 * optional `@lezer/cpp` / `@lezer/php` is installed). A claim about a file it cannot parse
 * cannot be checked (and must never pass).
 */
export function canFindSymbols(fileName: string): boolean {
  return parsedLanguageOf(fileName) !== undefined;
}

const EXTRACTORS: Readonly<Record<CodeLanguage, (source: SourceTree) => FoundSymbol[]>> = {
  javascript: scriptSymbols,
  typescript: scriptSymbols,
  tsx: scriptSymbols,
  python: pythonSymbols,
  go: goSymbols,
  rust: rustSymbols,
  java: javaSymbols,
  cpp: cppSymbols,
  php: phpSymbols,
};

const parsedCache = new Map<string, { text: string; symbols: FoundSymbol[] }>();

/**
 * Lists the declarations of a source file from its syntax tree (lezer grammars; names inside
 * strings and comments are never declarations): functions (including `const f = () => …`),
 * classes, structs, traits/interfaces, types, enums, methods (also as `Owner.method`), variables
 * and constants, imports, and what the file exports. A syntax error elsewhere in the file does
 * not hide the declarations around it. Resolves to `[]` for a file it cannot parse (check
 * {@link canFindSymbols} first). Results are cached by file name and text.
 *
 * @example
 * await listSymbols('auth.go', 'package auth\nfunc Validate() {}\n');
 * // [{ name: 'Validate', declaration: 'function', exported: true, line: 2 }]
 */
export async function listSymbols(fileName: string, text: string): Promise<FoundSymbol[]> {
  const cached = parsedCache.get(fileName);
  if (cached && cached.text === text) return cached.symbols;
  const source = await parseSource(fileName, text);
  const symbols = source ? EXTRACTORS[source.language](source) : [];
  if (parsedCache.size > 500) parsedCache.clear();
  parsedCache.set(fileName, { text, symbols });
  return symbols;
}

const KIND_MATCHES: Record<Exclude<SymbolKind, 'any' | 'export'>, ReadonlySet<Declaration>> = {
  function: new Set(['function', 'method']),
  class: new Set(['class', 'struct']),
  interface: new Set(['interface']),
  type: new Set(['type', 'enum', 'interface', 'struct']),
  variable: new Set(['variable', 'function']),
  import: new Set(['import']),
};

/**
 * Looks for a named symbol of a kind in a source file, from its syntax tree (JS/TS, Python, Go,
 * Rust, Java, C++, PHP). `kind: 'export'` means any exported name; `any` any declaration or
 * import. Resolves to the declaration found, or undefined — also for a language it cannot
 * parse, so callers check {@link canFindSymbols} first and report such claims as uncheckable,
 * never as passing.
 *
 * @example
 * await findSymbol({ fileName: 'auth.ts', text: 'export const validateToken = () => true;', name: 'validateToken', kind: 'function' });
 * // { name: 'validateToken', declaration: 'function', exported: true, line: 1 }
 */
export async function findSymbol(options: FindSymbolOptions): Promise<FoundSymbol | undefined> {
  const kind = options.kind ?? 'any';
  const symbols = await listSymbols(options.fileName, options.text);
  const includeMethods = options.includeMethods ?? true;
  return symbols.find((symbol) => {
    if (symbol.name !== options.name) return false;
    if (symbol.declaration === 'method' && !includeMethods) return false;
    if (kind === 'any') return true;
    if (kind === 'export') return symbol.exported;
    return KIND_MATCHES[kind].has(symbol.declaration);
  });
}
