/**
 * Which test files a project's runner collects, read from its configuration: vitest `include`,
 * jest `testMatch`/`testRegex`, mocha `spec`, `node --test` arguments (or its default patterns),
 * pytest `testpaths` and `python_files`. A file the step wrote tests into is judged
 * `collected`, `lost` (no runner the project uses would run it), or `unknown` when the
 * configuration cannot be read precisely (a config computed in code, projects, a custom runner).
 */

/** What {@link testCollection} reads: files at the workspace root, by relative path. */
export type ReadFile = (file: string) => string | undefined;

/** Whether the project's test runner runs a file. */
export type Collection = 'collected' | 'lost' | 'unknown';

/** A glob (`**`, `*`, `?`, `{a,b}`, `[jt]`, `?(x|y)`, `+(x)`, `@(x)`) as a regular expression. */
export function globToRegExp(glob: string): RegExp {
  let source = '';
  const text = glob.replace(/^\.\//, '');
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index] ?? '';
    const next = text[index + 1];
    if (char === '*' && next === '*') {
      index++;
      if (text[index + 1] === '/') {
        index++;
        source += '(?:[^/]*/)*';
      } else source += '.*';
    } else if ('?+@!'.includes(char) && next === '(') {
      index++;
      depth++;
      source += '(?:';
      // the quantifier goes after the group: remembered by a marker
      source += `\u0000${char}`;
    } else if (char === ')' && depth > 0) {
      depth--;
      const open = source.lastIndexOf('\u0000');
      const kind = source[open + 1];
      source = `${source.slice(0, open)}${source.slice(open + 2)})${kind === '?' ? '?' : kind === '+' ? '+' : ''}`;
    } else if (char === '|' && depth > 0) source += '|';
    else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else if (char === '{') source += '(?:';
    else if (char === '}') source += ')';
    else if (char === ',' && source.includes('(?:')) source += '|';
    else if (char === '[') {
      const end = text.indexOf(']', index);
      source += end === -1 ? '\\[' : text.slice(index, end + 1);
      if (end !== -1) index = end;
    } else source += char.replace(/[.+^$()|\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

const matchesAny = (file: string, globs: readonly string[]) =>
  globs.some((glob) => globToRegExp(glob).test(file) || globToRegExp(`**/${glob}`).test(file));

/** String literals in a bracketed list after `key:` (`include: ['src/**\/*.test.ts']`). */
function listAfter(text: string, key: string): string[] | undefined {
  const match = new RegExp(`["']?\\b${key}\\b["']?\\s*[:=]\\s*\\[([^\\]]*)\\]`).exec(text);
  if (match === null) return undefined;
  return [...(match[1] ?? '').matchAll(/["'`]([^"'`]+)["'`]/g)].map((item) => item[1] ?? '');
}

const VITEST_DEFAULT = ['**/*.{test,spec}.?(c|m)[jt]s?(x)'];
const JEST_DEFAULT = ['**/__tests__/**/*.[jt]s?(x)', '**/?(*.)+(spec|test).[jt]s?(x)'];
const MOCHA_DEFAULT = ['test/*.{js,cjs,mjs}'];
const NODE_TEST_PATTERNS = [
  '**/*.test.?(c|m)js',
  '**/*-test.?(c|m)js',
  '**/*_test.?(c|m)js',
  '**/test-*.?(c|m)js',
  '**/test.?(c|m)js',
  '**/test/**/*.?(c|m)js',
];

/** A config computed in code, or one that splits into projects: not read by words. */
const OPAQUE_CONFIG = /\b(?:projects|workspace|dir|root|roots|testPathPattern|require\(|process\.env)\b/;

function jsCollection(file: string, read: ReadFile): Collection {
  const pkgText = read('package.json');
  let pkg: { scripts?: Record<string, string>; jest?: Record<string, unknown>; mocha?: unknown } = {};
  try {
    pkg = pkgText === undefined ? {} : JSON.parse(pkgText);
  } catch {
    return 'unknown';
  }
  const script = pkg.scripts?.test;
  const configOf = (names: string[]) => names.map(read).find((text) => text !== undefined);
  const verdicts: Collection[] = [];
  const vitest = configOf([
    'vitest.config.ts',
    'vitest.config.mts',
    'vitest.config.js',
    'vitest.config.mjs',
    'vite.config.ts',
    'vite.config.js',
  ]);
  if (vitest !== undefined || (script !== undefined && /\bvitest\b/.test(script))) {
    if (vitest !== undefined && OPAQUE_CONFIG.test(vitest)) return 'unknown';
    const include = vitest !== undefined ? listAfter(vitest, 'include') : undefined;
    verdicts.push(matchesAny(file, include ?? VITEST_DEFAULT) ? 'collected' : 'lost');
  }
  const jestFile = configOf(['jest.config.js', 'jest.config.ts', 'jest.config.cjs', 'jest.config.mjs']);
  const jest = jestFile ?? (pkg.jest !== undefined ? JSON.stringify(pkg.jest) : undefined);
  if (jest !== undefined || (script !== undefined && /\bjest\b/.test(script))) {
    if (jest !== undefined && OPAQUE_CONFIG.test(jest)) return 'unknown';
    const testMatch = jest !== undefined ? listAfter(jest, 'testMatch') : undefined;
    const testRegex =
      jest !== undefined ? /["']?testRegex["']?\s*:\s*["'`]([^"'`]+)["'`]/.exec(jest)?.[1] : undefined;
    if (testRegex !== undefined) {
      try {
        verdicts.push(new RegExp(testRegex.replace(/\\\\/g, '\\')).test(file) ? 'collected' : 'lost');
      } catch {
        return 'unknown';
      }
    } else verdicts.push(matchesAny(file, testMatch ?? JEST_DEFAULT) ? 'collected' : 'lost');
  }
  if (script !== undefined && /\bmocha\b/.test(script)) {
    const rc = configOf(['.mocharc.json', '.mocharc.yml', '.mocharc.yaml', '.mocharc.js', '.mocharc.cjs']);
    const args = (script.split(/\bmocha\b/)[1] ?? '')
      .split(/\s+|&&|;/)
      .filter((arg) => arg !== '' && !arg.startsWith('-'));
    const spec =
      rc !== undefined
        ? (listAfter(rc, 'spec') ?? /spec\s*:\s*["']?([^"'\n]+)/.exec(rc)?.[1]?.split(','))
        : undefined;
    const globs =
      args.length > 0 ? args.map((arg) => arg.replace(/^["']|["']$/g, '')) : (spec ?? MOCHA_DEFAULT);
    const recursive = /--recursive/.test(script) || /recursive/.test(rc ?? '');
    const expanded = globs.flatMap((glob) =>
      /[*?{[]|\.[cm]?[jt]sx?$/.test(glob)
        ? [glob]
        : [`${glob.replace(/\/$/, '')}/${recursive ? '**/' : ''}*.{js,cjs,mjs,ts}`],
    );
    verdicts.push(matchesAny(file, expanded) ? 'collected' : 'lost');
  }
  if (script !== undefined && /\bnode\s+(?:[^&;|]*\s)?--test\b/.test(script)) {
    const after = (script.split(/--test\b/)[1] ?? '').split(/&&|;|\|/)[0] ?? '';
    const args = after.split(/\s+/).filter((arg) => arg !== '' && !arg.startsWith('-'));
    if (args.length === 0) verdicts.push(matchesAny(file, NODE_TEST_PATTERNS) ? 'collected' : 'lost');
    else {
      // Node 20: a file argument runs that file; a folder runs the default patterns under it.
      const hit = args.some((arg) => {
        const clean = arg.replace(/^["']|["']$/g, '').replace(/^\.\//, '');
        if (clean === file) return true;
        if (/[*?{[]/.test(clean)) return globToRegExp(clean).test(file);
        const folder = clean.replace(/\/$/, '');
        if (!file.startsWith(`${folder}/`)) return false;
        const inner = file.slice(folder.length + 1);
        return matchesAny(inner, NODE_TEST_PATTERNS) || /(?:^|\/)test\//.test(file);
      });
      verdicts.push(hit ? 'collected' : 'lost');
    }
  }
  if (verdicts.length === 0) return 'unknown';
  if (verdicts.includes('collected')) return 'collected';
  // A test script that runs something else too (a custom runner, `tap`, `ava`) may still run it.
  if (
    script !== undefined &&
    /\b(?:ava|tap|uvu|playwright|karma|jasmine|bun\s+test|deno\s+test|tsx|ts-node)\b/.test(script)
  )
    return 'unknown';
  return 'lost';
}

/** A pytest ini-style option's value (`testpaths = a b`, continuation lines included). */
function iniOption(text: string, key: string): string[] | undefined {
  const match = new RegExp(`^\\s*${key}\\s*=\\s*(.*(?:\\n[ \\t]+.*)*)`, 'm').exec(text);
  if (match === null) return undefined;
  const value = match[1] ?? '';
  const list = /^\s*\[/.test(value)
    ? [...value.matchAll(/["']([^"']+)["']/g)].map((item) => item[1] ?? '')
    : value.split(/\s+/);
  return list.filter((item) => item !== '');
}

function pythonCollection(file: string, read: ReadFile): Collection {
  const sections = [
    [read('pytest.ini'), /\[pytest\]([\s\S]*?)(?=^\[|$(?![\s\S]))/m],
    [read('pyproject.toml'), /\[tool\.pytest\.ini_options\]([\s\S]*?)(?=^\[|$(?![\s\S]))/m],
    [read('tox.ini'), /\[pytest\]([\s\S]*?)(?=^\[|$(?![\s\S]))/m],
    [read('setup.cfg'), /\[tool:pytest\]([\s\S]*?)(?=^\[|$(?![\s\S]))/m],
  ] as const;
  let config: string | undefined;
  for (const [text, section] of sections) {
    const found = text !== undefined ? section.exec(text)?.[1] : undefined;
    if (found !== undefined) {
      config = found;
      break;
    }
  }
  if (
    config !== undefined &&
    /\b(?:python_functions|rootdir|confcutdir|addopts\s*=.*(?:--pyargs|-p\s))/.test(config)
  )
    return 'unknown';
  const files = (config !== undefined ? iniOption(config, 'python_files') : undefined) ?? [
    'test_*.py',
    '*_test.py',
  ];
  const paths = config !== undefined ? iniOption(config, 'testpaths') : undefined;
  const base = file.split('/').pop() ?? file;
  const named = files.some((glob) => globToRegExp(glob).test(base));
  const under =
    paths === undefined ||
    paths.some((dir) => {
      const clean = dir.replace(/^\.\//, '').replace(/\/$/, '');
      return clean === '.' || clean === '' || file === clean || file.startsWith(`${clean}/`);
    });
  return named && under ? 'collected' : 'lost';
}

/**
 * Whether the project's test runner collects `file` by its configuration (the files at the
 * workspace root), or whether a command the step ran named it (or a folder holding it).
 */
export function testCollection(
  file: string,
  read: ReadFile,
  commands: readonly (readonly string[])[] = [],
): Collection {
  for (const argv of commands)
    for (const arg of argv.slice(1)) {
      const clean = arg.replace(/^\.\//, '').replace(/\/$/, '');
      if (
        clean !== '' &&
        !clean.startsWith('-') &&
        (file === clean || (file.startsWith(`${clean}/`) && /\.py$/.test(file)))
      )
        return 'collected';
    }
  if (/\.py$/.test(file)) return pythonCollection(file, read);
  if (/\.[cm]?[jt]sx?$/.test(file)) return jsCollection(file, read);
  return 'unknown';
}
