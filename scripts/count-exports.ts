/**
 * Counts the names each package root (`packages/<name>/src/index.ts`) exports, runtime values and
 * types alike, using the TypeScript compiler API, and prints one line per package plus the total.
 *
 * `tsx scripts/count-exports.ts` prints counts; `--list` also prints every exported name, tagged
 * `value` or `type`; `--json` prints `{ packages: { <folder>: string[] }, total }`; `--unnamed`
 * lists the types of a package that its root's exported declarations mention (directly or through
 * other such types) but that the root does not export, so users could not name them.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** The repository root. */
const repoRoot = join(import.meta.dirname, '..');

/** One exported name of a package root and whether it exists at runtime. */
export interface ExportedName {
  name: string;
  kind: 'value' | 'type';
}

/** Every package root (`packages/<folder>/src/index.ts`) in the workspace, by folder name. */
export function packageRoots(): { folder: string; entry: string }[] {
  const packagesDir = join(repoRoot, 'packages');
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ folder: entry.name, entry: join(packagesDir, entry.name, 'src', 'index.ts') }))
    .filter((root) => existsSync(root.entry))
    .sort((a, b) => a.folder.localeCompare(b.folder));
}

/** Lists the names exported from each given entry file (re-exports followed), sorted by name. */
export function listExports(entries: readonly string[]): Map<string, ExportedName[]> {
  const { checker, program } = createProgram(entries);
  const result = new Map<string, ExportedName[]>();
  for (const entry of entries) {
    const names = rootSymbols(checker, program, entry).map((symbol): ExportedName => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return { name: symbol.name, kind: target.flags & ts.SymbolFlags.Value ? 'value' : 'type' };
    });
    result.set(
      entry,
      names.sort((a, b) => a.name.localeCompare(b.name)),
    );
  }
  return result;
}

/**
 * The types declared in an entry's package (its `src/`) that the entry's exported declarations
 * mention, directly or through other such types, but that the entry does not export: `Name (file)`.
 */
export function listUnnamedTypes(entries: readonly string[]): Map<string, string[]> {
  const { checker, program } = createProgram(entries);
  const result = new Map<string, string[]>();
  for (const entry of entries) {
    const srcDir = join(entry, '..');
    const exported = new Set(
      rootSymbols(checker, program, entry).map((symbol) =>
        symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol,
      ),
    );
    const seen = new Set<ts.Symbol>();
    const unnamed = new Set<string>();
    const visitDeclarations = (symbol: ts.Symbol): void => {
      if (seen.has(symbol)) return;
      seen.add(symbol);
      for (const declaration of symbol.declarations ?? []) visit(declaration);
    };
    const visit = (node: ts.Node): void => {
      // Function bodies and initialisers are implementation, not surface.
      if (ts.isBlock(node)) return;
      if (ts.isVariableDeclaration(node) && node.type === undefined) return;
      // Private members are not part of a class's declared surface.
      if (ts.isClassElement(node) && (isPrivate(node) || (node.name && ts.isPrivateIdentifier(node.name))))
        return;
      if (
        ts.isTypeReferenceNode(node) ||
        ts.isExpressionWithTypeArguments(node) ||
        ts.isTypeQueryNode(node)
      ) {
        const name = ts.isTypeReferenceNode(node)
          ? node.typeName
          : ts.isTypeQueryNode(node)
            ? node.exprName
            : node.expression;
        let symbol = checker.getSymbolAtLocation(name);
        if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
        const file = symbol?.declarations?.[0]?.getSourceFile().fileName;
        if (symbol && file?.startsWith(srcDir) && !file.includes('node_modules')) {
          // `typeof someSchema` names a value; users name its type through the exported alias.
          const isType = symbol.flags & ts.SymbolFlags.Type && !(symbol.flags & ts.SymbolFlags.TypeParameter);
          if (!exported.has(symbol) && isType) {
            unnamed.add(`${symbol.name} (${file.slice(srcDir.length + 1)})`);
          }
          visitDeclarations(symbol);
        }
      }
      ts.forEachChild(node, visit);
    };
    for (const symbol of exported) visitDeclarations(symbol);
    result.set(entry, [...unnamed].sort());
  }
  return result;
}

function isPrivate(node: ts.ClassElement): boolean {
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((modifier) => modifier.kind === ts.SyntaxKind.PrivateKeyword)
  );
}

function rootSymbols(checker: ts.TypeChecker, program: ts.Program, entry: string): ts.Symbol[] {
  const source = program.getSourceFile(entry);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`Cannot read the exports of ${entry}: it is not a module.`);
  return checker.getExportsOfModule(moduleSymbol);
}

function createProgram(entries: readonly string[]): { checker: ts.TypeChecker; program: ts.Program } {
  const program = ts.createProgram({
    rootNames: [...entries],
    options: {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      customConditions: ['@closedloop/source'],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
  });
  return { checker: program.getTypeChecker(), program };
}

function main(): void {
  const roots = packageRoots();
  if (process.argv.includes('--unnamed')) {
    const unnamed = listUnnamedTypes(roots.map((root) => root.entry));
    for (const root of roots) {
      const names = unnamed.get(root.entry) ?? [];
      console.log(`${root.folder}: ${names.length}`);
      for (const name of names) console.log(`  ${name}`);
    }
    return;
  }
  const exports = listExports(roots.map((root) => root.entry));
  const list = process.argv.includes('--list');
  const json = process.argv.includes('--json');
  let total = 0;
  const byFolder: Record<string, string[]> = {};
  for (const root of roots) {
    const names = exports.get(root.entry) ?? [];
    total += names.length;
    byFolder[root.folder] = names.map((name) => name.name);
    if (json) continue;
    const values = names.filter((name) => name.kind === 'value').length;
    console.log(
      `${root.folder.padEnd(20)} ${String(names.length).padStart(4)}  (${values} values, ${names.length - values} types)`,
    );
    if (list) for (const name of names) console.log(`  ${name.kind.padEnd(5)} ${name.name}`);
  }
  if (json) console.log(JSON.stringify({ packages: byFolder, total }, null, 2));
  else console.log(`${'total'.padEnd(20)} ${String(total).padStart(4)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
