import path from 'node:path';
import { TEST_FILE } from './workspace-snapshot';

/** Test-runner configuration files: which tests run is decided there. */
const RUNNER_CONFIG =
  /(?:^|\/)(?:pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml|(?:vitest|jest|vite)\.config\.[cm]?[jt]s|jest\.config\.json|\.mocharc(?:\.\w+)?|\.c8rc(?:\.json)?|ava\.config\.[cm]?js)$/;
/** Settings that choose, filter or skip tests. */
const SELECTION =
  /\b(?:addopts|testpaths|python_files|python_functions|python_classes|norecursedirs|collect_ignore\w*|include|exclude|testMatch|testRegex|testPathIgnorePatterns|testNamePattern|passWithNoTests|spec|ignore|grep|fgrep|bail)\b|--deselect|--ignore|(?:^|\s)-k\s|(?:^|\s)-m\s|-p\s+no:/;

const JS_IMPORT =
  /\bfrom\s*['"]([^'"]+)['"]|\brequire\(\s*['"]([^'"]+)['"]\s*\)|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;
const PY_IMPORT = /^\s*(?:from\s+([\w.]+)\s+import\s+([\w*, ()]+)|import\s+([\w., ]+))/gm;

/** What a test file imports (module specifiers and, for Python, the imported names). */
function importsOf(file: string, text: string): Set<string> {
  const found = new Set<string>();
  if (/\.py$/.test(file)) {
    for (const match of text.matchAll(PY_IMPORT)) {
      if (match[1])
        for (const name of (match[2] ?? '').split(/[\s,()]+/)) if (name) found.add(`${match[1]}:${name}`);
      if (match[3])
        for (const name of match[3].split(/\s*,\s*/))
          if (name) found.add(name.trim().split(/\s+/)[0] ?? name);
    }
  } else {
    for (const match of text.matchAll(JS_IMPORT)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? match[4];
      if (specifier) found.add(specifier);
    }
  }
  return found;
}

/** Workspace-relative files an import specifier of `file` may name. */
function resolvesTo(file: string, specifier: string): string[] {
  const module = specifier.split(':')[0] ?? specifier;
  if (/\.py$/.test(file)) {
    const base = module.replace(/\./g, '/');
    return [`${base}.py`, `${base}/__init__.py`, path.posix.join(path.posix.dirname(file), `${base}.py`)];
  }
  if (!module.startsWith('.')) return [];
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), module));
  return [
    target,
    ...['.js', '.mjs', '.cjs', '.ts', '.mts', '.tsx', '.jsx'].map((ext) => `${target}${ext}`),
    `${target}/index.js`,
    `${target}/index.ts`,
  ];
}

/**
 * Ways a change can make the tests pass without the code under test passing them: a test file
 * that stops importing what it imported (pointed at a stand-in), a runner configuration that
 * now filters, skips or deselects tests. `before` is undefined for a file the step created.
 */
export function harnessProblems(
  file: string,
  before: string | undefined,
  after: string,
  created: ReadonlySet<string>,
): string[] {
  const problems: string[] = [];
  if (TEST_FILE.test(file) && before !== undefined) {
    const was = importsOf(file, before);
    const now = importsOf(file, after);
    const dropped = [...was].filter((specifier) => !now.has(specifier));
    const added = [...now].filter((specifier) => !was.has(specifier));
    // Retargeted at a file this step created (a stand-in), or no longer importing anything in
    // its place (the code under test defined inside the test). A fixed path to existing code is fine.
    const standIn = added.find((specifier) =>
      resolvesTo(file, specifier).some((target) => created.has(target)),
    );
    if (dropped.length > 0 && (standIn !== undefined || added.length === 0))
      problems.push(
        `changed what ${file} tests: it no longer imports ${dropped
          .slice(0, 3)
          .map((specifier) => `\`${specifier}\``)
          .join(', ')}${standIn !== undefined ? ` but \`${standIn}\`, which this step created` : ''}`,
      );
  }
  if (RUNNER_CONFIG.test(file)) {
    const old = new Set((before ?? '').split('\n').map((line) => line.trim()));
    const added = after
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !old.has(line) && SELECTION.test(line));
    if (added.length > 0) problems.push(`changed which tests run in ${file} (\`${added[0]?.slice(0, 80)}\`)`);
  }
  return problems;
}
