/**
 * Counts the names each package root (`packages/<name>/src/index.ts`) exports, runtime values and
 * types alike, using the TypeScript compiler API, and prints one line per package plus the total.
 *
 * `tsx scripts/count-exports.ts` prints counts; `--list` also prints every exported name, tagged
 * `value` or `type`; `--json` prints `{ packages: { <folder>: string[] }, total }`.
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
  const checker = program.getTypeChecker();
  const result = new Map<string, ExportedName[]>();
  for (const entry of entries) {
    const source = program.getSourceFile(entry);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (!moduleSymbol) throw new Error(`Cannot read the exports of ${entry}: it is not a module.`);
    const names = checker.getExportsOfModule(moduleSymbol).map((symbol): ExportedName => {
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

function main(): void {
  const roots = packageRoots();
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
