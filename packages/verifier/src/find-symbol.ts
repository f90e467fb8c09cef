import type ts from 'typescript';
import { loadTypeScript } from './load-typescript';

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
  /** What it is: `function`, `method`, `class`, `interface`, `type`, `enum`, `variable`, `import`. */
  declaration:
    | 'function'
    | 'method'
    | 'class'
    | 'interface'
    | 'type'
    | 'enum'
    | 'variable'
    | 'import'
    | 'namespace';
  exported: boolean;
  /** 1-based line. */
  line: number;
}

/** Options of {@link findSymbol}. */
export interface FindSymbolOptions {
  /** File name; its extension picks the parser (ts, tsx, js, jsx, mjs, cjs, mts, cts; `.py` by pattern). */
  fileName: string;
  /** The file's source text. */
  text: string;
  /** The symbol name (`validateToken`, `Auth.validate` for a method, a module path for `import`). */
  name: string;
  kind?: SymbolKind;
  /** Count class and object-literal methods as functions. Default true. */
  includeMethods?: boolean;
}

const SCRIPT_KINDS: Record<string, 'TS' | 'TSX' | 'JS' | 'JSX'> = {
  '.ts': 'TS',
  '.mts': 'TS',
  '.cts': 'TS',
  '.tsx': 'TSX',
  '.js': 'JS',
  '.mjs': 'JS',
  '.cjs': 'JS',
  '.jsx': 'JSX',
};

/** True when {@link findSymbol} can parse files with this name (TS/JS/Python). */
export function canFindSymbols(fileName: string): boolean {
  const extension = extensionOf(fileName);
  return extension in SCRIPT_KINDS || extension === '.py';
}

function extensionOf(fileName: string): string {
  const match = /\.[^./\\]+$/.exec(fileName);
  return match ? match[0].toLowerCase() : '';
}

function hasExportModifier(node: ts.Node): boolean {
  const ts = loadTypeScript();
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  );
}

function hasDefaultModifier(node: ts.Node): boolean {
  const ts = loadTypeScript();
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword)
  );
}

function isFunctionInitializer(node: ts.Expression | undefined): boolean {
  const ts = loadTypeScript();
  if (!node) return false;
  let expression = node;
  while (
    ts.isParenthesizedExpression(expression) ||
    ts.isAsExpression(expression) ||
    ts.isSatisfiesExpression(expression)
  ) {
    expression = expression.expression;
  }
  return ts.isArrowFunction(expression) || ts.isFunctionExpression(expression);
}

const parsedCache = new Map<string, { text: string; symbols: FoundSymbol[] }>();

/**
 * Lists the declarations of a TS/JS file with the TypeScript compiler API (`ts.createSourceFile`,
 * no type checking): functions (including `const f = () => …`), classes and their methods,
 * interfaces, type aliases, enums, variables, imports, and exported names (`export { a as b }`,
 * `export default function f`). Results are cached by file name and text.
 */
