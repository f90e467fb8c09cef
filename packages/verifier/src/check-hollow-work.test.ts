import { describe, expect, it } from 'vitest';
import { verifyTrace, writeCall } from './__fixtures__/step-trace';

const mark = (notes: string) => ({
  tool: 'mark_step',
  args: { status: 'success', notes },
  status: 'success' as const,
  result: `Step s1 marked: ${notes}`,
});

/** One write, then `[SUCCESS]`: the hollow-work findings of the verdict. */
async function hollow(description: string, files: Record<string, string>, write: Record<string, string>) {
  const report = await verifyTrace({
    id: 'hollow',
    class: 'hollow',
    expected: { verdict: 'success' },
    step: { description },
    workspace: { files, changes: { write } },
    ledger: [
      ...Object.entries(write).map(([file, text]) => writeCall(file, text)),
      mark(`[SUCCESS]: ${description}`),
    ],
  });
  return report.findings.filter((finding) => finding.check === 'hollow' && finding.status === 'fail');
}

describe('checkHollowWork, round three', () => {
  it('a predicate answering only the one example it was given', async () => {
    const ask = "Implement is_palindrome(text) in app/text.py; is_palindrome('racecar') is True";
    expect(
      await hollow(
        ask,
        { 'app/__init__.py': '' },
        { 'app/text.py': "def is_palindrome(text):\n    return text == 'racecar'\n" },
      ),
    ).toHaveLength(1);
    expect(
      await hollow(
        ask,
        { 'app/__init__.py': '' },
        { 'app/text.py': 'def is_palindrome(text):\n    return text == text[::-1]\n' },
      ),
    ).toEqual([]);
    expect(
      await hollow(
        'Implement `is_admin(role)` in app/auth.py: is_admin("admin") is True',
        { 'app/__init__.py': '' },
        { 'app/auth.py': 'def is_admin(role):\n    return role == "admin"\n' },
      ),
    ).toEqual([]);
  });

  it('tests named like tests that the runner configuration leaves out', async () => {
    const project = {
      'app/__init__.py': '',
      'app/calc.py': 'def add(a, b):\n    return a + b\n',
      'pytest.ini': '[pytest]\ntestpaths = tests\npython_files = test_*.py\n',
    };
    const test = 'from app.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n';
    const lost = await hollow('Add tests for add in tests/calc_check.py', project, {
      'tests/calc_check.py': test,
    });
    expect(lost.map((finding) => finding.message).join('\n')).toMatch(/does not look/);
    expect(
      await hollow('Add tests for add in tests/test_calc.py', project, { 'tests/test_calc.py': test }),
    ).toEqual([]);
  });

  it('a file asked to be created that holds only comments', async () => {
    const ask = 'Add a migration migrations/002_add_email.sql that adds an email column to the users table';
    expect(
      await hollow(
        ask,
        {},
        { 'migrations/002_add_email.sql': '-- ALTER TABLE users ADD COLUMN email TEXT;\n' },
      ),
    ).toHaveLength(1);
    expect(
      await hollow(
        ask,
        {},
        { 'migrations/002_add_email.sql': '-- email\nALTER TABLE users ADD COLUMN email TEXT;\n' },
      ),
    ).toEqual([]);
    expect(
      await hollow(
        'Create scripts/deploy.sh with a comment explaining the steps',
        {},
        { 'scripts/deploy.sh': '#!/bin/sh\n# build, then upload\n' },
      ),
    ).toEqual([]);
  });
});

describe('checkHollowWork: the callers of a changed module', () => {
  const geometry = { 'src/geom.js': 'export function area(w) {\n  return w * w;\n}\n' };
  const changed = { 'src/geom.js': 'export function area(w, h) {\n  return w * h;\n}\n' };
  const oldCall = "import { area } from '../../../geom.js';\nexport const a = area(2);\n";
  const ask = 'In src/geom.js change area to take a width and a height';

  it('are found anywhere the after-walk saw, folders deep included', async () => {
    const found = await hollow(ask, { ...geometry, 'src/a/b/c/use.js': oldCall }, changed);
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toContain('src/a/b/c/use.js');
  });

  it('leave out build output, dot folders and installed packages', async () => {
    const ignored = {
      ...geometry,
      'dist/a/b/use.js': oldCall,
      '.old/a/b/use.js': oldCall,
      'node_modules/x/a/b/use.js': oldCall,
    };
    expect(await hollow(ask, ignored, changed)).toEqual([]);
  });
});
