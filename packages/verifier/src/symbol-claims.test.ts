import { describe, expect, it } from 'vitest';
import { verifyTrace, writeCall as write } from './__fixtures__/step-trace';

/** Symbol claims through `verifyStep`, in every language the verifier parses (real files, real git). */
describe('symbol claims from syntax trees', { timeout: 30_000 }, () => {
  const claimed = (file: string, before: string, after: string, notes: string) =>
    verifyTrace({
      id: 't',
      class: 'x',
      expected: { verdict: 'success' },
      step: { description: 'add the function' },
      ledger: [write(file)],
      workspace: { files: { [file]: before }, changes: { write: { [file]: after } } },
      notes,
    });
  const claimsFinding = (report: Awaited<ReturnType<typeof claimed>>) =>
    report.findings.find((finding) => finding.check === 'claims');

  it.each([
    [
      'src/auth.py',
      'import os\n',
      'import os\n\ndef validate_token(t):\n    return bool(t)\n',
      'validate_token',
      3,
    ],
    [
      'auth/auth.go',
      'package auth\n',
      'package auth\n\nfunc ValidateToken(t string) bool { return t != "" }\n',
      'ValidateToken',
      3,
    ],
    [
      'src/lib.rs',
      'pub fn a() {}\n',
      'pub fn a() {}\npub fn validate_token(t: &str) -> bool { !t.is_empty() }\n',
      'validate_token',
      2,
    ],
    [
      'src/Auth.java',
      'class Auth {}\n',
      'class Auth {\n  boolean validateToken(String t) { return !t.isEmpty(); }\n}\n',
      'validateToken',
      2,
    ],
  ])('holds for a real definition in %s', async (file, before, after, name, line) => {
    const report = await claimed(file, before, after, `[SUCCESS]: added function ${name} in ${file}`);
    expect(claimsFinding(report)).toMatchObject({ status: 'pass' });
    expect(claimsFinding(report)?.message).toContain(`${file}:${line} declares`);
  });

  it.each([
    [
      'src/auth.py',
      'import os\n',
      'import os\nDOC = """\ndef validate_token(t):\n    return True\n"""\n',
      'validate_token',
    ],
    ['src/auth.py', 'import os\n', 'import os\n# def validate_token(t): pass\n', 'validate_token'],
    [
      'auth/auth.go',
      'package auth\n',
      'package auth\n\nvar doc = "func ValidateToken() {}"\n',
      'ValidateToken',
    ],
    ['src/lib.rs', 'pub fn a() {}\n', 'pub fn a() {}\n// fn validate_token() {}\n', 'validate_token'],
    [
      'src/Auth.java',
      'class Auth {}\n',
      'class Auth {\n  String s = "boolean validateToken() {}";\n}\n',
      'validateToken',
    ],
  ])('is false when %s only mentions it in a string or comment', async (file, before, after, name) => {
    const report = await claimed(file, before, after, `[SUCCESS]: added function ${name} in ${file}`);
    expect(report.verdict).toBe('retry');
    expect(claimsFinding(report)).toMatchObject({ status: 'fail' });
  });

  it.each([
    [
      'src/dates.js',
      "export function daysIn(m) {\n  throw new Error('TODO');\n}\n",
      'export function daysIn(m) {\n  return m === 2 ? 28 : 31;\n}\n',
    ],
    [
      'app/text.py',
      'def slugify(text):\n    raise NotImplementedError\n',
      'def slugify(text):\n    return text.lower().replace(" ", "-")\n',
    ],
  ])(
    'holds when a stub already declared in %s gets its real body ("implemented")',
    async (file, before, after) => {
      const name = file.endsWith('.py') ? 'slugify' : 'daysIn';
      const report = await claimed(file, before, after, `[SUCCESS]: implemented \`${name}\` in ${file}`);
      expect(claimsFinding(report)).toMatchObject({ status: 'pass' });
      expect(claimsFinding(report)?.message).toContain('a stub when the step started');
    },
  );

  it.each([
    // Still a stub (a comment added above the throw).
    [
      "export function daysIn(m) {\n  throw new Error('TODO');\n}\n",
      "export function daysIn(m) {\n  // TODO: implement\n  throw new Error('TODO');\n}\n",
    ],
    // Finished before the step: only something else changed.
    [
      'export function daysIn(m) {\n  return m === 2 ? 28 : 31;\n}\n',
      'export function daysIn(m) {\n  return m === 2 ? 28 : 31;\n}\nexport const YEAR = 12;\n',
    ],
  ])('is false when the declaration was not implemented by the step (%#)', async (before, after) => {
    const report = await claimed(
      'src/dates.js',
      before,
      after,
      '[SUCCESS]: implemented `daysIn` in src/dates.js',
    );
    expect(claimsFinding(report)).toMatchObject({ status: 'fail' });
    expect(report.verdict).not.toBe('success');
  });

  it('cannot check a language without a parser: an error, never a pass', async () => {
    const report = await claimed(
      'src/main.zig',
      'const std = @import("std");\n',
      'const std = @import("std");\npub fn validate() bool { return true; }\n',
      '[SUCCESS]: added function validate in src/main.zig',
    );
    expect(claimsFinding(report)).toMatchObject({ status: 'error' });
    expect(claimsFinding(report)?.message).toMatch(/could not be checked: no parser for src\/main\.zig/);
    expect(report.verdict).not.toBe('success');
  });
});
