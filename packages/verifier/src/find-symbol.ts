import { type CodeLanguage, codeLanguageOf, type SyntaxNode, withSyntaxTree } from './code-parser';

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

/** A declaration found in a file. */
export interface FoundSymbol {
  name: string;
  /**
   * What it is: `function`, `method`, `class`, `struct` (Go/Rust/C#/C++), `interface` (also
   * Rust traits), `type`, `enum`, `variable` (also constants and fields), `import`, `namespace`
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
   * capitalised (Go), `public` (Java/C#), no leading underscore or listed in `__all__` (Python).
   */
  exported: boolean;
  /** 1-based line. */
  line: number;
}

/** Options of {@link findSymbol}. */
export interface FindSymbolOptions {
  /**
   * File name; its extension picks the parser: JS/TS (`.js .mjs .cjs .jsx .ts .mts .cts .tsx`),
   * Python, Go, Rust, Java, C#, C++, Ruby, PHP, shell.
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
 * True when {@link findSymbol} has a parser for files with this name. A claim about a file it
 * cannot parse cannot be checked (and must never pass).
 */
export function canFindSymbols(fileName: string): boolean {
  return codeLanguageOf(fileName) !== undefined;
}

type Declaration = FoundSymbol['declaration'];

/** Collects symbols while walking one tree. */
class SymbolList {
  readonly symbols: FoundSymbol[] = [];

  add(name: string | undefined, declaration: Declaration, exported: boolean, node: SyntaxNode): void {
    if (name === undefined || name === '') return;
    this.symbols.push({ name, declaration, exported, line: node.startPosition.row + 1 });
  }

