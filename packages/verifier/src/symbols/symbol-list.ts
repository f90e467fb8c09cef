import type { SourceTree, SyntaxNode } from '../code-parser';

/** A declaration found in a file. */
export interface FoundSymbol {
  name: string;
  /**
   * What it is: `function`, `method`, `class`, `struct` (Go/Rust/C++), `interface` (also Rust
   * traits), `type`, `enum`, `variable` (also constants and fields), `import`, `namespace`
   * (also modules).
   */
  declaration:
    | 'function'
    | 'method'
    | 'class'
    | 'struct'
    | 'interface'
    | 'type'
    | 'enum'
    | 'variable'
    | 'import'
    | 'namespace';
  /**
   * Part of the file's public surface: `export`ed (JS/TS, CommonJS `exports.x`), `pub` (Rust),
   * capitalised (Go), `public` (Java, PHP), no leading underscore or listed in `__all__` (Python).
   */
  exported: boolean;
  /** 1-based line. */
  line: number;
}

/** What a {@link FoundSymbol} is. */
export type Declaration = FoundSymbol['declaration'];

/** Collects the symbols of one source while its tree is walked. */
export class SymbolList {
  readonly symbols: FoundSymbol[] = [];

  constructor(readonly source: SourceTree) {}

  add(name: string | undefined, declaration: Declaration, exported: boolean, node: SyntaxNode): void {
    if (name === undefined || name === '') return;
    this.symbols.push({ name, declaration, exported, line: this.source.lineOf(node) });
  }

  /** A method, listed under its own name and as `Owner.name`. */
  method(owner: string | undefined, name: string | undefined, exported: boolean, node: SyntaxNode): void {
    this.add(name, 'method', exported, node);
    if (owner && name) this.add(`${owner}.${name}`, 'method', exported, node);
  }

  /** The text of a node's first direct child with one of these names. */
  childText(node: SyntaxNode, ...names: string[]): string | undefined {
    for (let child = node.firstChild; child; child = child.nextSibling)
      if (names.includes(child.name)) return this.source.textOf(child);
    return undefined;
  }

  /** The text of a node without spaces and line breaks (`a :: b` → `a::b`). */
  compactText(node: SyntaxNode): string {
    return this.source.textOf(node).replace(/\s+/g, '');
  }
}

/** A quoted string's content (`'zod'` → `zod`). */
export const unquote = (text: string): string => text.replace(/^[rbuf]*["'`]+|["'`]+$/gi, '');
