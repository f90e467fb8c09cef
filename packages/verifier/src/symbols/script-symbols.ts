import { childGroups, childrenOf, hasChild, type SourceTree, type SyntaxNode } from '../code-parser';
import { type FoundSymbol, SymbolList, unquote } from './symbol-list';

// JavaScript and TypeScript (lezer's JavaScript grammar with the `ts` and `jsx` dialects).

const FUNCTION_VALUES: ReadonlySet<string> = new Set(['ArrowFunction', 'FunctionExpression']);
const BINDINGS: ReadonlySet<string> = new Set(['VariableDefinition', 'ObjectPattern', 'ArrayPattern']);
const MEMBER_NAMES: ReadonlySet<string> = new Set([
  'PropertyDefinition',
  'PrivatePropertyDefinition',
  'String',
]);

/** Skips parentheses and `as` / `satisfies` casts: `(() => 1) satisfies F` is a function. */
function unwrapValue(node: SyntaxNode | null | undefined): SyntaxNode | undefined {
  let current = node ?? undefined;
  while (current) {
    if (current.name === 'ParenthesizedExpression') current = current.firstChild?.nextSibling ?? undefined;
    else if (current.name === 'BinaryExpression' && hasChild(current, 'as', 'satisfies'))
      current = current.firstChild ?? undefined;
    else break;
  }
  return current;
}

/** The node after an `=` token among a node's children (a declarator's or an assignment's value). */
function valueAfterEquals(children: readonly SyntaxNode[], from: number): SyntaxNode | undefined {
  for (let index = from; index < children.length; index += 1) {
    const child = children[index];
    if (child?.name === ',') return undefined;
    if (child?.name === 'Equals') return children[index + 1];
  }
  return undefined;
}

class ScriptSymbols extends SymbolList {
  /** Methods of a class body or an object literal, as `owner.name`. */
  members(owner: string, body: SyntaxNode | null | undefined): void {
    if (!body) return;
    for (const member of childrenOf(body)) {
      const nameNode = childrenOf(member).find((child) => MEMBER_NAMES.has(child.name));
      if (!nameNode) continue;
      const name = unquote(this.source.textOf(nameNode));
      const value = unwrapValue(nameNode.nextSibling?.name === ':' ? nameNode.nextSibling.nextSibling : null);
      const equals = childrenOf(member).find((child) => child.name === 'Equals');
      const assigned = unwrapValue(equals?.nextSibling);
      const isMethod =
        member.name === 'MethodDeclaration' ||
        member.name === 'MethodType' ||
        (member.name === 'Property' && hasChild(member, 'ParamList')) ||
        (member.name === 'Property' && value !== undefined && FUNCTION_VALUES.has(value.name)) ||
        (member.name === 'PropertyDeclaration' &&
          assigned !== undefined &&
          FUNCTION_VALUES.has(assigned.name));
      if (isMethod) this.method(owner, name, false, member);
    }
  }

  bindings(pattern: SyntaxNode, exported: boolean): void {
    if (pattern.name === 'VariableDefinition') {
      this.add(this.source.textOf(pattern), 'variable', exported, pattern);
      return;
    }
    for (const child of childrenOf(pattern)) {
      // `{ a: b = 1 }` binds b; `{ a }` binds a; default values are not bindings.
      if (child.name === 'Equals') break;
      if (BINDINGS.has(child.name) || child.name === 'PatternProperty' || child.name === 'Spread')
        this.bindings(child, exported);
    }
  }

  variables(node: SyntaxNode, exported: boolean): void {
    const children = childrenOf(node);
    for (const [index, binding] of children.entries()) {
      if (!BINDINGS.has(binding.name)) continue;
      if (binding.name !== 'VariableDefinition') {
        this.bindings(binding, exported);
        continue;
      }
      const name = this.source.textOf(binding);
      const value = unwrapValue(valueAfterEquals(children, index + 1));
      this.add(name, value && FUNCTION_VALUES.has(value.name) ? 'function' : 'variable', exported, binding);
      if (value?.name === 'ObjectExpression') this.members(name, value);
      if (value?.name === 'ClassExpression') this.members(name, value.getChild('ClassBody'));
    }
  }

  declaration(node: SyntaxNode, exported: boolean, isDefault: boolean): boolean {
    const name = () => this.childText(node, 'VariableDefinition', 'TypeDefinition');
    switch (node.name) {
      case 'FunctionDeclaration':
      case 'AmbientFunctionDeclaration':
        this.add(name(), 'function', exported, node);
        if (isDefault) this.add('default', 'function', true, node);
        return true;
      case 'ClassDeclaration': {
        const className = name();
        this.add(className, 'class', exported, node);
        if (isDefault) this.add('default', 'class', true, node);
        this.members(className ?? '', node.getChild('ClassBody'));
        return true;
      }
      case 'InterfaceDeclaration':
        this.add(name(), 'interface', exported, node);
        return true;
      case 'TypeAliasDeclaration':
        this.add(name(), 'type', exported, node);
        return true;
      case 'EnumDeclaration':
        this.add(name(), 'enum', exported, node);
        return true;
      case 'NamespaceDeclaration': {
        // `namespace A.B {}` is A; `module "x" {}` has no name.
        this.add(name(), 'namespace', exported, node);
        this.statements(node.getChild('Block'));
        return true;
      }
      case 'AmbientDeclaration':
      case 'GlobalDeclaration':
        for (const child of childrenOf(node)) {
          if (child.name === 'Block') this.statements(child);
          else this.declaration(child, exported, false);
        }
        return true;
      case 'VariableDeclaration':
        this.variables(node, exported);
        return true;
      default:
        return false;
    }
  }

