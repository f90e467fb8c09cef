import { childGroups, childrenOf, type SourceTree, type SyntaxNode } from '../code-parser';
import { type FoundSymbol, SymbolList, unquote } from './symbol-list';

/** Statements whose bodies may hold definitions (`if TYPE_CHECKING:`, `try: import x …`). */
const COMPOUND: ReadonlySet<string> = new Set(['IfStatement', 'TryStatement', 'WithStatement']);

const visible = (name: string) => !name.startsWith('_');

class PythonSymbols extends SymbolList {
  dunderAll: Set<string> | undefined;

  block(block: SyntaxNode, owner: string | undefined, inFunction: boolean): void {
    for (const statement of childrenOf(block)) {
      const definition =
        statement.name === 'DecoratedStatement'
          ? (statement.getChild('FunctionDefinition') ?? statement.getChild('ClassDefinition'))
          : statement;
      if (!definition) continue;
      switch (definition.name) {
        case 'FunctionDefinition': {
          const name = this.childText(definition, 'VariableName');
          if (owner !== undefined) this.method(owner, name, false, definition);
          else this.add(name, 'function', !inFunction && name !== undefined && visible(name), definition);
          const body = definition.getChild('Body');
          if (body) this.block(body, undefined, true);
          break;
        }
        case 'ClassDefinition': {
          const name = this.childText(definition, 'VariableName');
          const exported = owner === undefined && !inFunction && name !== undefined && visible(name);
          this.add(name, 'class', exported, definition);
          const body = definition.getChild('Body');
          if (body && name) this.block(body, name, false);
          break;
        }
        case 'TypeDefinition': {
          const name = this.childText(definition, 'VariableName');
          this.add(name, 'type', owner === undefined && name !== undefined && visible(name), definition);
          break;
        }
        case 'AssignStatement':
          if (!inFunction) this.assignment(definition, owner);
          break;
        case 'ImportStatement':
          this.imports(definition);
          break;
        default:
          if (COMPOUND.has(definition.name))
            for (const body of definition.getChildren('Body')) this.block(body, owner, inFunction);
      }
    }
  }

  /** `a = b = 1`, `x, y = 1, 2`, `LIMIT: int = 3`: the names before the last `=` (or the annotation). */
  assignment(statement: SyntaxNode, owner: string | undefined): void {
    const children = childrenOf(statement);
    let last = -1;
    for (const [index, child] of children.entries()) if (child.name === 'AssignOp') last = index;
    const targets = (last === -1 ? children : children.slice(0, last)).filter(
      (child) => child.name === 'VariableName',
    );
    for (const target of targets) {
      const name = this.source.textOf(target);
      this.add(owner ? `${owner}.${name}` : name, 'variable', owner === undefined && visible(name), target);
      if (name === '__all__' && owner === undefined && last !== -1) {
        const value = children[last + 1];
        this.dunderAll = new Set(
          (value ? childrenOf(value) : [])
            .filter((item) => item.name === 'String')
            .map((item) => unquote(this.source.textOf(item))),
        );
      }
    }
  }

  /** `import a.b as c, d` and `from .x import (y as z, w)`. */
  imports(statement: SyntaxNode): void {
    const children = childrenOf(statement);
    const importAt = children.findIndex((child) => child.name === 'import');
    if (children[0]?.name === 'from') {
      const module = children
        .slice(1, importAt)
        .map((child) => this.source.textOf(child))
        .join('');
      this.add(module, 'import', false, statement);
    }
    const specifiers = childGroups(statement).flatMap((group) => {
      // The first group also holds `from x import` / `import`: keep what follows the keyword.
      const start = group.findIndex((child) => child.name === 'import');
      return [start === -1 ? group : group.slice(start + 1)];
    });
    for (const specifier of specifiers) {
      const as = specifier.findIndex((child) => child.name === 'as');
      const path = (as === -1 ? specifier : specifier.slice(0, as))
        .map((child) => this.source.textOf(child))
        .join('');
      this.add(path, 'import', false, statement);
      if (as !== -1) this.add(this.source.textOf(specifier[as + 1]), 'import', false, statement);
    }
  }
}

/** The symbols of a Python file. */
export function pythonSymbols(source: SourceTree): FoundSymbol[] {
  const list = new PythonSymbols(source);
  list.block(source.root, undefined, false);
  const listed = list.dunderAll;
  if (listed) {
    for (const symbol of list.symbols)
      if (symbol.declaration !== 'import' && !symbol.name.includes('.'))
        symbol.exported = listed.has(symbol.name);
  }
  return list.symbols;
}