  /** A method, listed under its own name and as `Owner.name`. */
  method(owner: string | undefined, name: string | undefined, exported: boolean, node: SyntaxNode): void {
    this.add(name, 'method', exported, node);
    if (owner && name) this.add(`${owner}.${name}`, 'method', exported, node);
  }
}

const field = (node: SyntaxNode, name: string): SyntaxNode | undefined =>
  node.childForFieldName(name) ?? undefined;
const fieldText = (node: SyntaxNode, name: string): string | undefined => field(node, name)?.text;
const named = (node: SyntaxNode): SyntaxNode[] => node.namedChildren.filter((child) => child !== null);
const hasChild = (node: SyntaxNode, type: string): boolean =>
  node.children.some((child) => child?.type === type);
const unquote = (text: string): string => text.replace(/^["'`]|["'`]$/g, '');

// ---------------------------------------------------------------------------------------------
// JavaScript / TypeScript

const FUNCTION_VALUES = new Set(['arrow_function', 'function_expression', 'function', 'generator_function']);

function unwrapExpression(node: SyntaxNode | undefined): SyntaxNode | undefined {
  let current = node;
  while (
    current &&
    (current.type === 'parenthesized_expression' ||
      current.type === 'as_expression' ||
      current.type === 'satisfies_expression')
  ) {
    current = named(current)[0];
  }
  return current;
}

function scriptMembers(list: SymbolList, owner: string, body: SyntaxNode | undefined): void {
  if (!body) return;
  for (const member of named(body)) {
    const name = field(member, 'name') ?? field(member, 'key');
    if (
      !name ||
      !['property_identifier', 'private_property_identifier', 'string', 'identifier'].includes(name.type)
    )
      continue;
    const value = unwrapExpression(field(member, 'value'));
    const isMethod =
      member.type === 'method_definition' ||
      member.type === 'method_signature' ||
      member.type === 'abstract_method_signature' ||
      ((member.type === 'public_field_definition' ||
        member.type === 'field_definition' ||
        member.type === 'pair') &&
        value !== undefined &&
        FUNCTION_VALUES.has(value.type));
    if (isMethod) list.method(owner, unquote(name.text), false, member);
  }
}

function scriptBindings(list: SymbolList, pattern: SyntaxNode, exported: boolean): void {
  if (pattern.type === 'identifier' || pattern.type === 'shorthand_property_identifier_pattern') {
    list.add(pattern.text, 'variable', exported, pattern);
    return;
  }
  for (const child of named(pattern)) {
    if (child.type === 'pair_pattern') {
      const value = field(child, 'value');
      if (value) scriptBindings(list, value, exported);
    } else if (child.type === 'assignment_pattern' || child.type === 'object_assignment_pattern') {
      const left = field(child, 'left') ?? named(child)[0];
      if (left) scriptBindings(list, left, exported);
    } else if (child.type !== 'property_identifier') {
      scriptBindings(list, child, exported);
    }
  }
}

function scriptDeclaration(list: SymbolList, node: SyntaxNode, exported: boolean, isDefault: boolean): void {
  switch (node.type) {
    case 'function_declaration':
    case 'generator_function_declaration':
    case 'function_signature':
      list.add(fieldText(node, 'name'), 'function', exported, node);
      if (isDefault) list.add('default', 'function', true, node);
      return;
    case 'class_declaration':
    case 'abstract_class_declaration':
    case 'class': {
      const name = fieldText(node, 'name');
      list.add(name, 'class', exported, node);
      if (isDefault) list.add('default', 'class', true, node);
      scriptMembers(list, name ?? '', field(node, 'body'));
      return;
    }
    case 'interface_declaration':
      list.add(fieldText(node, 'name'), 'interface', exported, node);
      return;
    case 'type_alias_declaration':
      list.add(fieldText(node, 'name'), 'type', exported, node);
      return;
    case 'enum_declaration':
      list.add(fieldText(node, 'name'), 'enum', exported, node);
      return;
    case 'internal_module':
    case 'module': {
      const name = field(node, 'name');
      if (name?.type === 'identifier' || name?.type === 'nested_identifier')
        list.add(name.text, 'namespace', exported, node);
      for (const statement of named(field(node, 'body') ?? node).filter((child) => child.id !== name?.id))
        scriptStatement(list, statement);
      return;
    }
    case 'ambient_declaration':
      for (const child of named(node)) scriptDeclaration(list, child, exported, false);
      return;
    case 'lexical_declaration':
    case 'variable_declaration':
      for (const declarator of named(node)) {
        if (declarator.type !== 'variable_declarator') continue;
        const name = field(declarator, 'name');
        if (!name) continue;
        if (name.type !== 'identifier') {
          scriptBindings(list, name, exported);
          continue;
        }
        const value = unwrapExpression(field(declarator, 'value'));
        list.add(
          name.text,
          value && FUNCTION_VALUES.has(value.type) ? 'function' : 'variable',
          exported,
          declarator,
        );
        if (value?.type === 'object') scriptMembers(list, name.text, value);
        if (value?.type === 'class') scriptMembers(list, name.text, field(value, 'body'));
      }
      return;
    default:
      return;
  }
}

function scriptStatement(list: SymbolList, statement: SyntaxNode): void {
  switch (statement.type) {
    case 'export_statement': {
      const isDefault = hasChild(statement, 'default');
      const declaration = field(statement, 'declaration');
      if (declaration) {
        scriptDeclaration(list, declaration, true, isDefault);
        return;
      }
      const value = unwrapExpression(field(statement, 'value'));
      if (value) {
        if (value.type === 'identifier') list.add(value.text, 'variable', true, statement);
        const name = fieldText(value, 'name');
        if (name) scriptDeclaration(list, value, true, false);
        list.add('default', FUNCTION_VALUES.has(value.type) ? 'function' : 'variable', true, statement);
        return;
      }
      for (const child of named(statement)) {
        if (child.type === 'export_clause') {
          for (const specifier of named(child)) {
            const alias = fieldText(specifier, 'alias') ?? fieldText(specifier, 'name');
            if (alias) list.add(unquote(alias), 'variable', true, specifier);
          }
        } else if (child.type === 'namespace_export') {
          const name = named(child)[0];
          if (name) list.add(unquote(name.text), 'namespace', true, statement);
        }
      }
      return;
    }
    case 'import_statement': {
      const source = field(statement, 'source');
      for (const child of named(statement)) {
        if (child.type === 'import_require_clause') {
          const name = named(child)[0];
          if (name) list.add(name.text, 'import', false, statement);
          const required = field(child, 'source');
          if (required) list.add(unquote(required.text), 'import', false, statement);
        } else if (child.type === 'import_clause') {
          for (const part of named(child)) {
            if (part.type === 'identifier') list.add(part.text, 'import', false, statement);
            else if (part.type === 'namespace_import')
              list.add(named(part)[0]?.text, 'import', false, statement);
            else if (part.type === 'named_imports')
              for (const specifier of named(part)) {
                const local = fieldText(specifier, 'alias') ?? fieldText(specifier, 'name');
                if (local) list.add(unquote(local), 'import', false, specifier);
              }
          }
        }
      }
      if (source) list.add(unquote(source.text), 'import', false, statement);
      return;
    }
    case 'expression_statement': {
      const expression = named(statement)[0];
      if (expression?.type === 'internal_module') {
        scriptDeclaration(list, expression, false, false);
        return;
      }
      if (expression?.type !== 'assignment_expression') return;
      // CommonJS: `module.exports.x = …`, `exports.x = …`, `module.exports = { x }`.
      const target = field(expression, 'left')?.text ?? '';
      const right = unwrapExpression(field(expression, 'right'));
      const exportName = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/.exec(target)?.[1];
      if (exportName)
        list.add(
          exportName,
          right && FUNCTION_VALUES.has(right.type) ? 'function' : 'variable',
          true,
          statement,
        );
      if (target === 'module.exports' && right?.type === 'object') {
        for (const property of named(right)) {
          const key =
            property.type === 'shorthand_property_identifier'
              ? property.text
              : property.type === 'pair' || property.type === 'method_definition'
                ? (fieldText(property, 'key') ?? fieldText(property, 'name'))
                : undefined;
          if (key) list.add(unquote(key), 'variable', true, property);
        }
      }
      return;
    }
    default:
      scriptDeclaration(list, statement, false, false);
  }
}

function scriptSymbols(root: SyntaxNode): FoundSymbol[] {
  const list = new SymbolList();
  for (const statement of named(root)) scriptStatement(list, statement);
  // Names exported by `export { a }` lists mark their local declarations as exported too.
  const exportedNames = new Set(
    list.symbols.filter((symbol) => symbol.exported).map((symbol) => symbol.name),
  );
  for (const symbol of list.symbols) if (exportedNames.has(symbol.name)) symbol.exported = true;
  return list.symbols;
}

// ---------------------------------------------------------------------------------------------
// Python

const PYTHON_COMPOUND = new Set([
  'if_statement',
  'elif_clause',
  'else_clause',
  'try_statement',
  'except_clause',
  'except_group_clause',
  'finally_clause',
  'with_statement',
]);

function pythonSymbols(root: SyntaxNode): FoundSymbol[] {
  const list = new SymbolList();
  let dunderAll: Set<string> | undefined;
  const visible = (name: string) => !name.startsWith('_');
  function visitBlock(block: SyntaxNode, owner: string | undefined, inFunction: boolean): void {
    for (const statement of named(block)) {
      const definition =
        statement.type === 'decorated_definition' ? field(statement, 'definition') : statement;
      if (!definition) continue;
      if (definition.type === 'function_definition') {
        const name = fieldText(definition, 'name');
        if (owner !== undefined) list.method(owner, name, false, definition);
        else list.add(name, 'function', !inFunction && name !== undefined && visible(name), definition);
        const body = field(definition, 'body');
        if (body) visitBlock(body, undefined, true);
      } else if (definition.type === 'class_definition') {
        const name = fieldText(definition, 'name');
        list.add(
          name,
          'class',
          owner === undefined && !inFunction && name !== undefined && visible(name),
          definition,
        );
        const body = field(definition, 'body');
        if (body && name) visitBlock(body, name, false);
      } else if (definition.type === 'type_alias_statement') {
        const name = field(definition, 'left')?.text;
        list.add(name, 'type', owner === undefined && name !== undefined && visible(name), definition);
      } else if (definition.type === 'expression_statement' && !inFunction) {
        for (let assignment = named(definition)[0]; assignment?.type === 'assignment'; ) {
          const left = field(assignment, 'left');
          if (left?.type === 'identifier') {
            const name = left.text;
            list.add(
              owner ? `${owner}.${name}` : name,
              'variable',
              owner === undefined && visible(name),
              assignment,
            );
            if (name === '__all__' && owner === undefined) {
              dunderAll = new Set(
                field(assignment, 'right')
                  ?.descendantsOfType('string_content')
                  .flatMap((item) => (item ? [item.text] : [])),
              );
            }
          }
          const right = field(assignment, 'right');
          assignment = right?.type === 'assignment' ? right : undefined;
        }
      } else if (definition.type === 'import_statement' || definition.type === 'import_from_statement') {
        const module = field(definition, 'module_name');
        if (module) list.add(module.text, 'import', false, definition);
        for (const name of definition.childrenForFieldName('name')) {
          if (!name) continue;
          const local = name.type === 'aliased_import' ? fieldText(name, 'alias') : name.text;
          list.add(local, 'import', false, definition);
          if (name.type === 'aliased_import') list.add(fieldText(name, 'name'), 'import', false, definition);
        }
      } else if (PYTHON_COMPOUND.has(definition.type)) {
        // Conditional definitions (`if TYPE_CHECKING:`, `try: import x except ImportError: …`).
        visitCompound(definition, owner, inFunction);
      }
    }
  }
  function visitCompound(node: SyntaxNode, owner: string | undefined, inFunction: boolean): void {
    for (const child of named(node)) {
      if (child.type === 'block') visitBlock(child, owner, inFunction);
      else if (PYTHON_COMPOUND.has(child.type)) visitCompound(child, owner, inFunction);
    }
  }
  visitBlock(root, undefined, false);
  if (dunderAll) {
    const listed = dunderAll;
    for (const symbol of list.symbols)
      if (symbol.declaration !== 'import' && !symbol.name.includes('.'))
        symbol.exported = listed.has(symbol.name);
  }
  return list.symbols;
}

// ---------------------------------------------------------------------------------------------
// Go

function goSymbols(root: SyntaxNode): FoundSymbol[] {
  const list = new SymbolList();
  const exported = (name: string | undefined) => name !== undefined && /^\p{Lu}/u.test(name);
  for (const node of named(root)) {
    switch (node.type) {
      case 'function_declaration': {
        const name = fieldText(node, 'name');
        list.add(name, 'function', exported(name), node);
        break;
      }
      case 'method_declaration': {
        const name = fieldText(node, 'name');
        const receiver = field(node, 'receiver')?.descendantsOfType('type_identifier')[0]?.text;
        list.method(receiver, name, exported(name), node);
        break;
      }
      case 'type_declaration':
        for (const spec of named(node)) {
          const name = fieldText(spec, 'name');
          const type = field(spec, 'type')?.type;
          const declaration: Declaration =
            type === 'struct_type' ? 'struct' : type === 'interface_type' ? 'interface' : 'type';
          list.add(name, declaration, exported(name), spec);
        }
        break;
      case 'const_declaration':
      case 'var_declaration':
        for (const spec of node.descendantsOfType(['const_spec', 'var_spec'])) {
          if (!spec) continue;
          for (const name of spec.childrenForFieldName('name'))
            if (name) list.add(name.text, 'variable', exported(name.text), spec);
        }
        break;
      case 'import_declaration':
        for (const spec of node.descendantsOfType('import_spec')) {
          if (!spec) continue;
          const path = fieldText(spec, 'path');
          if (path) list.add(unquote(path), 'import', false, spec);
          list.add(
            fieldText(spec, 'name') ??
              unquote(path ?? '')
                .split('/')
                .pop(),
            'import',
            false,
            spec,
          );
        }
        break;
      default:
        break;
    }
  }
  return list.symbols;
}

// ---------------------------------------------------------------------------------------------
// Rust

function rustSymbols(root: SyntaxNode): FoundSymbol[] {
  const list = new SymbolList();
  const isPub = (node: SyntaxNode) => hasChild(node, 'visibility_modifier');
  const visit = (container: SyntaxNode, owner: string | undefined, traitImpl: boolean) => {
    for (const node of named(container)) {
      const name = fieldText(node, 'name');
      switch (node.type) {
        case 'function_item':
        case 'function_signature_item':
          if (owner !== undefined) list.method(owner, name, isPub(node) || traitImpl, node);
          else list.add(name, 'function', isPub(node), node);
          break;
        case 'struct_item':
        case 'union_item':
          list.add(name, 'struct', isPub(node), node);
          break;
        case 'enum_item':
          list.add(name, 'enum', isPub(node), node);
          break;
        case 'trait_item': {
          list.add(name, 'interface', isPub(node), node);
          const body = field(node, 'body');
          if (body && name) visit(body, name, isPub(node));
          break;
        }
        case 'type_item':
          list.add(name, 'type', isPub(node), node);
          break;
        case 'const_item':
        case 'static_item':
          list.add(name, 'variable', isPub(node), node);
          break;
        case 'macro_definition':
          list.add(name, 'function', true, node);
          break;
        case 'mod_item': {
          list.add(name, 'namespace', isPub(node), node);
          const body = field(node, 'body');
          if (body) visit(body, undefined, false);
          break;
        }
        case 'impl_item': {
          const type = field(node, 'type');
          const typeName = type?.type === 'generic_type' ? fieldText(type, 'type') : type?.text;
          const body = field(node, 'body');
          if (body) visit(body, typeName, field(node, 'trait') !== undefined);
          break;
        }
        case 'use_declaration':
          for (const identifier of node.descendantsOfType('identifier')) {
            if (identifier && identifier.parent?.type !== 'scoped_identifier')
              list.add(identifier.text, 'import', false, node);
            else if (identifier && field(identifier.parent as SyntaxNode, 'name')?.id === identifier.id)
              list.add(identifier.text, 'import', false, node);
          }
          list.add(field(node, 'argument')?.text, 'import', false, node);
          break;
        default:
          break;
      }
    }
  };
  visit(root, undefined, false);
  return list.symbols;
}

// ---------------------------------------------------------------------------------------------
// Java and C# (classes with members; `public` is the surface)

const JAVA_LIKE_TYPES: Readonly<Record<string, Declaration>> = {
  class_declaration: 'class',
  record_declaration: 'class',
  interface_declaration: 'interface',
  annotation_type_declaration: 'interface',
  enum_declaration: 'enum',
  struct_declaration: 'struct',
  record_struct_declaration: 'struct',
};

function javaLikeSymbols(root: SyntaxNode): FoundSymbol[] {
  const list = new SymbolList();
  const isPublic = (node: SyntaxNode) =>
    named(node).some(
      (child) => (child.type === 'modifiers' || child.type === 'modifier') && /\bpublic\b/.test(child.text),
    );
  const visit = (container: SyntaxNode, owner: string | undefined) => {
    for (const node of named(container)) {
      const name = fieldText(node, 'name');
      const typeDeclaration = JAVA_LIKE_TYPES[node.type];
      if (typeDeclaration) {
        list.add(name, typeDeclaration, isPublic(node), node);
        const body = field(node, 'body');
        if (body && name) visit(body, name);
        continue;
      }
      switch (node.type) {
        case 'method_declaration':
        case 'constructor_declaration':
        case 'property_declaration':
          if (node.type === 'property_declaration')
            list.add(owner ? `${owner}.${name}` : name, 'variable', isPublic(node), node);
          else list.method(owner, name, isPublic(node), node);
          break;
        case 'delegate_declaration':
          list.add(name, 'type', isPublic(node), node);
          break;
        case 'field_declaration':
        case 'constant_declaration':
          for (const declarator of node.descendantsOfType('variable_declarator')) {
            const variable = declarator ? fieldText(declarator, 'name') : undefined;
            if (declarator && variable) {
              list.add(variable, 'variable', isPublic(node), declarator);
              if (owner) list.add(`${owner}.${variable}`, 'variable', isPublic(node), declarator);
            }
          }
          break;
        case 'enum_body_declarations':
        case 'declaration_list':
          visit(node, owner);
          break;
        case 'namespace_declaration':
        case 'file_scoped_namespace_declaration': {
          list.add(name, 'namespace', true, node);
          const body = field(node, 'body');
          if (body) visit(body, undefined);
          break;
        }
        case 'import_declaration':
        case 'using_directive': {
          const alias = field(node, 'name');
          const path = named(node)
            .filter((child) => child.id !== alias?.id)
            .pop()?.text;
          if (path) {
            list.add(path, 'import', false, node);
            list.add(path.split('.').pop(), 'import', false, node);
          }
          if (alias) list.add(alias.text, 'import', false, node);
          break;
        }
        default:
          break;
      }
    }
  };
  visit(root, undefined);
  return list.symbols;
}

// ---------------------------------------------------------------------------------------------
// C++, Ruby, PHP, shell

function declaratorName(node: SyntaxNode | undefined): string | undefined {
  let current = node;
  while (
    current &&
    ![
      'identifier',
      'field_identifier',
      'qualified_identifier',
      'operator_name',
      'destructor_name',
      'type_identifier',
    ].includes(current.type)
  ) {
    current = field(current, 'declarator') ?? undefined;
  }
  if (current?.type === 'qualified_identifier') return current.text.replace(/\s+/g, '');
  return current?.text;
}

function cppSymbols(root: SyntaxNode): FoundSymbol[] {
  const list = new SymbolList();
  const visit = (container: SyntaxNode, owner: string | undefined) => {
    for (const node of named(container)) {
      switch (node.type) {
        case 'function_definition':
        case 'declaration':
        case 'field_declaration': {
          const declarator = field(node, 'declarator');
          const isFunction =
            declarator?.type === 'function_declarator' ||
            declarator?.descendantsOfType('function_declarator').length;
          const name = declaratorName(declarator);
          if (!name) break;
          if (name.includes('::')) {
            const parts = name.split('::');
            list.method(parts.at(-2), parts.at(-1), true, node);
          } else if (isFunction) {
            if (owner !== undefined) list.method(owner, name, true, node);
            else list.add(name, 'function', true, node);
          } else if (node.type !== 'declaration' || owner === undefined) {
            list.add(owner ? `${owner}.${name}` : name, 'variable', true, node);
          }
          break;
        }
        case 'class_specifier':
        case 'struct_specifier': {
          const name = fieldText(node, 'name');
          list.add(name, node.type === 'class_specifier' ? 'class' : 'struct', true, node);
          const body = field(node, 'body');
          if (body && name) visit(body, name);
          break;
        }
        case 'enum_specifier':
          list.add(fieldText(node, 'name'), 'enum', true, node);
          break;
        case 'alias_declaration':
          list.add(fieldText(node, 'name'), 'type', true, node);
          break;
        case 'type_definition':
          list.add(declaratorName(field(node, 'declarator')), 'type', true, node);
          break;
        case 'namespace_definition': {
          list.add(fieldText(node, 'name'), 'namespace', true, node);
          const body = field(node, 'body');
          if (body) visit(body, undefined);
          break;
        }
        case 'template_declaration':
        case 'linkage_specification':
        case 'declaration_list':
          visit(node, owner);
          break;
        case 'preproc_include': {
          const path = fieldText(node, 'path');
          if (path) list.add(path.replace(/^[<"]|[>"]$/g, ''), 'import', false, node);
          break;
        }
        default:
          if (node.type.startsWith('preproc_')) visit(node, owner);
          break;
      }
    }
  };
  visit(root, undefined);
  return list.symbols;
}

function rubySymbols(root: SyntaxNode): FoundSymbol[] {
  const list = new SymbolList();
  const visit = (container: SyntaxNode, owner: string | undefined) => {
    for (const node of named(container)) {
      const name = fieldText(node, 'name');
      switch (node.type) {
        case 'method':
        case 'singleton_method':
          if (owner !== undefined) list.method(owner, name, !name?.startsWith('_'), node);
          else list.add(name, 'function', true, node);
          break;
        case 'class':
        case 'module': {
          list.add(name, node.type === 'class' ? 'class' : 'namespace', true, node);
          const body = field(node, 'body');
          if (body && name) visit(body, name);
          break;
        }
        case 'assignment': {
          const left = field(node, 'left');
          if (left?.type === 'constant')
            list.add(owner ? `${owner}.${left.text}` : left.text, 'variable', true, node);
          if (left?.type === 'constant' && owner) list.add(left.text, 'variable', true, node);
          break;
        }
        case 'call': {
          const method = fieldText(node, 'method');
          if (method === 'require' || method === 'require_relative') {
            const required = node.descendantsOfType('string_content')[0]?.text;
            list.add(required, 'import', false, node);
          }
          break;
        }
        case 'body_statement':
          visit(node, owner);
          break;
        default:
          break;
      }
    }
  };
  visit(root, undefined);
  return list.symbols;
}

function phpSymbols(root: SyntaxNode): FoundSymbol[] {
  const list = new SymbolList();
  const PHP_TYPES: Readonly<Record<string, Declaration>> = {
    class_declaration: 'class',
    interface_declaration: 'interface',
    trait_declaration: 'class',
    enum_declaration: 'enum',
  };
  const visit = (container: SyntaxNode, owner: string | undefined) => {
    for (const node of named(container)) {
      const name = fieldText(node, 'name');
      const typeDeclaration = PHP_TYPES[node.type];
      if (typeDeclaration) {
        list.add(name, typeDeclaration, true, node);
        const body = field(node, 'body');
        if (body && name) visit(body, name);
        continue;
      }
      switch (node.type) {
        case 'function_definition':
          list.add(name, 'function', true, node);
          break;
        case 'method_declaration': {
          const visibility =
            named(node).find((child) => child.type === 'visibility_modifier')?.text ?? 'public';
          list.method(owner, name, visibility === 'public', node);
          break;
        }
        case 'const_declaration':
          for (const element of named(node)) {
            const constant = named(element)[0]?.text;
            if (constant) list.add(owner ? `${owner}.${constant}` : constant, 'variable', true, element);
            if (constant && owner) list.add(constant, 'variable', true, element);
          }
          break;
        case 'namespace_definition': {
          list.add(name, 'namespace', true, node);
          const body = field(node, 'body');
          if (body) visit(body, undefined);
          break;
        }
        case 'namespace_use_declaration':
          for (const clause of named(node)) {
            const target = named(clause)[0]?.text;
            if (target) {
              list.add(target, 'import', false, clause);
              list.add(target.split('\\').pop(), 'import', false, clause);
            }
            const alias = fieldText(clause, 'alias');
            if (alias) list.add(alias, 'import', false, clause);
          }
          break;
        case 'declaration_list':
        case 'compound_statement':
          visit(node, owner);
          break;
        default:
          break;
      }
    }
  };
  visit(root, undefined);
  return list.symbols;
}

function bashSymbols(root: SyntaxNode): FoundSymbol[] {
  const list = new SymbolList();
  for (const node of named(root)) {
    if (node.type === 'function_definition') list.add(fieldText(node, 'name'), 'function', true, node);
    else if (node.type === 'variable_assignment') list.add(fieldText(node, 'name'), 'variable', true, node);
  }
  return list.symbols;
}

const EXTRACTORS: Readonly<Record<CodeLanguage, (root: SyntaxNode) => FoundSymbol[]>> = {
  javascript: scriptSymbols,
  typescript: scriptSymbols,
  tsx: scriptSymbols,
  python: pythonSymbols,
  go: goSymbols,
  rust: rustSymbols,
  java: javaLikeSymbols,
  'c-sharp': javaLikeSymbols,
  cpp: cppSymbols,
  ruby: rubySymbols,
  php: phpSymbols,
  bash: bashSymbols,
};

const parsedCache = new Map<string, { text: string; symbols: FoundSymbol[] }>();

/**
 * Lists the declarations of a source file from its syntax tree (tree-sitter; names inside
 * strings and comments are never declarations): functions (including `const f = () => …`),
 * classes, structs, traits/interfaces, types, enums, methods (also as `Owner.method`), variables
 * and constants, imports, and what the file exports. Resolves to `[]` for a file it cannot parse
 * (check {@link canFindSymbols} first). Results are cached by file name and text.
 *
 * @example
 * await listSymbols('auth.go', 'package auth\nfunc Validate() {}\n');
 * // [{ name: 'Validate', declaration: 'function', exported: true, line: 2 }]
 */
export async function listSymbols(fileName: string, text: string): Promise<FoundSymbol[]> {
  const cached = parsedCache.get(fileName);
  if (cached && cached.text === text) return cached.symbols;
  const symbols =
    (await withSyntaxTree(fileName, text, (root, language) => EXTRACTORS[language](root))) ?? [];
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
 * Rust, Java, C#, C++, Ruby, PHP, shell). `kind: 'export'` means any exported name; `any` any
 * declaration or import. Resolves to the declaration found, or undefined — also for a language
 * it cannot parse, so callers check {@link canFindSymbols} first and report such claims as
 * uncheckable, never as passing.
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
