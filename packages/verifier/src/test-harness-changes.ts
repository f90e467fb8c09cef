import path from 'node:path';
import { TEST_FILE } from './workspace-snapshot';

/** Test-runner configuration files: which tests run is decided there. */
const RUNNER_CONFIG =
  /(?:^|\/)(?:pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml|(?:vitest|jest|vite)\.config\.[cm]?[jt]s|jest\.config\.json|\.mocharc(?:\.\w+)?|\.c8rc(?:\.json)?|ava\.config\.[cm]?js)$/;
/** Settings that choose, filter or skip tests. */
const SELECTION =
  /\b(?:addopts|testpaths|python_files|python_functions|python_classes|norecursedirs|collect_ignore\w*|include|exclude|testMatch|testRegex|testPathIgnorePatterns|testNamePattern|passWithNoTests|spec|ignore|grep|fgrep|bail)\b|--deselect|--ignore|(?:^|\s)-k\s|(?:^|\s)-m\s|-p\s+no:/;

/** A pytest `addopts` line (`addopts = -ra`, `addopts = "-ra -q"`, `addopts = ["-ra"]`). */
const ADDOPTS = /^\s*["']?addopts["']?\s*[=:]\s*(.*)$/;
/**
 * pytest options that change how a run reports, never which tests run or how they are judged:
 * report and traceback formats, verbosity, warnings filters, strictness, stopping early, doctest
 * collection (more tests), coverage reports. Everything else an `addopts` gains (`-k`, `-m`,
 * `--deselect`, `--ignore`, `-p`, `-o`, `--lf`, `--noconftest` …) may choose the tests.
 */
const HARMLESS_ADDOPT =
  /^(?:-n|--tb|-r\w*|-q+|-v+|-s|-l|-x|--capture=\w+|--showlocals|--strict-markers|--strict-config|--strict|--tb=\w+|--durations(?:-min)?=[\d.]+|-W\S*|--color=\w+|--code-highlight=\w+|--import-mode=\w+|--doctest-modules|--doctest-glob=\S+|--maxfail=\d+|--no-header|--no-summary|--verbose|--quiet|-ra|--cov(?:=\S+)?|--cov-report=[\w:./-]+|--cov-branch|--benchmark-disable|--timeout=\d+|-n=?(?:\d+|auto)|--numprocesses=(?:\d+|auto)|--dist=\w+)$/;

/** The options of the `addopts` lines of a configuration text. */
function addoptsTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  for (const line of text.split('\n')) {
    const value = ADDOPTS.exec(line.trim())?.[1];
    if (value === undefined) continue;
    for (const token of value.replace(/[[\]"',]/g, ' ').split(/\s+/)) if (token !== '') tokens.add(token);
  }
  return tokens;
}

/** Whether every option an added `addopts` line brings (not already in `before`) is harmless. */
function addedOptionsHarmless(line: string, before: string): boolean {
  const old = addoptsTokens(before);
  const added = [...addoptsTokens(line)].filter((token) => !old.has(token));
  // `-n 4`, `--tb short`, `-W error::DeprecationWarning`: the value of a harmless option.
  return added.every(
    (token, index) =>
      HARMLESS_ADDOPT.test(token) ||
      (index > 0 &&
        !token.startsWith('-') &&
        /^(?:-n|--tb|-W|--durations|--maxfail|--timeout|--color)$/.test(added[index - 1] ?? '')),
  );
}

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
  if (TEST_FILE.test(file) && before !== undefined) {
    const rebound = reboundNames(file, before, after);
    if (rebound.length > 0)
      problems.push(
        `rebound what ${file} tests: ${rebound
          .slice(0, 3)
          .map(({ name, from }) => `\`${name}\` (imported from \`${from}\`)`)
          .join(
            ', ',
          )} now ${rebound.length > 1 ? 'name definitions' : 'names a definition'} in the test file itself`,
      );
  }
  if (RUNNER_CONFIG.test(file)) {
    const old = new Set((before ?? '').split('\n').map((line) => line.trim()));
    const added = after
      .split('\n')
      .map((line) => line.trim())
      .filter(
        (line) =>
          line !== '' &&
          !old.has(line) &&
          SELECTION.test(line) &&
          !(ADDOPTS.test(line) && addedOptionsHarmless(line, before ?? '')),
      );
    if (added.length > 0) problems.push(`changed which tests run in ${file} (\`${added[0]?.slice(0, 80)}\`)`);
  }
  return problems;
}

const JS_BINDINGS = /\bimport\s+(?:([A-Za-z_$][\w$]*)\s*,?\s*)?(?:\{([^}]*)\})?\s*from\s*['"]([^'"]+)['"]/g;
const PY_BINDINGS = /^from[ \t]+([\w.]+)[ \t]+import[ \t]+(?:\(([^)]*)\)|([^\n#]+))/gm;

/** Local names a test file binds to imports (`import { a, b as c } from './x'` → a, c), by name. */
function importBindings(file: string, text: string): Map<string, string> {
  const bindings = new Map<string, string>();
  const python = /\.py$/.test(file);
  for (const match of text.matchAll(python ? PY_BINDINGS : JS_BINDINGS)) {
    const from = (python ? match[1] : match[3]) ?? '';
    // Only the code under test: relative JS modules; Python modules outside the standard test tools.
    if (!python && !from.startsWith('.')) continue;
    if (
      python &&
      /^(?:pytest|unittest|typing|dataclasses|collections|os|sys|re|json|pathlib)(?:\.|$)/.test(from)
    )
      continue;
    if (!python && match[1]) bindings.set(match[1], from);
    for (const item of ((python ? (match[2] ?? match[3]) : match[2]) ?? '').split(',')) {
      const parts = item.trim().split(/\s+as\s+/);
      const local = (parts[1] ?? parts[0] ?? '').trim().replace(/^type\s+/, '');
      if (/^[A-Za-z_$][\w$]*$/.test(local)) bindings.set(local, from);
    }
  }
  return bindings;
}

/** Whether a file defines `name` itself (a function, a class, a variable or an assignment at line start). */
function definesLocally(file: string, text: string, name: string): boolean {
  const escaped = name.replace(/\$/g, '\\$');
  return /\.py$/.test(file)
    ? new RegExp(
        `^(?:(?:async\\s+)?def|class)\\s+${escaped}\\b|^${escaped}\\s*(?::[^=\\n]+)?=(?!=)`,
        'm',
      ).test(text)
    : new RegExp(
        `^\\s*(?:export\\s+)?(?:(?:const|let|var)\\s+${escaped}\\b|(?:async\\s+)?function\\*?\\s+${escaped}\\s*\\(|class\\s+${escaped}\\b)|^\\s*${escaped}\\s*=(?!=)`,
        'm',
      ).test(text);
}

/**
 * Names a test file used to import from the code under test and now defines itself: the import
 * renamed away or dropped (`import { isPrime as real }` + `const isPrime = …`) or, in Python,
 * shadowed by a later `def` / assignment. The tests then exercise the test file's own stand-in.
 */
function reboundNames(file: string, before: string, after: string): { name: string; from: string }[] {
  const was = importBindings(file, before);
  const now = importBindings(file, after);
  const python = /\.py$/.test(file);
  const rebound: { name: string; from: string }[] = [];
  for (const [name, from] of was) {
    if (definesLocally(file, before, name) || !definesLocally(file, after, name)) continue;
    // JS cannot redeclare an import: the binding must be gone. Python may shadow it.
    if (!python && now.has(name)) continue;
    if (!new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}\\s*\\(`).test(after)) continue;
    rebound.push({ name, from });
  }
  return rebound;
}
