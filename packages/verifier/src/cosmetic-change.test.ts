import { describe, expect, it } from 'vitest';
import { commentsAsked, sameCode, whitespaceOnly } from './cosmetic-change';

const RANGE = 'export function range(n) {\n  return [...Array(n + 1).keys()];\n}\n';

describe('sameCode (the program is the same: comments, quotes, dead code)', () => {
  it.each([
    ['a comment added', 'a.js', RANGE, `// fixed the off-by-one\n${RANGE}`],
    ['a block comment inside', 'a.js', RANGE, RANGE.replace('return', '/* fixed */ return')],
    ['quotes swapped', 'a.js', "export const g = 'it\\'s';\n", 'export const g = "it\'s";\n'],
    [
      'a statement after the return',
      'a.js',
      RANGE,
      RANGE.replace('keys()];', 'keys()];\n  return [...Array(n).keys()];'),
    ],
    ['an if (false) branch', 'a.js', RANGE, RANGE.replace('  return', '  if (false) return [];\n  return')],
    [
      'a Python comment',
      'a.py',
      'def add(a, b):\n    return a - b\n',
      '# fixed\ndef add(a, b):\n    return a - b  # bug\n',
    ],
    [
      'a Python if False',
      'a.py',
      'def f():\n    return 1\n',
      'def f():\n    if False:\n        return 2\n    return 1\n',
    ],
    [
      'an unused private function in a module',
      'a.js',
      RANGE,
      `${RANGE}\nfunction rangeFixed(n) {\n  return [...Array(n).keys()];\n}\n`,
    ],
    [
      'a Python function defined again later',
      'a.py',
      'def add(a, b):\n    return a - b\n',
      'def add(a, b):\n    return a + b\n\n\ndef add(a, b):\n    return a - b\n',
    ],
    [
      'an unused private constant of a module',
      'a.js',
      RANGE,
      `const LIMIT = Number(process.env.LIMIT) || 10;\n\n${RANGE}`,
    ],
    ['a parameter renamed everywhere', 'a.js', RANGE, RANGE.replace(/\bn\b/g, 'count')],
    [
      'Python parameters renamed',
      'a.py',
      'def add(a, b):\n    return a - b\n',
      'def add(x, y):\n    return x - y\n',
    ],
  ])('%s → the same code', async (_name, file, before, after) => {
    expect(await sameCode(file, before, after)).toBe(true);
  });

  it.each([
    ['a real fix', 'a.js', RANGE, RANGE.replace('n + 1', 'n')],
    [
      'a private constant that is read',
      'a.js',
      'export const f = () => 5000;\n',
      'const MS = 10000;\nexport const f = () => MS;\n',
    ],
    ['an unused constant set by a call', 'a.js', RANGE, `const registered = register();\n\n${RANGE}`],
    ['a string changed', 'a.js', "export const g = 'Hi';\n", "export const g = 'Hello';\n"],
    [
      'an if with an else',
      'a.js',
      RANGE,
      RANGE.replace('  return', '  if (false) return [];\n  else return'),
    ],
    [
      'a hoisted function after the return',
      'a.js',
      'function f() {\n  return g();\n}\n',
      'function f() {\n  return g();\n  function g() { return 1; }\n}\n',
    ],
    ['identical texts', 'a.js', RANGE, RANGE],
    [
      'a helper the module uses',
      'a.js',
      RANGE,
      `${RANGE}function helper(n) {\n  return n;\n}\nexport const x = helper(1);\n`,
    ],
    [
      'a function in a script (a global)',
      'a.js',
      'function range(n) {}\n',
      'function range(n) {}\nfunction other() {}\n',
    ],
    [
      'a Python function used before it is defined again',
      'a.py',
      'def add(a, b):\n    return a - b\n',
      'def add(a, b):\n    return a + b\n\nprint(add(1, 2))\n\ndef add(a, b):\n    return a - b\n',
    ],
    ['a file with no parser', 'a.txt', 'a', '// a'],
    ['a file that no longer parses', 'a.js', RANGE, `${RANGE}}`],
    ['an exported function renamed', 'a.js', RANGE, RANGE.replace('range', 'rangeOf')],
    [
      'parameters swapped',
      'a.js',
      'export const f = (a, b) => a - b;\n',
      'export const f = (b, a) => a - b;\n',
    ],
    [
      'a global renamed',
      'a.js',
      'export const f = (x) => Array.from(x);\n',
      'export const f = (x) => Arr.from(x);\n',
    ],
  ])('%s → different', async (_name, file, before, after) => {
    expect(await sameCode(file, before, after)).toBe(false);
  });

  it('is asked for by comment, docs and dead-code work', () => {
    expect(commentsAsked('Add a JSDoc comment to range')).toBe(true);
    expect(commentsAsked('Remove the unreachable code in src/a.js')).toBe(true);
    expect(commentsAsked('Rename the parameter n of range to count')).toBe(true);
    expect(commentsAsked('Refactor src/range.js for readability')).toBe(true);
    expect(commentsAsked('Fix the off-by-one in src/range.js')).toBe(false);
    expect(whitespaceOnly('a b', 'a  b')).toBe(true);
  });
});
