/**
 * The subject of a step asked to write tests ("Add tests for isPrime", "Test `parse`"), and
 * whether the tests it wrote ever use it: tests that only import the subject and assert on a
 * stand-in or on constants pass, yet test nothing that was asked.
 */

/** A function, class or method the tests were asked to cover. */
export interface TestSubject {
  /** The name the tests must use (the last segment of `Stack.push`). */
  name: string;
  /**
   * Whether the description names it unmistakably as code (backticks, `camelCase`, `snake_case`,
   * `name()`, `a.b`): then the tests must use it. A plain word ("tests for parse") binds only
   * when a test file imports it.
   */
  strong: boolean;
  /**
   * Named in a list with others ("tests for add, sub and mul"): each must be tested, so one the
   * tests never mention while they use another of the list is a subject left out.
   */
  listed?: true;
}

const SUBJECT = '(`[^`\\n]{1,80}`|[A-Za-z_$][\\w$]*(?:[.#][A-Za-z_$][\\w$]*)*(?:\\(\\))?)';
const PATTERNS = [
  new RegExp(
    `\\b(?:unit\\s+|more\\s+|new\\s+)?tests?\\s+(?:cases?\\s+)?(?:for|of|covering|that\\s+(?:cover|exercise|check))\\s+(?:the\\s+)?${SUBJECT}`,
    'gi',
  ),
  new RegExp(`(?:^|[.;:]\\s*|\\band\\s+)(?:unit[-\\s])?test\\s+${SUBJECT}`, 'gi'),
  new RegExp(`${SUBJECT}\\s+(?:unit\\s+)?tests\\b`, 'g'),
];
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const NOT_CODE = new Set(
  `a an the all any both each every it its this that these those them their my our your new more
  edge corner happy error invalid empty null module modules function functions method methods class
  classes code api file files feature features case cases behavior behaviour logic component
  components page pages endpoint endpoints parser helper helpers utils util and or to in on with
  is are be run unit integration e2e regression snapshot src lib test tests`.split(/\s+/),
);

/** The code the description asks tests for (empty when it names none). */
export function testSubjects(description: string): TestSubject[] {
  const found = new Map<string, TestSubject>();
  for (const [index, pattern] of PATTERNS.entries())
    for (const match of description.matchAll(pattern)) {
      const raw = match[1] ?? '';
      // A path (`tests for src/is-prime.js`) is no function name.
      if (/^[/\\]/.test(description.slice((match.index ?? 0) + match[0].length))) continue;
      const ticked = raw.startsWith('`');
      const text = (ticked ? raw.slice(1, -1) : raw).replace(/\(.*\)$/, '');
      const name = text.split(/[.#]/).pop() ?? '';
      if (!IDENTIFIER.test(name) || NOT_CODE.has(name.toLowerCase())) continue;
      const strong = ticked || /\(\)$/.test(raw) || /[.#]/.test(text) || /[a-z\d][A-Z]|_/.test(name);
      // "Test X" and "X tests" read as code only when X looks like code ("Add tests", "Test the app").
      if (index > 0 && !strong) continue;
      const known = found.get(name);
      found.set(name, {
        name,
        strong: strong || known?.strong === true,
        ...(known?.listed ? { listed: true } : {}),
      });
      // The rest of a list: "tests for add, sub and mul", "tests of `parse` and `format`".
      if (index !== 0) continue;
      const rest = description.slice((match.index ?? 0) + match[0].length);
      const more = new RegExp(String.raw`^(?:\s*,\s*(?:and\s+)?|\s+and\s+)${SUBJECT}`);
      let offset = 0;
      const listed: string[] = [];
      for (let next = more.exec(rest); next !== null; next = more.exec(rest.slice(offset))) {
        offset += next[0].length;
        const item = next[1] ?? '';
        const itemName =
          (item.startsWith('`') ? item.slice(1, -1) : item)
            .replace(/\(.*\)$/, '')
            .split(/[.#]/)
            .pop() ?? '';
        if (!IDENTIFIER.test(itemName) || NOT_CODE.has(itemName.toLowerCase())) break;
        listed.push(itemName);
      }
      if (listed.length === 0) continue;
      for (const itemName of [name, ...listed]) {
        const prior = found.get(itemName);
        found.set(itemName, { name: itemName, strong: prior?.strong ?? false, listed: true });
      }
    }
  return [...found.values()];
}

const escapeName = (text: string) => text.replace(/[$]/g, '\\$');

/** Import statements (JS/TS `import … from`, `require`, Python `import` / `from … import`). */
const IMPORTS =
  /^\s*import\b[\s\S]*?(?:from\s*)?['"][^'"\n]+['"];?[ \t]*$|^\s*(?:const|let|var)\s+[^=\n]+=\s*(?:await\s+)?(?:require|import)\([^)\n]*\)[^\n]*$|^\s*from\s+[\w.]+\s+import\s+(?:\([^)]*\)|[^\n]*)$|^\s*import\s+[\w., ]+(?:\s+as\s+\w+)?[ \t]*$/gm;

/** Comments and plain string literals (a name in a test's title is no use of it). */
const JS_NOISE = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\$]|\\.)*`/g;
const PY_NOISE = /"""[\s\S]*?"""|'''[\s\S]*?'''|#[^\n]*|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g;

/** Uses of `name` that only look at it: its type, arity, name or existence, never its behaviour. */
function metadataUse(name: string): RegExp {
  const id = escapeName(name);
  return new RegExp(
    [
      `\\btypeof\\s+${id}(?![\\w$])`,
      `(?<![\\w$.])${id}\\.(?:length|name|prototype|constructor|__name__|__doc__|__module__)\\b`,
      `(?<![\\w$.])${id}\\s+instanceof\\b`,
      `\\b(?:callable|inspect\\.signature|inspect\\.isfunction|hasattr|type|isinstance)\\(\\s*${id}\\s*[,)]`,
      `\\bexpect\\(\\s*${id}\\s*\\)\\s*\\.(?:not\\.)?(?:toBeDefined|toBeTruthy|toBeInstanceOf|toBeTypeOf|toHaveLength)\\b`,
      `\\bassert(?:\\.ok)?\\(\\s*${id}\\s*\\)`,
      `\\bassert\\s+${id}\\s*$`,
    ].join('|'),
    'gm',
  );
}

/** A module path without `./`, extension or `/index`, to compare two specifiers of one file. */
const moduleKey = (specifier: string) =>
  specifier
    .replace(/^(?:\.\/)+/, '')
    .replace(/\.(?:[cm]?[jt]sx?)$/, '')
    .replace(/\/index$/, '');

/** The text of the call whose `(` is at `open`, to its matching `)` (strings skipped roughly). */
function callText(text: string, open: number): string {
  let depth = 0;
  for (let index = open; index < text.length; index++) {
    const char = text[index];
    if (char === '"' || char === "'" || char === '`') {
      const end = text.indexOf(char, index + 1);
      if (end === -1) break;
      index = end;
    } else if (char === '(') depth++;
    else if (char === ')' && --depth === 0) return text.slice(open, index + 1);
  }
  return text.slice(open);
}

