import { childrenOf, descendants, hasChild, type SourceTree, type SyntaxNode } from '../code-parser';
import { type FoundSymbol, SymbolList } from './symbol-list';

const TYPES: ReadonlySet<string> = new Set([
  'TypeIdentifier',
  'GenericType',
  'ScopedTypeIdentifier',
  'ReferenceType',
  'PointerType',
]);

/** The type an `impl` block is for: `impl<T> Store for Wrap<T>` → Wrap, `impl Config` → Config. */
function implType(list: SymbolList, impl: SyntaxNode): string | undefined {
  const children = childrenOf(impl);
  const forAt = children.findIndex((child) => child.name === 'for');
  const type = children.slice(forAt + 1).find((child) => TYPES.has(child.name));
  if (!type) return undefined;
  if (type.name === 'TypeIdentifier') return list.source.textOf(type);
  // `Wrap<T>`, `a::Wrap`, `&Wrap`: the last type name before any type arguments.
  const names = descendants(type, 'TypeIdentifier').filter((name) => name.parent?.name !== 'TypeArgList');
  return names.length > 0 ? list.source.textOf(names.at(-1)) : undefined;
}

class RustSymbols extends SymbolList {
  items(container: SyntaxNode, owner: string | undefined, traitImpl: boolean): void {
    for (const node of childrenOf(container)) {
      const isPub = hasChild(node, 'Vis');
      const name = this.childText(node, 'BoundIdentifier', 'TypeIdentifier', 'Identifier');
      switch (node.name) {
        case 'FunctionItem':
          if (owner !== undefined) this.method(owner, name, isPub || traitImpl, node);
          else this.add(name, 'function', isPub, node);
          break;
        case 'StructItem':
        case 'UnionItem':
          this.add(name, 'struct', isPub, node);
          break;
        case 'EnumItem':
          this.add(name, 'enum', isPub, node);
          break;
        case 'TraitItem': {
          this.add(name, 'interface', isPub, node);
          const body = node.getChild('DeclarationList');
          if (body && name) this.items(body, name, isPub);
          break;
        }
        case 'TypeItem':
          this.add(name, 'type', isPub, node);
          break;
        case 'ConstItem':
        case 'StaticItem':
          this.add(name, 'variable', isPub, node);
          break;
        case 'MacroDefinition':
          this.add(name, 'function', true, node);
          break;
        case 'ModItem': {
          this.add(name, 'namespace', isPub, node);
          const body = node.getChild('DeclarationList');
          if (body) this.items(body, undefined, false);
          break;
        }
        case 'ForeignModItem': {
          const body = node.getChild('DeclarationList');
          if (body) this.items(body, undefined, false);
          break;
        }
        case 'ImplItem': {
          const body = node.getChild('DeclarationList');
          if (body) this.items(body, implType(this, node), hasChild(node, 'for'));
          break;
        }
        case 'UseDeclaration': {
          // `use std::collections::{HashMap, HashSet as HS};`: the path and every name it binds.
          const path = childrenOf(node).find(
            (child) => child.name !== 'use' && child.name !== 'Vis' && child.name !== ';',
          );
          if (path)
            this.add(
              this.source
                .textOf(path)
                .replace(/\s*::\s*/g, '::')
                .replace(/\s+/g, ' '),
              'import',
              false,
              node,
            );
          for (const bound of descendants(node, 'BoundIdentifier', 'Identifier'))
            this.add(this.source.textOf(bound), 'import', false, node);
          break;
        }
        default:
          break;
      }
    }
  }
}

/** The symbols of a Rust file (`pub` items are exported). */
export function rustSymbols(source: SourceTree): FoundSymbol[] {
  const list = new RustSymbols(source);
  list.items(source.root, undefined, false);
  return list.symbols;
}
