import { childrenOf, descendants, type SourceTree, type SyntaxNode } from '../code-parser';
import { type Declaration, type FoundSymbol, SymbolList, unquote } from './symbol-list';

const exported = (name: string | undefined) => name !== undefined && /^\p{Lu}/u.test(name);

/** Specs of a declaration: `type A int` or `type ( A int; B string )`. */
function specs(declaration: SyntaxNode, name: string): SyntaxNode[] {
  const list = declaration.getChild('SpecList');
  return (list ?? declaration).getChildren(name);
}

/** The receiver's type name: `(s *Server)`, `(b Box[T])` → Server, Box. */
function receiverType(list: SymbolList, receiver: SyntaxNode | null): string | undefined {
  const type = receiver ? descendants(receiver, 'TypeName')[0] : undefined;
  return type ? list.source.textOf(type) : undefined;
}

/** The symbols of a Go file (capitalised names are exported). */
export function goSymbols(source: SourceTree): FoundSymbol[] {
  const list = new SymbolList(source);
  for (const node of childrenOf(source.root)) {
    switch (node.name) {
      case 'FunctionDecl': {
        const name = list.childText(node, 'DefName');
        list.add(name, 'function', exported(name), node);
        break;
      }
      case 'MethodDecl': {
        const name = list.childText(node, 'FieldName');
        list.method(receiverType(list, node.getChild('Parameters')), name, exported(name), node);
        break;
      }
      case 'TypeDecl':
        for (const spec of specs(node, 'TypeSpec')) {
          const name = list.childText(spec, 'DefName');
          const declaration: Declaration = spec.getChild('StructType')
            ? 'struct'
            : spec.getChild('InterfaceType')
              ? 'interface'
              : 'type';
          list.add(name, declaration, exported(name), spec);
        }
        break;
      case 'ConstDecl':
      case 'VarDecl':
        for (const spec of specs(node, node.name === 'ConstDecl' ? 'ConstSpec' : 'VarSpec'))
          for (const name of spec.getChildren('DefName')) {
            const text = source.textOf(name);
            list.add(text, 'variable', exported(text), spec);
          }
        break;
      case 'ImportDecl':
        for (const spec of specs(node, 'ImportSpec')) {
          const path = unquote(list.childText(spec, 'String') ?? '');
          list.add(path, 'import', false, spec);
          list.add(list.childText(spec, 'DefName') ?? path.split('/').pop(), 'import', false, spec);
        }
        break;
      default:
        break;
    }
  }
  return list.symbols;
}
