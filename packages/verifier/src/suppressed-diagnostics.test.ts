import { describe, expect, it } from 'vitest';
import { addedSuppressions, fixingDiagnosticsAsked } from './suppressed-diagnostics';

describe('suppressed diagnostics', () => {
  it('reads a fix of type or lint errors asked, not a suppression asked', () => {
    expect(fixingDiagnosticsAsked('Fix the type errors in src/total.ts')).toBe(true);
    expect(fixingDiagnosticsAsked('Resolve the eslint warnings in src/app.js')).toBe(true);
    expect(fixingDiagnosticsAsked('Fix the ruff lint warnings in app/util.py')).toBe(true);
    expect(
      fixingDiagnosticsAsked('Silence the lint error in src/app.js with an eslint-disable comment'),
    ).toBe(false);
    expect(fixingDiagnosticsAsked('Fix the bug in src/a.js')).toBe(false);
  });

  it('counts the suppression directives a step added', () => {
    expect(
      addedSuppressions([
        { file: 'a.ts', before: 'let a = 1;\n', after: '// @ts-nocheck\nlet a = 1;\n' },
        { file: 'b.py', before: 'import os\n', after: 'import os  # noqa: F401\n' },
        { file: 'c.py', before: 'x = 1  # type: ignore\n', after: 'x = 2  # type: ignore\n' },
        { file: 'd.js', before: undefined, after: '/* eslint-disable */\nexport {};\n' },
      ]),
    ).toEqual([
      { file: 'a.ts', added: 1 },
      { file: 'b.py', added: 1 },
      { file: 'd.js', added: 1 },
    ]);
  });
});
