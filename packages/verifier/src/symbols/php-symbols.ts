import { childGroups, childrenOf, type SourceTree, type SyntaxNode } from '../code-parser';
import { type Declaration, type FoundSymbol, SymbolList } from './symbol-list';

const TYPES: Readonly<Record<string, Declaration>> = {
  ClassDeclaration: 'class',
  InterfaceDeclaration: 'interface',
  TraitDeclaration: 'class',
  EnumDeclaration: 'enum',
};
const CONTAINERS: ReadonlySet<string> = new Set(['Template', 'Block', 'DeclarationList', 'EnumBody']);

class PhpSymbols extends SymbolList {
  members(container: SyntaxNode, owner: string | undefined): void {
    for (const node of childrenOf(container)) {
      const name = this.childText(node, 'Name');
      const type = TYPES[node.name];
      if (type) {
        this.add(name, type, true, node);
        const body = node.getChild('DeclarationList') ?? node.getChild('EnumBody');
        if (body && name) this.members(body, name);
        continue;
      }
      switch (node.name) {
        case 'FunctionDefinition':
          this.add(name, 'function', true, node);
          break;
        case 'MethodDeclaration': {
          const visibility = this.childText(node, 'Visibility') ?? 'public';
          this.method(owner, name, visibility === 'public', node);
          break;
        }
        case 'ConstDeclaration':
          for (const declarator of node.getChildren('VariableDeclarator')) {
            const constant = this.childText(declarator, 'Name');
            this.add(owner && constant ? `${owner}.${constant}` : constant, 'variable', true, declarator);
            if (owner) this.add(constant, 'variable', true, declarator);
          }
          break;
        case 'NamespaceDefinition': {
          this.add(this.childText(node, 'QualifiedName', 'Name'), 'namespace', true, node);
          const body = node.getChild('Block');
          if (body) this.members(body, undefined);
          break;
        }
        case 'NamespaceUseDeclaration':
          // `use Foo\Bar as Baz, Other\Thing;`
          for (const clause of childGroups(node)) {
            const parts = clause.filter((part) => part.name !== 'use' && part.name !== ';');
            const target = parts[0];
            if (!target) continue;
            const path = this.compactText(target);
            this.add(path, 'import', false, node);
            this.add(path.split('\\').pop(), 'import', false, node);
            const as = parts.findIndex((part) => part.name === 'as');
            if (as !== -1) this.add(this.source.textOf(parts[as + 1]), 'import', false, node);
          }
          break;
        default:
          if (CONTAINERS.has(node.name)) this.members(node, owner);
          break;
      }
    }
  }
}

/** The symbols of a PHP file (functions, classes and constants are public; methods by visibility). */
export function phpSymbols(source: SourceTree): FoundSymbol[] {
  const list = new PhpSymbols(source);
  list.members(source.root, undefined);
  return list.symbols;
}
