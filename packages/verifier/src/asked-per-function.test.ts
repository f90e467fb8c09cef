import { describe, expect, it } from 'vitest';
import { askedPerFunction, functionsLacking } from './asked-per-function';

describe('askedPerFunction', () => {
  it('reads asks of types or docs for every function of a file', () => {
    expect(askedPerFunction('Add type hints to every function in app/calc.py')).toEqual([
      { what: 'types', file: 'app/calc.py', exported: false },
    ]);
    expect(askedPerFunction('Add a JSDoc comment to every exported function in src/math.js')).toEqual([
      { what: 'docs', file: 'src/math.js', exported: true },
    ]);
    expect(askedPerFunction('Add docstrings to all the functions in `app/util.py`')[0]?.what).toBe('docs');
    expect(askedPerFunction('Add a docstring to parse in app/util.py')).toEqual([]);
  });
});

describe('functionsLacking', () => {
  it('finds Python functions without hints or docstrings', () => {
    const text =
      'def add(a: int, b: int) -> int:\n    """Add."""\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n';
    expect(functionsLacking({ what: 'types', file: 'c.py', exported: false }, text)).toEqual([
      'sub (line 6)',
    ]);
    expect(functionsLacking({ what: 'docs', file: 'c.py', exported: false }, text)).toEqual(['sub (line 6)']);
  });

  it('finds JS functions without a doc block right above, exported ones only when asked', () => {
    const text =
      '/** Adds. */\nexport function add(a, b) {\n  return a + b;\n}\n\n// not a doc\nexport const sub = (a, b) => a - b;\n\nfunction local() {}\n';
    expect(functionsLacking({ what: 'docs', file: 'm.js', exported: true }, text)).toEqual(['sub (line 7)']);
    expect(functionsLacking({ what: 'docs', file: 'm.js', exported: false }, text)).toEqual([
      'sub (line 7)',
      'local (line 9)',
    ]);
  });

  it('reads TS types on parameters or the return', () => {
    const text = 'export function a(x: number) {}\nexport function b(): void {}\nexport function c(x) {}\n';
    expect(functionsLacking({ what: 'types', file: 't.ts', exported: false }, text)).toEqual(['c (line 3)']);
  });
});