  exportDeclaration(statement: SyntaxNode): void {
    const children = childrenOf(statement);
    const isDefault = hasChild(statement, 'default');
    for (const [index, child] of children.entries()) {
      if (this.declaration(child, true, isDefault)) return;
      if (child.name === 'ExportGroup') {
        // `export { a, b as c, type D, "e f" as g }`: the last name of each specifier is exported.
        for (const specifier of childGroups(child)) {
          const last = specifier.at(-1);
          if (last && last.name !== 'type')
            this.add(unquote(this.source.textOf(last)), 'variable', true, last);
        }
        return;
      }
      if (child.name === 'Star') {
        // `export * as ns from './n'`
        const alias = children[index + 1]?.name === 'as' ? children[index + 2] : undefined;
        if (alias) this.add(unquote(this.source.textOf(alias)), 'namespace', true, statement);
        return;
      }
      if (isDefault && child.name !== 'export' && child.name !== 'default') {
        // `export default expression`
        const value = unwrapValue(child);
        if (value?.name === 'VariableName') this.add(this.source.textOf(value), 'variable', true, statement);
        if (value?.name === 'ClassExpression') this.members('default', value.getChild('ClassBody'));
        this.add(
          'default',
          value && FUNCTION_VALUES.has(value.name)
            ? 'function'
            : value?.name === 'ClassExpression'
              ? 'class'
              : 'variable',
          true,
          statement,
        );
        return;
      }
      if (child.name === 'Equals') {
        // TypeScript `export = value`
        const value = children[index + 1];
        if (value?.name === 'VariableName') this.add(this.source.textOf(value), 'variable', true, statement);
        return;
      }
    }
  }

  importDeclaration(statement: SyntaxNode): void {
    for (const child of childrenOf(statement)) {
      if (child.name === 'VariableDefinition') this.add(this.source.textOf(child), 'import', false, child);
      else if (child.name === 'ImportGroup') {
        for (const local of child.getChildren('VariableDefinition'))
          this.add(unquote(this.source.textOf(local)), 'import', false, local);
      } else if (child.name === 'String')
        this.add(unquote(this.source.textOf(child)), 'import', false, statement);
    }
  }

  /** CommonJS: `module.exports.x = …`, `exports.x = …`, `module.exports = { x }`. */
  commonJsExport(statement: SyntaxNode): void {
    const assignment = statement.firstChild;
    if (assignment?.name !== 'AssignmentExpression') return;
    const children = childrenOf(assignment);
    const target = children[0] ? this.compactText(children[0]) : '';
    const right = unwrapValue(valueAfterEquals(children, 1));
    const exportName = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/.exec(target)?.[1];
    if (exportName)
      this.add(
        exportName,
        right && FUNCTION_VALUES.has(right.name) ? 'function' : 'variable',
        true,
        statement,
      );
    if (target === 'module.exports' && right?.name === 'ObjectExpression') {
      for (const property of right.getChildren('Property')) {
        const key = property.firstChild;
        if (key && MEMBER_NAMES.has(key.name))
          this.add(unquote(this.source.textOf(key)), 'variable', true, property);
      }
    }
  }

  statement(statement: SyntaxNode): void {
    switch (statement.name) {
      case 'ExportDeclaration':
        this.exportDeclaration(statement);
        return;
      case 'ImportDeclaration':
        this.importDeclaration(statement);
        return;
      case 'ExpressionStatement':
        this.commonJsExport(statement);
        return;
      case 'Block':
        // A block at the top is what recovery makes of a body it could not attach (`declare
        // module "x" { … }`): its declarations still count.
        this.statements(statement);
        return;
      default:
        this.declaration(statement, false, false);
    }
  }

  statements(container: SyntaxNode | null | undefined): void {
    if (!container) return;
    for (const statement of childrenOf(container)) this.statement(statement);
  }
}

/** The symbols of a JavaScript or TypeScript file. */
export function scriptSymbols(source: SourceTree): FoundSymbol[] {
  const list = new ScriptSymbols(source);
  list.statements(source.root);
  // Names exported by `export { a }` lists mark their local declarations as exported too.
  const exportedNames = new Set(
    list.symbols.filter((symbol) => symbol.exported).map((symbol) => symbol.name),
  );
  for (const symbol of list.symbols) if (exportedNames.has(symbol.name)) symbol.exported = true;
  return list.symbols;
}
