import { childrenOf, descendants, type SourceTree, type SyntaxNode } from '../code-parser';
import { type Declaration, type FoundSymbol, SymbolList } from './symbol-list';

const TYPES: Readonly<Record<string, Declaration>> = {
  ClassDeclaration: 'class',
  RecordDeclaration: 'class',
  InterfaceDeclaration: 'interface',
  AnnotationTypeDeclaration: 'interface',
  EnumDeclaration: 'enum',
};
const BODIES = ['ClassBody', 'InterfaceBody', 'EnumBody', 'RecordBody', 'AnnotationTypeBody'];

class JavaSymbols extends SymbolList {
  isPublic(node: SyntaxNode): boolean {
    const modifiers = node.getChild('Modifiers');
    return modifiers !== null && modifiers.getChild('public') !== null;
  }

  members(container: SyntaxNode, owner: string | undefined, inInterface: boolean): void {
    for (const node of childrenOf(container)) {
      const name = this.childText(node, 'Definition', 'Identifier');
      // Members of an interface are public without saying so.
      const exported = inInterface || this.isPublic(node);
      const type = TYPES[node.name];
      if (type) {
        this.add(name, type, exported, node);
        const body = BODIES.map((bodyName) => node.getChild(bodyName)).find((body) => body !== null);
        if (body && name) this.members(body, name, type === 'interface');
        continue;
      }
      switch (node.name) {
        case 'MethodDeclaration':
        case 'ConstructorDeclaration':
        case 'AnnotationTypeElementDeclaration':
          this.method(owner, name, exported, node);
          break;
        case 'FieldDeclaration':
        case 'ConstantDeclaration':
          for (const declarator of node.getChildren('VariableDeclarator')) {
            const variable = this.childText(declarator, 'Definition');
            this.add(variable, 'variable', exported, declarator);
            if (owner && variable) this.add(`${owner}.${variable}`, 'variable', exported, declarator);
          }
          break;
        case 'EnumConstant':
          this.add(name, 'variable', true, node);
          if (owner && name) this.add(`${owner}.${name}`, 'variable', true, node);
          break;
        case 'EnumBodyDeclarations':
          this.members(node, owner, inInterface);
          break;
        case 'ImportDeclaration': {
          // `import java.util.List;` → java.util.List and List; `import java.io.*;` → java.io.*
          const path = descendants(node, 'ScopedIdentifier', 'Identifier')[0];
          if (!path) break;
          const text = this.compactText(path) + (node.getChild('Asterisk') ? '.*' : '');
          this.add(text, 'import', false, node);
          if (!text.endsWith('*')) this.add(text.split('.').pop(), 'import', false, node);
          break;
        }
        default:
          break;
      }
    }
  }
}

/** The symbols of a Java file (`public` members and interface members are exported). */
export function javaSymbols(source: SourceTree): FoundSymbol[] {
  const list = new JavaSymbols(source);
  list.members(source.root, undefined, false);
  return list.symbols;
}