export function listSymbols(fileName: string, text: string): FoundSymbol[] {
  const ts = loadTypeScript();
  const cached = parsedCache.get(fileName);
  if (cached && cached.text === text) return cached.symbols;
  const source = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    false,
    ts.ScriptKind[SCRIPT_KINDS[extensionOf(fileName)] ?? 'TS'],
  );
  const symbols: FoundSymbol[] = [];
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
  const add = (name: string, declaration: FoundSymbol['declaration'], exported: boolean, node: ts.Node) =>
    symbols.push({ name, declaration, exported, line: line(node) });

  const visitMembers = (
    owner: string,
    members: ts.NodeArray<ts.ClassElement> | ts.NodeArray<ts.ObjectLiteralElementLike>,
  ) => {
    for (const member of members) {
      if (
        (ts.isMethodDeclaration(member) ||
          ts.isGetAccessorDeclaration(member) ||
          ts.isSetAccessorDeclaration(member) ||
          (ts.isPropertyDeclaration(member) && isFunctionInitializer(member.initializer)) ||
          (ts.isPropertyAssignment(member) && isFunctionInitializer(member.initializer))) &&
        member.name &&
        (ts.isIdentifier(member.name) ||
          ts.isStringLiteral(member.name) ||
          ts.isPrivateIdentifier(member.name))
      ) {
        const memberName = member.name.text;
        add(memberName, 'method', false, member);
        if (owner !== '') add(`${owner}.${memberName}`, 'method', false, member);
      }
    }
  };

  const visitStatement = (statement: ts.Statement, namespaceExported: boolean): void => {
    const exported = namespaceExported || hasExportModifier(statement);
    if (ts.isFunctionDeclaration(statement)) {
      if (statement.name) add(statement.name.text, 'function', exported, statement);
      if (exported && hasDefaultModifier(statement)) add('default', 'function', true, statement);
    } else if (ts.isClassDeclaration(statement)) {
      const className = statement.name?.text ?? '';
      if (className !== '') add(className, 'class', exported, statement);
      if (exported && hasDefaultModifier(statement)) add('default', 'class', true, statement);
      visitMembers(className, statement.members);
    } else if (ts.isInterfaceDeclaration(statement)) {
      add(statement.name.text, 'interface', exported, statement);
    } else if (ts.isTypeAliasDeclaration(statement)) {
      add(statement.name.text, 'type', exported, statement);
    } else if (ts.isEnumDeclaration(statement)) {
      add(statement.name.text, 'enum', exported, statement);
    } else if (ts.isModuleDeclaration(statement)) {
      if (ts.isIdentifier(statement.name)) add(statement.name.text, 'namespace', exported, statement);
      if (statement.body && ts.isModuleBlock(statement.body)) {
        for (const inner of statement.body.statements) visitStatement(inner, false);
      }
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) {
          const isFunction = isFunctionInitializer(declaration.initializer);
          add(declaration.name.text, isFunction ? 'function' : 'variable', exported, declaration);
          if (declaration.initializer) {
            let init: ts.Expression = declaration.initializer;
            while (
              ts.isParenthesizedExpression(init) ||
              ts.isAsExpression(init) ||
              ts.isSatisfiesExpression(init)
            ) {
              init = init.expression;
            }
            if (ts.isObjectLiteralExpression(init)) visitMembers(declaration.name.text, init.properties);
            if (ts.isClassExpression(init)) visitMembers(declaration.name.text, init.members);
          }
        } else {
          // Destructuring: `export const { a, b } = …`
          const visitBinding = (name: ts.BindingName) => {
            if (ts.isIdentifier(name)) add(name.text, 'variable', exported, name);
            else
              for (const element of name.elements)
                if (!ts.isOmittedExpression(element)) visitBinding(element.name);
          };
          visitBinding(declaration.name);
        }
      }
    } else if (ts.isImportDeclaration(statement)) {
      if (ts.isStringLiteral(statement.moduleSpecifier))
        add(statement.moduleSpecifier.text, 'import', false, statement);
      const clause = statement.importClause;
      if (clause?.name) add(clause.name.text, 'import', false, statement);
      if (clause?.namedBindings) {
        if (ts.isNamespaceImport(clause.namedBindings))
          add(clause.namedBindings.name.text, 'import', false, statement);
        else
          for (const element of clause.namedBindings.elements)
            add(element.name.text, 'import', false, element);
      }
    } else if (ts.isImportEqualsDeclaration(statement)) {
      add(statement.name.text, 'import', false, statement);
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements)
          add(element.name.text, 'variable', true, element);
      } else if (statement.exportClause && ts.isNamespaceExport(statement.exportClause)) {
        add(statement.exportClause.name.text, 'namespace', true, statement);
      }
    } else if (ts.isExportAssignment(statement)) {
      add('default', 'variable', true, statement);
      if (ts.isIdentifier(statement.expression)) add(statement.expression.text, 'variable', true, statement);
    } else if (ts.isExpressionStatement(statement)) {
      // CommonJS: `module.exports.x = …`, `exports.x = …`, `module.exports = { x }`.
      const expression = statement.expression;
      if (ts.isBinaryExpression(expression) && expression.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
        const target = expression.left.getText(source);
        const named = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)$/.exec(target);
        if (named?.[1])
          add(named[1], isFunctionInitializer(expression.right) ? 'function' : 'variable', true, statement);
        if (target === 'module.exports' && ts.isObjectLiteralExpression(expression.right)) {
          for (const property of expression.right.properties) {
            if (property.name && ts.isIdentifier(property.name))
              add(property.name.text, 'variable', true, property);
          }
        }
      }
    }
  };

  for (const statement of source.statements) visitStatement(statement, false);
  // Names exported by `export { a }` lists mark their local declarations as exported too.
  const exportedNames = new Set(symbols.filter((symbol) => symbol.exported).map((symbol) => symbol.name));
  for (const symbol of symbols) if (exportedNames.has(symbol.name)) symbol.exported = true;
  if (parsedCache.size > 500) parsedCache.clear();
  parsedCache.set(fileName, { text, symbols });
  return symbols;
}

