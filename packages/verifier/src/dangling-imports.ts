import path from 'node:path';

/**
 * Half-applied moves: a step takes an export out of a module (moves `formatDate` from utils.js to
 * date.js) and updates some importers but not all. The importers it missed still ask the old
 * module for a name it no longer exports: they break when loaded. Read from JS/TS text: named
 * imports (`import { a, b as c } from './x.js'`, `export { a } from './x'`) of relative modules.
 */

/** JS/TS modules. */
export const SCRIPT_MODULE = /\.(?:[cm]?[jt]sx?)$/;

/** The names a module exports by name (undefined when it re-exports everything: `export * from`). */
export function exportedNames(text: string): Set<string> | undefined {
  if (/^\s*export\s*\*\s*from\b/m.test(text)) return undefined;
  const names = new Set<string>();
  for (const match of text.matchAll(
    /^\s*export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:function\*?|const|let|var|class|abstract\s+class|enum|const\s+enum|type|interface|namespace)\s+([A-Za-z_$][\w$]*)/gm,
  ))
    names.add(match[1] ?? '');
  for (const match of text.matchAll(/^\s*export\s+(?:type\s+)?\{([^}]*)\}/gm))
    for (const item of (match[1] ?? '').split(',')) {
      const name =
        item
          .trim()
          .split(/\s+as\s+/)
          .pop()
          ?.replace(/^type\s+/, '') ?? '';
      if (name !== '') names.add(name);
    }
  return names;
}

/** Named imports of relative modules: `{ names, specifier }` per statement. */
export function namedImports(text: string): { names: string[]; specifier: string; line: number }[] {
  const found: { names: string[]; specifier: string; line: number }[] = [];
  for (const match of text.matchAll(
    /\b(?:import|export)\s+(?:type\s+)?(?:[A-Za-z_$][\w$]*\s*,\s*)?\{([^}]*)\}\s*from\s*['"](\.{1,2}\/[^'"]+)['"]/g,
  )) {
    const names = (match[1] ?? '')
      .split(',')
      .map(
        (item) =>
          item
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]
            ?.trim() ?? '',
      )
      .filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
    found.push({ names, specifier: match[2] ?? '', line: text.slice(0, match.index).split('\n').length });
  }
  return found;
}

/** The workspace file an import specifier names, among `exists`, or undefined. */
export function resolveSpecifier(
  importer: string,
  specifier: string,
  exists: (file: string) => boolean,
): string | undefined {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(importer), specifier));
  const stem = base.replace(/\.[cm]?[jt]sx?$/, '');
  const candidates = [
    base,
    ...['.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts'].map((ext) => `${stem}${ext}`),
    ...['index.ts', 'index.js', 'index.tsx', 'index.mjs'].map((name) => `${base}/${name}`),
  ];
  return candidates.find((candidate) => exists(candidate));
}

/** An import the step's change left pointing at a name its module no longer exports. */
export interface DanglingImport {
  importer: string;
  line: number;
  name: string;
  module: string;
}

/**
 * The named imports, in `importers`, of modules the step changed (`changed`: their text before and
 * after) that ask for a name the module exported before the step and no longer does.
 */
export function danglingImports(
  importers: readonly { file: string; text: string }[],
  changed: ReadonlyMap<string, { before: string; after: string }>,
  exists: (file: string) => boolean,
): DanglingImport[] {
  const found: DanglingImport[] = [];
  const exportsOf = new Map<string, { before: Set<string> | undefined; after: Set<string> | undefined }>();
  for (const { file, text } of importers)
    for (const { names, specifier, line } of namedImports(text)) {
      const module = resolveSpecifier(file, specifier, exists);
      const change = module === undefined ? undefined : changed.get(module);
      if (module === undefined || change === undefined) continue;
      let exported = exportsOf.get(module);
      if (exported === undefined) {
        exported = { before: exportedNames(change.before), after: exportedNames(change.after) };
        exportsOf.set(module, exported);
      }
      const { before, after } = exported;
      if (before === undefined || after === undefined) continue;
      for (const name of names)
        if (before.has(name) && !after.has(name)) found.push({ importer: file, line, name, module });
    }
  return found;
}
