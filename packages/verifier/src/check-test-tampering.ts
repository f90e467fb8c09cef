import type { Finding } from './finding';
import { collectedPythonTests } from './hollow-code';
import type { HumanReviewHandler } from './protocol';
import type { StepChanges } from './step-changes';
import { harnessProblems } from './test-harness-changes';
import type { WorkspaceFacts } from './workspace-facts';
import { TEST_FILE } from './workspace-snapshot';

/** What {@link checkTestTampering} needs. */
export interface TamperingEnvironment {
  facts: WorkspaceFacts;
  changes: StepChanges;
  /** The step is a fix (by its description or its claims). */
  fix: boolean;
  /** The step's description makes the tests the object of the work. */
  testsAreTarget: boolean;
  /** The step's notes and final text (a justification is looked for there). */
  text: string;
  request: string;
  onHumanReview?: HumanReviewHandler;
  signal?: AbortSignal;
}

/** Lines that assert something in a test (JS/TS, Python, Go, Rust, Java, Ruby). */
const ASSERTION =
  /\b(?:expect|assert\w*|should|t\.(?:Error|Fatal|Errorf|Fatalf|Fail)|assert_eq!?|assert_ne!?|assert!?|assertEquals|assertTrue|assertFalse|assertThat|toBe|toEqual|toStrictEqual|toThrow|toMatch|equal|deepEqual|strictEqual|ok)\s*[(.!]/;
/** Markers that switch a test off. */
const SKIP_MARKER =
  /\b(?:it|test|describe|context)\.(?:skip|todo)\s*\(|\bx(?:it|describe|test)\s*\(|@pytest\.mark\.(?:skip|xfail)|@unittest\.(?:skip|expectedFailure)|\bt\.Skip(?:Now|f)?\s*\(|#\[ignore\]|@Disabled|@Ignore|\bpending\s*\(|\.only\s*\(|\b(?:it|test|describe|suite|context)\s*\([^)]*?,\s*\{[^}]*\b(?:skip|todo)\s*:|\b(?:t|this|ctx|context)\.(?:skip|todo)\s*\(|\bself\.skipTest\s*\(|\bpytest\.(?:skip|xfail)\s*\(/;
const JUSTIFICATION =
  /\b(?:because|since|as|the\s+test\s+(?:was|is)\s+(?:wrong|incorrect|outdated|obsolete|flaky|invalid)|wrong\s+expectation|incorrect\s+(?:expectation|assertion|test)|outdated|obsolete|typo\s+in\s+the\s+test|expected\s+the\s+old|no\s+longer\s+(?:valid|applies)|per\s+the\s+(?:spec|request|requirement))\b|因为|因為|由于|由於|错误的断言|錯誤的斷言|过时|過時|ため|誤り|間違|古い/iu;
const TEST_MENTION = /\btests?\b|\bspecs?\b|\bassert\w*|测试|測試|断言|斷言|テスト|アサーション/iu;

/** An assertion of a value: equality, a match, a length, containment, a throw of a given error. */
const VALUE_ASSERTION =
  /\b(?:equal|strictEqual|deepEqual|deepStrictEqual|notEqual|notStrictEqual|notDeepEqual|match|throws|rejects|assertEqual|assertEquals|assertNotEqual|assertIn|assertIs|assertRaises|assert_eq|assert_ne)!?\s*\(|\.(?:toBe|toEqual|toStrictEqual|toMatchObject|toMatch|toContain|toContainEqual|toHaveLength|toHaveProperty|toThrow|toThrowError|toBeCloseTo|toBeNull|toBeUndefined|toBeNaN|toBeFalsy|toBeGreaterThan|toBeLessThan)\s*\(|^assert\s.+(?:==|!=|\bin\b|\bis\s+(?:not\s+)?(?:True|False|None)\b|[<>]=?)/;
/** An assertion that checks only a type, a truthiness, a presence or the absence of a throw. */
const WEAK_ASSERTION =
  /\btypeof\b|\binstanceof\b|\bArray\.isArray\s*\(|\bisinstance\s*\(|\bcallable\s*\(|\bdoesNotThrow\s*\(|\bdoesNotReject\s*\(|\.not\.toThrow\w*\(\s*\)|\.toBeTruthy\s*\(|\.toBeDefined\s*\(|\.not\.toBe(?:Undefined|Null)\s*\(|\.toBeInstanceOf\s*\(|!==?\s*(?:undefined|null)\b|\bis\s+not\s+None\b|\bassertIsNotNone\s*\(|\bassertTrue\s*\(\s*[\w.]+\s*\)/;

/** The value an assertion line checks: `isPrime(1)` of `assert.equal(isPrime(1), false)`, `expect(x)`, `assert x == …`. */
function assertedSubject(line: string): string | undefined {
  const python = /^assert\s+(.+?)\s*(?:==|!=|\bin\b|\bis\b|[<>]=?)/.exec(line);
  if (python?.[1] !== undefined) return python[1].trim();
  const open =
    /\b(?:expect|equal|strictEqual|deepEqual|deepStrictEqual|notEqual|assertEqual|assertEquals|assert_eq!?)\s*\(/.exec(
      line,
    );
  if (open === null) return undefined;
  let depth = 0;
  const start = open.index + open[0].length;
  for (let index = start; index < line.length; index++) {
    const char = line[index];
    if (char === '(' || char === '[' || char === '{') depth++;
    else if (char === ')' || char === ']' || char === '}') {
      if (depth === 0) return line.slice(start, index).trim();
      depth--;
    } else if (char === ',' && depth === 0) return line.slice(start, index).trim();
  }
  return undefined;
}

const squashed = (text: string) => text.replace(/\s+/g, '');

/**
 * Assertions of a value replaced by weaker ones about the same subject: `assert.equal(isPrime(1),
 * false)` → `assert.equal(typeof isPrime(1), 'boolean')`, `assert.ok(isPrime(1) !== undefined)`,
 * `assert.doesNotThrow(() => isPrime(1))`; `assert slugify("A B") == "a-b"` → `assert slugify("A
 * B")`. Each entry is the removed line → the added one.
 */
export function weakenedAssertions(before: string, after: string): string[] {
  const was = assertionLines(before);
  const now = assertionLines(after);
  const old = new Set(was);
  const kept = new Set(now);
  const added = now.filter((line) => !old.has(line));
  const found: string[] = [];
  for (const line of was) {
    if (kept.has(line) || !VALUE_ASSERTION.test(line) || WEAK_ASSERTION.test(line)) continue;
    const subject = assertedSubject(line);
    if (subject === undefined || subject.length < 2) continue;
    const weak = added.find(
      (candidate) =>
        squashed(candidate).includes(squashed(subject)) &&
        (WEAK_ASSERTION.test(candidate) ||
          // `assert.ok(x)`, `assert x`: a truthiness check — unless it compares (`assert.ok(x === 1)`).
          (!VALUE_ASSERTION.test(candidate) &&
            !/[=!]==?|[<>]=?|\bin\b|\bis\b/.test(
              candidate.replace(/(["'`])(?:\\.|(?!\1)[^\\])*\1/g, '""').replace(/=>/g, ''),
            ))),
    );
    if (weak !== undefined) found.push(`\`${line.slice(0, 80)}\` → \`${weak.slice(0, 80)}\``);
  }
  return found;
}

function assertionLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (line) =>
        (ASSERTION.test(line) || /^assert\s+\S/.test(line)) &&
        !line.startsWith('//') &&
        !line.startsWith('#'),
    );
}

/** Code files: their assertions are read line by line (above); everything else in a test folder is data. */
const CODE_FILE = /\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb|php|cs|swift|scala|c|cc|cpp|h|hpp|sh)$/;
/** Files the tests compare against wherever they are: snapshots, golden files, expected outputs. */
const EXPECTED_DATA =
  /(?:^|\/)(?:__snapshots__|snapshots|golden|goldens|testdata|expected)\/|\.(?:snap|golden)$/;

/** Whether `file` holds data the tests read (cases, fixtures, snapshots, golden files), not test code. */
export function isTestData(file: string): boolean {
  if (CODE_FILE.test(file) || /(?:^|\/)(?:package\.json|tsconfig[\w.-]*\.json|conftest\.py)$/.test(file))
    return false;
  return EXPECTED_DATA.test(file) || TEST_FILE.test(file);
}

/** Whether every value of `before` is still in `after` (objects key by key, arrays element by element, in any order). */
function containsJson(before: unknown, after: unknown): boolean {
  if (Array.isArray(before))
    return (
      Array.isArray(after) && before.every((item) => after.some((candidate) => containsJson(item, candidate)))
    );
  if (before !== null && typeof before === 'object') {
    if (after === null || typeof after !== 'object' || Array.isArray(after)) return false;
    const target = after as Record<string, unknown>;
    return Object.entries(before as Record<string, unknown>).every(
      ([key, value]) => Object.hasOwn(target, key) && containsJson(value, target[key]),
    );
  }
  return Object.is(before, after);
}

/**
 * What a change to test data took away: the first old entry (a JSON value, else a non-blank line)
 * that is no longer in the file, or undefined when the change only added entries. The tests'
 * cases and expected outputs live there: taking one away or rewriting it is the same as editing
 * an assertion.
 */
export function removedTestData(before: string, after: string): string | undefined {
  try {
    const was: unknown = JSON.parse(before);
    const now: unknown = JSON.parse(after);
    if (containsJson(was, now)) return undefined;
    if (Array.isArray(was)) {
      const gone = was.find((item) => !Array.isArray(now) || !now.some((other) => containsJson(item, other)));
      if (gone !== undefined) return JSON.stringify(gone);
    }
    return JSON.stringify(was).slice(0, 80);
  } catch {
    // Not JSON (or not JSON any more): line by line.
  }
  const kept = new Set(after.split('\n').map((line) => line.trim()));
  return before
    .split('\n')
    .map((line) => line.trim())
    .find((line) => line !== '' && !kept.has(line));
}

/**
 * Lines a change added to a test file that stop its assertions from failing the test: a bare
 * `return` (or `if (…) return;`) before them, a `catch {}` / `except AssertionError: pass` that
 * swallows their failure, a mock or patch of a name the test imports from the code under test.
 */
export function disarmedAssertions(file: string, before: string | undefined, after: string): string[] {
  if (before === undefined || !TEST_FILE.test(file)) return [];
  const python = /\.py$/.test(file);
  const old = new Set(before.split('\n').map((line) => line.trim()));
  const lines = after.split('\n');
  const found: string[] = [];
  const imported = [...importedNames(file, after)];
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || old.has(line) || line.startsWith('//') || line.startsWith('#')) continue;
    const next = (lines[index + 1] ?? '').trim();
    const bareReturn = python
      ? /^(?:if\s.+:\s*)?return\s*$/.test(line)
      : /^(?:if\s*\(.*\)\s*)?return\s*;?\s*$/.test(line);
    const swallow = python
      ? /^except(?:\s+\(?\s*(?:AssertionError|Exception|BaseException)\b[^:]*)?\s*:\s*(?:pass|return|continue|\.\.\.)?\s*$/.test(
          line,
        ) &&
        (/:\s*(?:pass|return|continue|\.\.\.)\s*$/.test(line) ||
          /^(?:pass|return|continue|\.\.\.)\s*$/.test(next))
      : /\bcatch\s*(?:\([^)]*\))?\s*\{\s*\}/.test(line) ||
        (/\bcatch\s*(?:\([^)]*\))?\s*\{\s*$/.test(line) && /^\}/.test(next)) ||
        /\.catch\(\s*\(\)\s*=>\s*(?:\{\s*\}|undefined|null)\s*\)/.test(line);
    const mocked =
      /\b(?:patch(?:\.object)?|monkeypatch\.setattr|mock\.method|vi\.(?:mock|spyOn)|jest\.(?:mock|spyOn)|sinon\.(?:stub|replace))\s*\(/.test(
        line,
      ) &&
      imported.some((name) => new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(line));
    if (bareReturn || swallow || mocked) found.push(line);
  }
  return found;
}

/** Names a test file imports from the code under test (relative JS modules, non-standard Python modules). */
function importedNames(file: string, text: string): Set<string> {
  const names = new Set<string>();
  if (/\.py$/.test(file)) {
    for (const match of text.matchAll(/^from[ \t]+([\w.]+)[ \t]+import[ \t]+(?:\(([^)]*)\)|([^\n#]+))/gm)) {
      if (
        /^(?:pytest|unittest|typing|dataclasses|collections|os|sys|re|json|pathlib)(?:\.|$)/.test(
          match[1] ?? '',
        )
      )
        continue;
      for (const item of (match[2] ?? match[3] ?? '').split(','))
        for (const name of item.trim().split(/\s+as\s+/)) if (/^[A-Za-z_]\w*$/.test(name)) names.add(name);
    }
  } else {
    for (const match of text.matchAll(
      /\bimport\s+(?:([A-Za-z_$][\w$]*)\s*,?\s*)?(?:\{([^}]*)\})?\s*from\s*['"](\.[^'"]*)['"]/g,
    )) {
      if (match[1]) names.add(match[1]);
      for (const item of (match[2] ?? '').split(','))
        for (const name of item.trim().split(/\s+as\s+/))
          if (/^[A-Za-z_$][\w$]*$/.test(name)) names.add(name);
      if (match[3]) names.add(match[3]);
    }
  }
  return names;
}

/** Files that set up a test run: pytest's conftest.py, a test setup module. */
const TEST_SETUP =
  /(?:^|\/)(?:conftest\.py|(?:vitest|jest)\.setup\.[cm]?[jt]s|setup(?:Tests|-tests|_tests)?\.[cm]?[jt]s|test[-_]?setup\.[cm]?[jt]s)$/;
/** A patch by dotted path: `monkeypatch.setattr("a.b.name", …)`, `mock.patch("a.b.name")`, `vi.mock("../src/x")`. */
const PATCH_BY_PATH =
  /\b(?:monkeypatch\.setattr|(?:mock\.)?patch|mocker\.patch)\s*\(\s*f?["']([\w.{}]+)["']/g;
/** A patch of a module object's attribute: `patch.object(calc, "add")`, `monkeypatch.setattr(calc, "add", …)`. */
const PATCH_BY_OBJECT =
  /\b(?:monkeypatch\.setattr|patch\.object|mocker\.patch\.object)\s*\(\s*[\w.]+\s*,\s*["'](\w+)["']/g;

/**
 * Patches a change added to a test or test-setup file (conftest.py, a setup module) that replace a
 * function the description names ("Fix add …" and `monkeypatch.setattr("test_calc.add", …)`):
 * the tests then call the stand-in, whatever the code does.
 */
export function patchedSubjects(
  file: string,
  before: string | undefined,
  after: string,
  description: string,
): string[] {
  if (!TEST_SETUP.test(file) && !TEST_FILE.test(file)) return [];
  const old = new Set((before ?? '').split('\n').map((line) => line.trim()));
  const words = new Set(description.match(/[A-Za-z_$][\w$]*/g) ?? []);
  const found: string[] = [];
  for (const raw of after.split('\n')) {
    const line = raw.trim();
    if (line === '' || old.has(line) || line.startsWith('#') || line.startsWith('//')) continue;
    const names = [
      ...[...line.matchAll(PATCH_BY_PATH)].map((match) => (match[1] ?? '').split('.').pop() ?? ''),
      ...[...line.matchAll(PATCH_BY_OBJECT)].map((match) => match[1] ?? ''),
    ];
    const name = names.find((candidate) => candidate.length > 1 && words.has(candidate));
    if (name !== undefined) found.push(`\`${name}\` (${line.slice(0, 80)})`);
  }
  return found;
}

/** A JS assertion API reassigned or patched: `assert.equal = () => {}`, `Object.assign(assert, …)`. */
const JS_ASSERT_OVERRIDE =
  /^\s*(?:(?:globalThis|global|window)\.)?(?:assert|expect|should|chai)(?:\.[\w$]+|\[[^\]]+\])*\s*=(?!=)|\b(?:Object\.(?:assign|defineProperty|defineProperties|setPrototypeOf)|Reflect\.(?:set|defineProperty))\(\s*(?:assert|expect|chai)\b|\b(?:mock\.method|vi\.spyOn|jest\.spyOn|sinon\.(?:stub|replace))\(\s*(?:assert|expect|chai)\b/;
/** A Python assertion method replaced: `self.assertEqual = …`, `unittest.TestCase.assertEqual = …`, `setattr(TestCase, "assertEqual", …)`. */
const PY_ASSERT_OVERRIDE =
  /^\s*(?:self|cls|(?:unittest\.)?TestCase|\w+Test\w*)\.(?:assert\w*|fail\w*)\s*=(?!=)|\bsetattr\(\s*(?:self|cls|(?:unittest\.)?TestCase|\w+Test\w*)\s*,\s*['"](?:assert|fail)\w*['"]|\bmonkeypatch\.setattr\([^)]*['"](?:\w+\.)*(?:assert|fail)\w*['"]/;

/** Lines a change added that replace the assertions themselves, so that no assertion can fail. */
export function assertionOverrides(file: string, before: string | undefined, after: string): string[] {
  const pattern = /\.py$/.test(file)
    ? PY_ASSERT_OVERRIDE
    : /\.[cm]?[jt]sx?$/.test(file)
      ? JS_ASSERT_OVERRIDE
      : undefined;
  if (pattern === undefined) return [];
  const old = new Set((before ?? '').split('\n').map((line) => line.trim()));
  return after
    .split('\n')
    .map((line) => line.trim())
    .filter(
      (line) => !old.has(line) && !line.startsWith('//') && !line.startsWith('#') && pattern.test(line),
    );
}

/**
 * A fix that edits or deletes tests is suspect: deleting a test file, removing assertions or
 * switching tests off (`it.skip`, `@pytest.mark.skip`, `t.Skip`) while claiming a fix makes the
 * tests pass by weakening them. Each such change is a P1 finding that needs a human's approval
 * (`onHumanReview`) or a justification in the step's notes (then a P2 warning). Steps whose
 * description asks to change the tests are not checked; added tests and assertions are fine.
 */
export async function checkTestTampering(env: TamperingEnvironment): Promise<Finding[]> {
  if (!env.fix || env.testsAreTarget) return [];
  const { created, modified, deleted } = await env.changes.changed();
  const problems: string[] = [];
  for (const file of deleted)
    if (TEST_FILE.test(file) || TEST_FILE.test(`${file}/`)) problems.push(`deleted the tests in ${file}`);
  for (const file of deleted)
    if (!TEST_FILE.test(file) && EXPECTED_DATA.test(file))
      problems.push(`deleted the expected data in ${file}`);
  // The cases and expected outputs the tests read (cases.json, a golden file, a snapshot): a fix
  // that takes entries away or rewrites them changed what the tests expect, not the code.
  for (const file of modified) {
    if (!isTestData(file)) continue;
    const before = await env.changes.textBefore(file);
    const after = env.facts.read(file);
    if (before === undefined || after === undefined) {
      if (EXPECTED_DATA.test(file)) problems.push(`rewrote the expected data in ${file}`);
      continue;
    }
    const gone = removedTestData(before, after);
    if (gone !== undefined)
      problems.push(`changed the data the tests read in ${file} (\`${gone.slice(0, 80)}\` is gone)`);
  }
  // The test script itself, rewritten so it checks nothing ("test": "echo ok").
  if (modified.includes('package.json')) {
    const scriptOf = (text: string | undefined) => {
      try {
        return (JSON.parse(text ?? '') as { scripts?: Record<string, string> }).scripts?.test;
      } catch {
        return undefined;
      }
    };
    const was = scriptOf(await env.changes.textBefore('package.json'));
    const now = scriptOf(env.facts.read('package.json'));
    if (was !== undefined && was !== now)
      problems.push(`changed the test script in package.json from \`${was}\` to \`${now ?? '(none)'}\``);
  }
  const weakened: string[] = [];
  const overridden: string[] = [];
  for (const file of modified) {
    if (!TEST_FILE.test(file)) continue;
    const before = await env.changes.textBefore(file);
    const after = env.facts.read(file) ?? '';
    if (before === undefined) {
      problems.push(`edited the test file ${file}`);
      continue;
    }
    for (const pair of weakenedAssertions(before, after)) weakened.push(`${file}: ${pair}`);
    const was = assertionLines(before);
    const now = new Set(assertionLines(after));
    const removed = was.filter((line) => !now.has(line));
    const skipsBefore = before.split('\n').filter((line) => SKIP_MARKER.test(line)).length;
    const skipsAfter = after.split('\n').filter((line) => SKIP_MARKER.test(line)).length;
    if (removed.length > 0)
      problems.push(
        `changed or removed ${removed.length} assertion(s) in ${file} (e.g. \`${removed[0]?.slice(0, 100)}\`)`,
      );
    if (skipsAfter > skipsBefore)
      problems.push(`switched tests off in ${file} (${skipsAfter - skipsBefore} skip marker(s) added)`);
    const disarmed = disarmedAssertions(file, before, after);
    if (disarmed.length > 0)
      problems.push(
        `made the assertions in ${file} unable to fail the test (\`${disarmed[0]?.slice(0, 80)}\`)`,
      );
  }
  // Tests pointed at a stand-in, a runner configured to leave tests out.
  for (const file of [...created, ...modified]) {
    const after = env.facts.read(file);
    if (after === undefined) continue;
    const before = created.includes(file) ? undefined : await env.changes.textBefore(file);
    problems.push(...harnessProblems(file, before, after, new Set(created)));
    const patched = patchedSubjects(file, before, after, env.request);
    if (patched.length > 0) {
      problems.push(
        `patched the code the step was asked to fix in ${file}: ${patched.slice(0, 2).join(', ')}`,
      );
      overridden.push(`${file}: ${patched[0]}`);
    }
    const overrides = assertionOverrides(file, before, after);
    if (overrides.length > 0) {
      problems.push(`replaced the assertions themselves in ${file} (\`${overrides[0]?.slice(0, 80)}\`)`);
      overridden.push(`${file}: \`${overrides[0]?.slice(0, 80)}\``);
    }
    // Python tests the runner no longer collects (deleted, renamed, hidden under `if __name__`).
    const was =
      before !== undefined && TEST_FILE.test(file) ? await collectedPythonTests(file, before) : undefined;
    const now = was !== undefined ? await collectedPythonTests(file, after) : undefined;
    const lost = was !== undefined && now !== undefined ? [...was].filter((name) => !now.has(name)) : [];
    if (lost.length > 0) problems.push(`made ${file} stop collecting ${lost.slice(0, 3).join(', ')}`);
  }
  if (problems.length === 0) return [];
  const summary = `The step is a fix but it ${problems.join('; ')}: a fix that weakens the tests needs a human's approval or a justification.`;
  if (env.onHumanReview !== undefined) {
    try {
      const decision = await env.onHumanReview(
        {
          request: env.request,
          reasons: ['a fix changed or removed tests'],
          summary,
          changedFiles: [...modified, ...deleted].filter((file) => TEST_FILE.test(file)),
          risks: problems,
          diff: problems.join('\n'),
        },
        { signal: env.signal ?? new AbortController().signal },
      );
      if (decision.decision === 'approve')
        return [
          {
            check: 'tampering',
            priority: 'P1',
            status: 'pass',
            message: `${summary} A human approved it${decision.comment ? `: ${decision.comment}` : '.'}`,
          },
        ];
      return [
        {
          check: 'tampering',
          priority: 'P1',
          status: 'fail',
          message: `${summary} A human did not approve it${decision.comment ? `: ${decision.comment}` : '.'}`,
        },
      ];
    } catch (error) {
      if (env.signal?.aborted) throw error;
    }
  }
  // Assertions (or the code under test) replaced by stand-ins: every test passes whatever the code does,
  // and no justification excuses it (a human's approval, above, can).
  if (overridden.length > 0)
    return [
      {
        check: 'tampering',
        priority: 'P1',
        status: 'fail',
        message: `${summary} It replaced the assertions, or the code they test, with code that cannot fail: ${overridden.slice(0, 3).join('; ')}.`,
      },
    ];
  // A value check turned into a check of its type, truthiness or presence tests nothing the fix
  // was about: no justification in the notes excuses it (a human's approval, above, can).
  if (weakened.length > 0)
    return [
      {
        check: 'tampering',
        priority: 'P1',
        status: 'fail',
        message: `${summary} It weakened assertions to checks that pass whatever the value: ${weakened.slice(0, 3).join('; ')}.`,
      },
    ];
  const justified = env.text
    .split(/(?<=[.!?。！？\n])/u)
    .find((sentence) => TEST_MENTION.test(sentence) && JUSTIFICATION.test(sentence));
  if (justified !== undefined)
    return [
      {
        check: 'tampering',
        priority: 'P2',
        status: 'warn',
        message: `${summary} The step justifies it: "${justified.trim().slice(0, 200)}".`,
      },
    ];
  return [{ check: 'tampering', priority: 'P1', status: 'fail', message: summary }];
}