function listPythonSymbols(text: string): FoundSymbol[] {
  const symbols: FoundSymbol[] = [];
  const lines = text.split('\n');
  lines.forEach((source, index) => {
    const definition = /^(\s*)(?:async\s+)?(def|class)\s+([A-Za-z_]\w*)/.exec(source);
    if (definition?.[2] && definition[3]) {
      const nested = (definition[1] ?? '').length > 0;
      symbols.push({
        name: definition[3],
        declaration: definition[2] === 'class' ? 'class' : nested ? 'method' : 'function',
        exported: !definition[3].startsWith('_'),
        line: index + 1,
      });
      return;
    }
    const assignment = /^([A-Za-z_]\w*)\s*(?::[^=]+)?=(?!=)/.exec(source);
    if (assignment?.[1])
      symbols.push({ name: assignment[1], declaration: 'variable', exported: true, line: index + 1 });
    const imported = /^(?:from\s+([\w.]+)\s+)?import\s+(.+)$/.exec(source);
    if (imported) {
      if (imported[1])
        symbols.push({ name: imported[1], declaration: 'import', exported: false, line: index + 1 });
      for (const part of (imported[2] ?? '').split(',')) {
        const name = part
          .trim()
          .split(/\s+as\s+/)
          .pop()
          ?.replace(/[()]/g, '')
          .trim();
        if (name) symbols.push({ name, declaration: 'import', exported: false, line: index + 1 });
      }
    }
  });
  return symbols;
}

const KIND_MATCHES: Record<Exclude<SymbolKind, 'any' | 'export'>, ReadonlySet<FoundSymbol['declaration']>> = {
  function: new Set(['function', 'method']),
  class: new Set(['class']),
  interface: new Set(['interface']),
  type: new Set(['type', 'enum', 'interface']),
  variable: new Set(['variable', 'function']),
  import: new Set(['import']),
};

/**
 * Looks for a named symbol of a kind in a source file (TS/JS by AST, Python by pattern).
 * `kind: 'export'` means any exported name; `any` any declaration or import. Returns the
 * declaration found, or undefined.
 *
 * @example
 * findSymbol({ fileName: 'auth.ts', text: 'export const validateToken = () => true;', name: 'validateToken', kind: 'function' });
 * // { name: 'validateToken', declaration: 'function', exported: true, line: 1 }
 */
export function findSymbol(options: FindSymbolOptions): FoundSymbol | undefined {
  const kind = options.kind ?? 'any';
  const symbols =
    extensionOf(options.fileName) === '.py'
      ? listPythonSymbols(options.text)
      : listSymbols(options.fileName, options.text);
  const includeMethods = options.includeMethods ?? true;
  return symbols.find((symbol) => {
    if (symbol.name !== options.name) return false;
    if (symbol.declaration === 'method' && !includeMethods) return false;
    if (kind === 'any') return true;
    if (kind === 'export') return symbol.exported;
    return KIND_MATCHES[kind].has(symbol.declaration);
  });
}
