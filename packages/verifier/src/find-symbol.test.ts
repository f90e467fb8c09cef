import { describe, expect, it } from 'vitest';
import { canFindSymbols, findSymbol, listSymbols } from './find-symbol';

const TS = `
import { z } from 'zod';
import * as fs from 'node:fs';
import def from './def';
export function validateToken(token: string): boolean { return token.length > 0; }
export const parse = (text: string) => text.trim();
const helper = function () { return 1; };
let counter = 0;
export class AuthService {
  login() {}
  private refresh = () => {};
}
export interface User { id: string }
export type Id = string;
enum Color { Red }
function internal() {}
export { internal as exposed, helper };
export default function main() {}
namespace NS { export const inner = 1; }
export const { a, b: [c] } = { a: 1, b: [2] };
`;

describe('findSymbol', () => {
  it.each([
    ['validateToken', 'function', 'function'],
    ['parse', 'function', 'function'],
    ['parse', 'export', 'function'],
    ['helper', 'function', 'function'],
    ['helper', 'export', 'function'],
    ['counter', 'variable', 'variable'],
    ['AuthService', 'class', 'class'],
    ['login', 'function', 'method'],
    ['AuthService.refresh', 'function', 'method'],
    ['User', 'interface', 'interface'],
    ['Id', 'type', 'type'],
    ['Color', 'type', 'enum'],
    ['exposed', 'export', 'variable'],
    ['main', 'function', 'function'],
    ['default', 'export', 'function'],
    ['z', 'import', 'import'],
    ['fs', 'import', 'import'],
    ['zod', 'import', 'import'],
    ['def', 'import', 'import'],
    ['inner', 'variable', 'variable'],
    ['c', 'variable', 'variable'],
  ] as const)('finds %s as %s', (name, kind, declaration) => {
    expect(findSymbol({ fileName: 'auth.ts', text: TS, name, kind })).toMatchObject({ name, declaration });
  });

  it('does not find what is not declared, or of another kind', () => {
    expect(findSymbol({ fileName: 'auth.ts', text: TS, name: 'missing' })).toBeUndefined();
    expect(findSymbol({ fileName: 'auth.ts', text: TS, name: 'counter', kind: 'export' })).toBeUndefined();
    expect(findSymbol({ fileName: 'auth.ts', text: TS, name: 'User', kind: 'class' })).toBeUndefined();
    expect(
      findSymbol({ fileName: 'auth.ts', text: TS, name: 'login', kind: 'function', includeMethods: false }),
    ).toBeUndefined();
    // A name in a comment or a string is not a declaration.
    expect(
      findSymbol({
        fileName: 'a.ts',
        text: '// function ghost() {}\nconst s = "function ghost";',
        name: 'ghost',
      }),
    ).toBeUndefined();
  });

  it('reads CommonJS exports, JSX and Python', () => {
    const cjs =
      'module.exports.isPrime = function (n) { return n > 1; };\nexports.x = 1;\nmodule.exports = { y };';
    expect(findSymbol({ fileName: 'm.cjs', text: cjs, name: 'isPrime', kind: 'function' })).toBeDefined();
    expect(findSymbol({ fileName: 'm.cjs', text: cjs, name: 'y', kind: 'export' })).toBeDefined();
    expect(
      findSymbol({
        fileName: 'c.tsx',
        text: 'export const Button = () => <button />;',
        name: 'Button',
        kind: 'function',
      }),
    ).toBeDefined();
    const py =
      'import os\nfrom auth import token as tk\n\ndef validate(x):\n    return x\n\nclass Auth:\n    def login(self):\n        pass\nLIMIT = 3\n';
    expect(findSymbol({ fileName: 'a.py', text: py, name: 'validate', kind: 'function' })).toMatchObject({
      line: 4,
    });
    expect(findSymbol({ fileName: 'a.py', text: py, name: 'login', kind: 'function' })).toMatchObject({
      declaration: 'method',
    });
    expect(findSymbol({ fileName: 'a.py', text: py, name: 'Auth', kind: 'class' })).toBeDefined();
    expect(findSymbol({ fileName: 'a.py', text: py, name: 'tk', kind: 'import' })).toBeDefined();
    expect(findSymbol({ fileName: 'a.py', text: py, name: 'LIMIT', kind: 'variable' })).toBeDefined();
  });

  it('reports lines and which files it can parse', () => {
    expect(listSymbols('x.ts', 'const a = 1;\n\nfunction b() {}\n').map((s) => [s.name, s.line])).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
    expect(canFindSymbols('a.mts')).toBe(true);
    expect(canFindSymbols('a.py')).toBe(true);
    expect(canFindSymbols('a.go')).toBe(false);
  });
});
