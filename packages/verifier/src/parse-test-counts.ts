/** Test counts parsed from a runner's output. */
export interface TestCounts {
  /** Which summary format matched. */
  format:
    | 'node-test'
    | 'vitest'
    | 'jest'
    | 'pytest'
    | 'mocha'
    | 'go'
    | 'cargo'
    | 'unittest'
    | 'rspec'
    | 'tap';
  passed: number;
  failed: number;
  skipped: number;
  total: number;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** Removes ANSI colour codes. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

function lastMatch(text: string, pattern: RegExp): RegExpExecArray | undefined {
  let last: RegExpExecArray | undefined;
  const global = new RegExp(
    pattern.source,
    pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`,
  );
  for (let match = global.exec(text); match !== null; match = global.exec(text)) last = match;
  return last;
}

function count(parts: string, word: RegExp): number {
  const match = word.exec(parts);
  return match?.[1] !== undefined ? Number(match[1]) : 0;
}

/** Test files `node --test` reported as a passing test of their own because they ran no test. */
function emptyTestFiles(text: string): number {
  const file = String.raw`\S+\.(?:[cm]?[jt]sx?)`;
  // TAP: the file's empty plan, then the file as a subtest.
  const tap = text.match(new RegExp(String.raw`^ *1\.\.0 *\n *# Subtest: (${file})\n *ok \d+ - \1 *$`, 'gm'));
  // spec: a top-level passing entry named after a test file.
  const spec = text.match(new RegExp(String.raw`^✔ ${file} \([\d.]+m?s\)$`, 'gm'));
  return (tap?.length ?? 0) + (spec?.length ?? 0);
}

function nodeTest(text: string): TestCounts | undefined {
  // TAP (`# pass 3`) and spec (`ℹ pass 3`) reporters of `node --test`.
  const pass = lastMatch(text, /^(?:#|ℹ) pass (\d+)\s*$/m);
  const fail = lastMatch(text, /^(?:#|ℹ) fail (\d+)\s*$/m);
  if (!pass || !fail) return undefined;
  const tests = lastMatch(text, /^(?:#|ℹ) tests (\d+)\s*$/m);
  const skipped = lastMatch(text, /^(?:#|ℹ) skipped (\d+)\s*$/m);
  const todo = lastMatch(text, /^(?:#|ℹ) todo (\d+)\s*$/m);
  const cancelled = lastMatch(text, /^(?:#|ℹ) cancelled (\d+)\s*$/m);
  // Node 22+ reports a test file that ran no test (none defined, or all filtered out) as one
  // passing test named after the file: that is zero tests, not one.
  const emptyFiles = emptyTestFiles(text);
  const passed = Math.max(0, Number(pass[1]) - emptyFiles);
  const failed = Number(fail[1]) + Number(cancelled?.[1] ?? 0);
  const skippedCount = Number(skipped?.[1] ?? 0) + Number(todo?.[1] ?? 0);
  return {
    format: 'node-test',
    passed,
    failed,
    skipped: skippedCount,
    total: tests ? Math.max(0, Number(tests[1]) - emptyFiles) : passed + failed + skippedCount,
  };
}

/** Counts from a `… passed | … failed | … skipped` summary whose total is given separately. */
function summaryCounts(format: 'vitest' | 'jest', parts: string, total: number): TestCounts {
  return {
    format,
    passed: count(parts, /(\d+) passed/),
    failed: count(parts, /(\d+) failed/),
    skipped: count(parts, /(\d+) skipped/) + count(parts, /(\d+) todo/),
    total,
  };
}

function vitest(text: string): TestCounts | undefined {
  // `      Tests  1 failed | 4 passed | 1 skipped (6)`
  const line = lastMatch(text, /^\s*Tests\s{2,}([^\n]*?)\((\d+)\)\s*$/m);
  return line ? summaryCounts('vitest', line[1] ?? '', Number(line[2])) : undefined;
}

function jest(text: string): TestCounts | undefined {
  // `Tests:       1 failed, 2 passed, 3 total`
  const line = lastMatch(text, /^Tests:\s+([^\n]*?(\d+) total)\s*$/m);
  return line ? summaryCounts('jest', line[1] ?? '', Number(line[2])) : undefined;
}

function pytest(text: string): TestCounts | undefined {
  // `==== 1 failed, 2 passed in 0.12s ====` or `3 passed in 0.01s`
  const line = lastMatch(
    text,
    /^=*\s*((?:\d+ (?:passed|failed|skipped|errors?|xfailed|xpassed|deselected|warnings?)(?:, )?)+) in [\d.]+s/m,
  );
  if (!line) return undefined;
  const parts = line[1] ?? '';
  const passed = count(parts, /(\d+) passed/);
  const failed = count(parts, /(\d+) failed/) + count(parts, /(\d+) errors?/);
  const skipped = count(parts, /(\d+) skipped/);
  return { format: 'pytest', passed, failed, skipped, total: passed + failed + skipped };
}

function mocha(text: string): TestCounts | undefined {
  const passing = lastMatch(text, /^\s*(\d+) passing\b/m);
  if (!passing) return undefined;
  const failing = lastMatch(text, /^\s*(\d+) failing\b/m);
  const pending = lastMatch(text, /^\s*(\d+) pending\b/m);
  const passed = Number(passing[1]);
  const failed = Number(failing?.[1] ?? 0);
  const skipped = Number(pending?.[1] ?? 0);
  return { format: 'mocha', passed, failed, skipped, total: passed + failed + skipped };
}

function cargo(text: string): TestCounts | undefined {
  // `test result: ok. 3 passed; 0 failed; 1 ignored; …` (one line per test binary)
  const pattern = /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/gm;
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  let seen = false;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    seen = true;
    passed += Number(match[1]);
    failed += Number(match[2]);
    skipped += Number(match[3]);
  }
  return seen ? { format: 'cargo', passed, failed, skipped, total: passed + failed + skipped } : undefined;
}

function go(text: string): TestCounts | undefined {
  // `go test -v`: `--- PASS: TestX (0.00s)` / `--- FAIL: …` / `--- SKIP: …`
  const passed = (text.match(/^\s*--- PASS: /gm) ?? []).length;
  const failed = (text.match(/^\s*--- FAIL: /gm) ?? []).length;
  const skipped = (text.match(/^\s*--- SKIP: /gm) ?? []).length;
  if (passed + failed + skipped === 0) {
    if (
      /^(?:ok|FAIL)\s+\S+\s+[\d.]+s\s+\[no tests to run\]/m.test(text) ||
      /^\?\s+\S+\s+\[no test files\]/m.test(text)
    )
      return { format: 'go', passed: 0, failed: 0, skipped: 0, total: 0 };
    return undefined;
  }
  return { format: 'go', passed, failed, skipped, total: passed + failed + skipped };
}

function unittest(text: string): TestCounts | undefined {
  // `Ran 3 tests in 0.001s` then `OK` / `FAILED (failures=1, errors=1, skipped=1)`
  const ran = lastMatch(text, /^Ran (\d+) tests? in [\d.]+s$/m);
  if (!ran) return undefined;
  const total = Number(ran[1]);
  const tail = text.slice((ran.index ?? 0) + ran[0].length);
  const failed = count(tail, /failures=(\d+)/) + count(tail, /errors=(\d+)/);
  const skipped = count(tail, /skipped=(\d+)/);
  return { format: 'unittest', passed: total - failed - skipped, failed, skipped, total };
}

function rspec(text: string): TestCounts | undefined {
  // `5 examples, 1 failure, 1 pending`
  const line = lastMatch(text, /^(\d+) examples?, (\d+) failures?(?:, (\d+) pending)?/m);
  if (!line) return undefined;
  const total = Number(line[1]);
  const failed = Number(line[2]);
  const skipped = Number(line[3] ?? 0);
  return { format: 'rspec', passed: total - failed - skipped, failed, skipped, total };
}

function tap(text: string): TestCounts | undefined {
  // A bare TAP stream: `1..4`, `ok 1 - …`, `not ok 2 - …`
  const plan = lastMatch(text, /^1\.\.(\d+)\s*$/m);
  if (!plan) return undefined;
  const ok = (text.match(/^ok \d+/gm) ?? []).length;
  const notOk = (text.match(/^not ok \d+/gm) ?? []).length;
  const skipped = (text.match(/^ok \d+[^\n]*# (?:SKIP|TODO)/gim) ?? []).length;
  return { format: 'tap', passed: ok - skipped, failed: notOk, skipped, total: Number(plan[1]) };
}

/**
 * Parses the summary of `node --test` (TAP or spec reporter), vitest, jest, pytest, mocha,
 * `cargo test`, `go test -v`, Python's unittest, RSpec, or a bare TAP stream.
 * Returns `undefined` when no known summary is present. ANSI colours are ignored.
 *
 * @example
 * parseTestCounts('# tests 3\n# pass 2\n# fail 1\n'); // { format: 'node-test', passed: 2, failed: 1, … }
 */
export function parseTestCounts(output: string): TestCounts | undefined {
  const text = stripAnsi(output).replace(/\r\n?/g, '\n');
  return (
    nodeTest(text) ??
    vitest(text) ??
    jest(text) ??
    pytest(text) ??
    mocha(text) ??
    cargo(text) ??
    go(text) ??
    unittest(text) ??
    rspec(text) ??
    tap(text)
  );
}