/** Whole-module mocks: `vi.mock('m', …)`, `jest.mock`, `doMock`, `unstable_mockModule`, `mock.module`. */
const MODULE_MOCK =
  /\b(?:(?:vi|jest)\s*\.\s*(?:mock|doMock|unstable_mockModule)|mock\s*\.\s*module)\s*(\()\s*(['"`])([^'"`\n]+)\2/g;
/** A factory that keeps the real module and replaces only some of its exports. */
const KEEPS_ACTUAL = /\b(?:importActual|requireActual|importOriginal)\b|\.\.\.\s*(?:await\s+)?\w+\s*\(\s*\)/;

/**
 * Whether the test replaces the whole module it imports `name` from, so that the tests call the
 * mock: an automock (`vi.mock('../src/sum')` without a factory), a factory that defines `name`,
 * or one that does not keep the real module (`importActual`); in Python, `sys.modules[…]` or
 * `patch.dict(sys.modules, …)` set for the module `name` is imported from.
 */
function mocksOwnModule(text: string, name: string): boolean {
  const id = escapeName(name);
  const word = new RegExp(`(?<![\\w$])${id}(?![\\w$])`);
  const sources = new Set<string>();
  const jsImport =
    /\bimport\s+([^;]*?)\s+from\s*(['"])([^'"\n]+)\2|\b(?:const|let|var)\s+([^=;]+?)=\s*(?:await\s+)?(?:require|import)\s*\(\s*(['"])([^'"\n]+)\5/g;
  for (const match of text.matchAll(jsImport)) {
    const bound = match[1] ?? match[4] ?? '';
    const specifier = match[3] ?? match[6];
    if (specifier !== undefined && word.test(bound)) sources.add(moduleKey(specifier));
  }
  for (const match of text.matchAll(MODULE_MOCK)) {
    const specifier = match[3] ?? '';
    const call = callText(text, (match.index ?? 0) + match[0].indexOf('('));
    const factory = call.slice(call.indexOf(specifier) + specifier.length + 1);
    const hasFactory = /[^\s,)]/.test(factory);
    if (hasFactory && word.test(factory)) return true;
    if (!sources.has(moduleKey(specifier))) continue;
    if (!hasFactory || !KEEPS_ACTUAL.test(factory)) return true;
  }
  const pyModules = [
    ...text.matchAll(new RegExp(`^\\s*from\\s+([\\w.]+)\\s+import\\s+[^\\n]*\\b${id}\\b`, 'gm')),
  ].map((match) => match[1] ?? '');
  return pyModules.some((module) => {
    const quoted = `["']${module.replace(/\./g, '\\.')}["']`;
    return new RegExp(
      `\\bsys\\.modules\\s*\\[\\s*${quoted}\\s*\\]\\s*=(?!=)|\\bpatch\\.dict\\(\\s*(?:sys\\.)?modules\\s*,\\s*\\{[^}]*${quoted}`,
    ).test(text);
  });
}

/** How a test file uses the subject. */
export type SubjectUse = 'used' | 'imported' | 'stand-in' | 'patched' | 'absent';

/**
 * How the test file `fileName` uses `name`: `used` when its code (beyond imports, comments and
 * string literals) refers to it or to the alias an import gives it; `stand-in` when the file
 * defines its own function or variable of that name; `patched` when it replaces it
 * (`@patch("app.calc.add", …)`, `monkeypatch.setattr(calc, "add", …)`,
 * `vi.spyOn(calc, 'add').mockReturnValue(…)`, or a mock of the whole module it is imported from:
 * `vi.mock('../src/calc')`, `jest.mock(…, factory)`, node:test's `mock.module(…)`,
 * `sys.modules["app.calc"] = …`), which names it as code whatever the description says; `imported` when only an import binds it;
 * `absent` otherwise (it may be reached under another name: nothing can tell).
 */
export function subjectUse(fileName: string, text: string, name: string): SubjectUse {
  const wordOf = (identifier: string) => new RegExp(`(?<![\\w$])${escapeName(identifier)}(?![\\w$])`);
  const imports = text.match(IMPORTS) ?? [];
  const code = text.replace(IMPORTS, '').replace(/\.py$/.test(fileName) ? PY_NOISE : JS_NOISE, '""');
  // The names an import binds, not the module it reads (`from src.parse import split`).
  const bound = imports
    .map((line) => line.replace(/(['"])[^'"\n]*\1/g, '').replace(/^\s*from\s+[\w.]+\s+import\b/, ''))
    .join('\n');
  const aliases = [
    ...bound.matchAll(new RegExp(`${escapeName(name)}\\s*(?:\\bas\\b|:)\\s*([A-Za-z_$][\\w$]*)`, 'g')),
  ].map((match) => match[1] as string);
  const standIn = new RegExp(
    `\\b(?:(?:const|let|var)\\s+${escapeName(name)}\\s*[=:]|(?:function\\*?|def|class)\\s+${escapeName(name)}\\b)|^[ \\t]*${escapeName(name)}\\s*=(?!=)`,
    'm',
  );
  if (standIn.test(code)) return 'stand-in';
  // A patch that replaces the subject (`@patch("app.calc.add", …)`, `monkeypatch.setattr(calc,
  // "add", …)`, `vi.spyOn(calc, 'add').mockReturnValue(5)`): the tests call the replacement.
  const quotedName = `["']${escapeName(name)}["']`;
  const patched = new RegExp(
    `\\b(?:mock\\.patch|mocker\\.patch|patch|monkeypatch\\.setattr)\\s*\\(\\s*f?["'](?:[\\w.]+\\.)${escapeName(name)}["']|\\b(?:monkeypatch\\.setattr|(?:mock\\.)?patch\\.object|mocker\\.patch\\.object)\\s*\\(\\s*[\\w.]+\\s*,\\s*${quotedName}|\\b(?:vi|jest|sinon)\\.(?:spyOn|stub)\\s*\\(\\s*[\\w.]+\\s*,\\s*${quotedName}\\s*\\)\\s*\\.\\s*(?:mock(?:ReturnValue|Implementation|ResolvedValue|RejectedValue)|returns|callsFake|resolves)\\w*\\s*\\(`,
  );
  if (patched.test(text) || mocksOwnModule(text, name)) return 'patched';
  // Looking at the subject is not using it: `typeof isPrime`, `isPrime.length`, `callable(parse)`,
  // `expect(isPrime).toBeDefined()` pass for any function of that name.
  const looked = [name, ...aliases].reduce(
    (rest, identifier) => rest.replace(metadataUse(identifier), ' '),
    code,
  );
  if ([name, ...aliases].some((identifier) => wordOf(identifier).test(looked))) return 'used';
  if ([name, ...aliases].some((identifier) => wordOf(identifier).test(code))) return 'imported';
  return wordOf(name).test(bound) ? 'imported' : 'absent';
}
