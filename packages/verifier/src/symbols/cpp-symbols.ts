import { childrenOf, type SourceTree, type SyntaxNode } from '../code-parser';
import { type FoundSymbol, SymbolList, unquote } from './symbol-list';

const NAMES: ReadonlySet<string> = new Set([
  'Identifier',
  'FieldIdentifier',
  'ScopedIdentifier',
  'TypeIdentifier',
  'DestructorName',
  'OperatorName',
  'ScopedFieldIdentifier',
]);
const CONTAINERS: ReadonlySet<string> = new Set([
  'TemplateDeclaration',
  'LinkageSpecification',
  'CompoundStatement',
  'DeclarationList',
]);

/** The declared name inside a declarator chain (`*f(int)`, `A::m()`, `x = 1`), and whether it is a function. */
function declarator(list: SymbolList, node: SyntaxNode): { name?: string; isFunction: boolean } {
  let isFunction = false;
  let current: SyntaxNode | null = node;
  while (current) {
    if (NAMES.has(current.name)) return { name: list.compactText(current), isFunction };
    if (current.name === 'FunctionDeclarator') isFunction = true;
    current =
      childrenOf(current).find((child) => NAMES.has(child.name) || child.name.endsWith('Declarator')) ?? null;
  }
  return { isFunction };
}

class CppSymbols extends SymbolList {
  members(container: SyntaxNode, owner: string | undefined): void {
    for (const node of childrenOf(container)) {
      switch (node.name) {
        case 'FunctionDefinition':
        case 'Declaration':
        case 'FieldDeclaration': {
          for (const specifier of childrenOf(node))
            if (specifier.name.endsWith('Specifier')) this.type(specifier, owner);
          // The declarator follows the type: `T id(T t)`, `Foo x;`, `int n = 1;`.
          const children = childrenOf(node);
          const target =
            children.find((child) => child.name.endsWith('Declarator')) ??
            children.filter((child) => NAMES.has(child.name)).at(-1);
          if (!target) break;
          const { name, isFunction } = declarator(this, target);
          if (!name) break;
          if (name.includes('::')) {
            const parts = name.split('::');
            this.method(parts.at(-2), parts.at(-1), true, node);
          } else if (isFunction) {
            if (owner !== undefined) this.method(owner, name, true, node);
            else this.add(name, 'function', true, node);
          } else if (node.name !== 'Declaration' || owner === undefined) {
            this.add(owner ? `${owner}.${name}` : name, 'variable', true, node);
          }
          break;
        }
        case 'ClassSpecifier':
        case 'StructSpecifier':
        case 'UnionSpecifier':
        case 'EnumSpecifier':
          this.type(node, owner);
          break;
        case 'AliasDeclaration':
          this.add(this.childText(node, 'TypeIdentifier'), 'type', true, node);
          break;
        case 'TypeDefinition': {
          const names = node.getChildren('TypeIdentifier');
          const last = names.at(-1);
          this.add(last ? this.source.textOf(last) : undefined, 'type', true, node);
          for (const specifier of childrenOf(node))
            if (specifier.name.endsWith('Specifier')) this.type(specifier, owner);
          break;
        }
        case 'NamespaceDefinition': {
          this.add(this.childText(node, 'Identifier', 'NamespaceIdentifier'), 'namespace', true, node);
          const body = node.getChild('CompoundStatement') ?? node.getChild('DeclarationList');
          if (body) this.members(body, undefined);
          break;
        }
        case 'PreprocDirective': {
          const included = node.getChild('SystemLibString') ?? node.getChild('String');
          if (node.getChild('#include') && included)
            this.add(unquote(this.source.textOf(included).replace(/^<|>$/g, '')), 'import', false, node);
          break;
        }
        default:
          if (CONTAINERS.has(node.name) || node.name.startsWith('Preproc')) this.members(node, owner);
          break;
      }
    }
  }

  type(node: SyntaxNode, owner: string | undefined): void {
    const name = this.childText(node, 'TypeIdentifier');
    if (node.name === 'EnumSpecifier') {
      this.add(name, 'enum', true, node);
      return;
    }
    const body = node.getChild('FieldDeclarationList');
    if (!body) return; // `struct S;` and `struct S s;` only name a type.
    this.add(name, node.name === 'ClassSpecifier' ? 'class' : 'struct', true, node);
    if (name) this.members(body, name);
    else if (owner) this.members(body, owner);
  }
}

/** The symbols of a C++ file (everything at namespace scope counts as exported). */
export function cppSymbols(source: SourceTree): FoundSymbol[] {
  const list = new CppSymbols(source);
  list.members(source.root, undefined);
  return list.symbols;
}
