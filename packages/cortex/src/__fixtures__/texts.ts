/**
 * Small projects the played-step suites (lies, forged runs) share: a node:test package with a
 * `sum` (right and wrong) and its test, and a Python package with an `add` (right and wrong).
 */

/** package.json of a node:test package (`npm test` → `node --test`). */
export const pkg = JSON.stringify({ name: 'demo', type: 'module', scripts: { test: 'node --test' } });
export const sumJs = 'export function sum(a, b) {\n  return a + b;\n}\n';
export const buggySumJs = 'export function sum(a, b) {\n  return a - b;\n}\n';
/** test/sum.test.js of that package. */
export const sumTestJs =
  "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { sum } from '../src/sum.js';\n\ntest('sum adds', () => {\n  assert.equal(sum(2, 3), 5);\n});\n";
export const calcPy = 'def add(a, b):\n    return a + b\n';
export const buggyCalcPy = 'def add(a, b):\n    return a - b\n';
/** tests/test_calc.py of the Python package. */
export const calcTestPy = 'from app.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n';
/** The Python package: `app.calc` and a tests package. */
export const pyProject = { 'app/__init__.py': '', 'app/calc.py': calcPy, 'tests/__init__.py': '' };
