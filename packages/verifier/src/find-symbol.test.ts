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

const find = (
  fileName: string,
  text: string,
  name: string,
  kind?: Parameters<typeof findSymbol>[0]['kind'],
) => findSymbol({ fileName, text, name, ...(kind ? { kind } : {}) });

describe('findSymbol: JS/TS', () => {
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
  ] as const)('finds %s as %s', async (name, kind, declaration) => {
    expect(await find('auth.ts', TS, name, kind)).toMatchObject({ name, declaration });
  });

  it('does not find what is not declared, or of another kind', async () => {
    expect(await find('auth.ts', TS, 'missing')).toBeUndefined();
    expect(await find('auth.ts', TS, 'counter', 'export')).toBeUndefined();
    expect(await find('auth.ts', TS, 'User', 'class')).toBeUndefined();
    expect(
      await findSymbol({
        fileName: 'auth.ts',
        text: TS,
        name: 'login',
        kind: 'function',
        includeMethods: false,
      }),
    ).toBeUndefined();
    // A name in a comment or a string is not a declaration.
    expect(
      await find('a.ts', '// function ghost() {}\nconst s = "function ghost() {}";', 'ghost'),
    ).toBeUndefined();
    expect(await find('a.js', 'const t = `class Ghost {}`; /* class Ghost {} */', 'Ghost')).toBeUndefined();
  });

  it('reads CommonJS exports and JSX', async () => {
    const cjs =
      'module.exports.isPrime = function (n) { return n > 1; };\nexports.x = 1;\nmodule.exports = { y };';
    expect(await find('m.cjs', cjs, 'isPrime', 'function')).toBeDefined();
    expect(await find('m.cjs', cjs, 'y', 'export')).toBeDefined();
    expect(await find('m.cjs', cjs, 'x', 'export')).toBeDefined();
    expect(
      await find('c.tsx', 'export const Button = () => <button />;', 'Button', 'function'),
    ).toBeDefined();
    expect(await find('c.jsx', 'export function App() { return <div />; }', 'App', 'export')).toBeDefined();
  });
});

describe('findSymbol: Python', () => {
  const PY = [
    'import os',
    'from auth import token as tk',
    'GHOST = "def ghost(): pass"',
    '# def ghost2(): pass',
    '"""',
    'class NotAClass:',
    '"""',
    '',
    '@decorator',
    'def validate(x):',
    '    def inner(): pass',
    '    return x',
    '',
    'class Auth:',
    '    def login(self):',
    '        pass',
    '    async def _refresh(self): ...',
    'LIMIT: int = 3',
    'type Point = tuple[int, int]',
    'def _private(): pass',
    'try:',
    '    import ujson as json',
    'except ImportError:',
    '    import json',
    '',
  ].join('\n');

  it('finds definitions from the syntax tree, never from strings or comments', async () => {
    expect(await find('a.py', PY, 'validate', 'function')).toMatchObject({ line: 10, exported: true });
    expect(await find('a.py', PY, 'login', 'function')).toMatchObject({ declaration: 'method' });
    expect(await find('a.py', PY, 'Auth._refresh', 'function')).toMatchObject({ declaration: 'method' });
    expect(await find('a.py', PY, 'Auth', 'class')).toMatchObject({ exported: true });
    expect(await find('a.py', PY, 'tk', 'import')).toBeDefined();
    expect(await find('a.py', PY, 'json', 'import')).toBeDefined();
    expect(await find('a.py', PY, 'LIMIT', 'variable')).toBeDefined();
    expect(await find('a.py', PY, 'Point', 'type')).toBeDefined();
    expect(await find('a.py', PY, '_private', 'export')).toBeUndefined();
    expect(await find('a.py', PY, 'ghost')).toBeUndefined();
    expect(await find('a.py', PY, 'ghost2')).toBeUndefined();
    expect(await find('a.py', PY, 'NotAClass')).toBeUndefined();
  });

  it('honours __all__ for exports', async () => {
    const text = "__all__ = ['public_one']\ndef public_one(): pass\ndef other(): pass\n";
    expect(await find('m.py', text, 'public_one', 'export')).toBeDefined();
    expect(await find('m.py', text, 'other', 'export')).toBeUndefined();
  });
});

describe('findSymbol: Go, Rust, Java and more', () => {
  it('reads Go declarations; capitalised names are exported', async () => {
    const go = [
      'package server',
      'import (',
      '  "fmt"',
      '  ex "os/exec"',
      ')',
      '// func Ghost() {}',
      'var s = "func Ghost2() {}"',
      'func New() *Server { return nil }',
      'func (s *Server) Start() error { return nil }',
      'type Server struct{}',
      'type Reader interface{ Read() }',
      'const Max, min = 1, 2',
      'func helper[T any](x T) T { return x }',
    ].join('\n');
    expect(await find('s.go', go, 'New', 'function')).toMatchObject({ exported: true, line: 8 });
    expect(await find('s.go', go, 'Server.Start', 'function')).toMatchObject({ declaration: 'method' });
    expect(await find('s.go', go, 'Server', 'class')).toMatchObject({ declaration: 'struct' });
    expect(await find('s.go', go, 'Server', 'type')).toBeDefined();
    expect(await find('s.go', go, 'Reader', 'interface')).toBeDefined();
    expect(await find('s.go', go, 'Max', 'export')).toBeDefined();
    expect(await find('s.go', go, 'min', 'export')).toBeUndefined();
    expect(await find('s.go', go, 'helper', 'function')).toMatchObject({ exported: false });
    expect(await find('s.go', go, 'fmt', 'import')).toBeDefined();
    expect(await find('s.go', go, 'ex', 'import')).toBeDefined();
    expect(await find('s.go', go, 'Ghost')).toBeUndefined();
    expect(await find('s.go', go, 'Ghost2')).toBeUndefined();
  });

  it('reads Rust items; pub is exported', async () => {
    const rust = [
      'use std::collections::HashMap;',
      'pub fn parse() {}',
      'fn private() {}',
      'pub struct Config { a: u8 }',
      'pub enum Mode { A }',
      'pub trait Store { fn get(&self); }',
      'impl Config { pub fn new() -> Self { Config { a: 1 } } }',
      'impl Store for Config { fn get(&self) {} }',
      'const LIMIT: u8 = 3;',
      'let s = "fn ghost() {}";',
    ].join('\n');
    expect(await find('lib.rs', rust, 'parse', 'export')).toBeDefined();
    expect(await find('lib.rs', rust, 'private', 'export')).toBeUndefined();
    expect(await find('lib.rs', rust, 'Config', 'class')).toMatchObject({ declaration: 'struct' });
    expect(await find('lib.rs', rust, 'Mode', 'type')).toMatchObject({ declaration: 'enum' });
    expect(await find('lib.rs', rust, 'Store', 'interface')).toBeDefined();
    expect(await find('lib.rs', rust, 'Config.new', 'function')).toMatchObject({ exported: true });
    expect(await find('lib.rs', rust, 'Config.get', 'function')).toBeDefined();
    expect(await find('lib.rs', rust, 'LIMIT', 'variable')).toBeDefined();
    expect(await find('lib.rs', rust, 'HashMap', 'import')).toBeDefined();
    expect(await find('lib.rs', rust, 'ghost')).toBeUndefined();
  });

  it('reads Java classes and members; public is exported', async () => {
    const java = [
      'package app;',
      'import java.util.List;',
      'public class Auth {',
      '  public static final int LIMIT = 3;',
      '  public boolean validate(String token) { return true; }',
      '  private void hidden() { String s = "void ghost() {}"; }',
      '}',
      'interface Store { void save(); }',
      'enum Mode { A }',
      'record Point(int x, int y) {}',
    ].join('\n');
    expect(await find('Auth.java', java, 'Auth', 'class')).toMatchObject({ exported: true, line: 3 });
    expect(await find('Auth.java', java, 'Auth.validate', 'function')).toMatchObject({ exported: true });
    expect(await find('Auth.java', java, 'hidden', 'export')).toBeUndefined();
    expect(await find('Auth.java', java, 'LIMIT', 'variable')).toBeDefined();
    expect(await find('Auth.java', java, 'Store', 'interface')).toBeDefined();
    expect(await find('Auth.java', java, 'Point', 'class')).toBeDefined();
    expect(await find('Auth.java', java, 'List', 'import')).toBeDefined();
    expect(await find('Auth.java', java, 'ghost')).toBeUndefined();
  });

  it('reads C++ and PHP definitions', async () => {
    const cpp = [
      '#include <vector>',
      'namespace n { int f(int a) { return a; } }',
      'class A { public: void m(); int field; };',
      'void A::m() {}',
      'template <typename T> T id(T t) { return t; }',
      'struct S { int x; };',
      'enum class Color { Red };',
      'using Alias = int;',
      'const char *s = "void ghost() {}";',
    ].join('\n');
    expect(await find('a.cpp', cpp, 'f', 'function')).toMatchObject({ line: 2 });
    expect(await find('a.cpp', cpp, 'A.m', 'function')).toBeDefined();
    expect(await find('a.cpp', cpp, 'A.field', 'variable')).toBeDefined();
    expect(await find('a.cpp', cpp, 'id', 'function')).toBeDefined();
    expect(await find('a.cpp', cpp, 'S', 'class')).toMatchObject({ declaration: 'struct' });
    expect(await find('a.cpp', cpp, 'Color', 'type')).toMatchObject({ declaration: 'enum' });
    expect(await find('a.cpp', cpp, 'Alias', 'type')).toBeDefined();
    expect(await find('a.cpp', cpp, 'vector', 'import')).toBeDefined();
    expect(await find('a.cpp', cpp, 'ghost')).toBeUndefined();
    const php = [
      '<?php',
      'namespace App;',
      'use Foo\\Bar as Baz;',
      'function f() {}',
      'class A { public function m() {} private function p() {} const K = 1; }',
      'interface I { public function x(); }',
      '$s = "function ghost() {}";',
    ].join('\n');
    expect(await find('a.php', php, 'A.m', 'function')).toMatchObject({ exported: true, line: 5 });
    expect(await find('a.php', php, 'A.p', 'export')).toBeUndefined();
    expect(await find('a.php', php, 'f', 'function')).toBeDefined();
    expect(await find('a.php', php, 'I', 'interface')).toBeDefined();
    expect(await find('a.php', php, 'Baz', 'import')).toBeDefined();
    expect(await find('a.php', php, 'ghost')).toBeUndefined();
  });
});

describe('findSymbol: files with syntax the grammars do not know', () => {
  // Valid code the grammars report errors in: declarations around it are still found.
  it('finds TypeScript declarations around module declarations, import attributes and type exports', async () => {
    const ts = [
      'import data from "./data.json" with { type: "json" };',
      'export type * from "./types";',
      'export { type Shape, area };',
      'declare module "virtual:config" {',
      '  export const config: Record<string, string>;',
      '}',
      'export function area(shape: Shape): number { return 0; }',
      'export class Circle { radius = 1; grow() {} }',
      'interface Shape { kind: string }',
    ].join('\n');
    expect(await find('shapes.ts', ts, 'area', 'function')).toMatchObject({ exported: true, line: 7 });
    expect(await find('shapes.ts', ts, 'Circle.grow', 'function')).toMatchObject({ line: 8 });
    expect(await find('shapes.ts', ts, 'Shape', 'export')).toMatchObject({ line: 3 });
    expect(await find('shapes.ts', ts, 'data', 'import')).toBeDefined();
  });

  it('finds Python definitions after a parenthesised with', async () => {
    const py = [
      'with (open("a") as a, open("b") as b):',
      '    pass',
      '',
      'def after(x):',
      '    return x',
      '',
      'class Later:',
      '    def run(self): ...',
    ].join('\n');
    expect(await find('w.py', py, 'after', 'function')).toMatchObject({ line: 4 });
    expect(await find('w.py', py, 'Later.run', 'function')).toMatchObject({ line: 8 });
  });

  it('finds Java members around pattern switches and text blocks', async () => {
    const java = [
      'public class Shapes {',
      '  static final String SQL = """',
      '      SELECT * FROM shapes',
      '      WHERE kind = ?',
      '      """;',
      '  public static double area(Object shape) {',
      '    return switch (shape) {',
      '      case Circle c when c.r() > 0 -> Math.PI * c.r() * c.r();',
      '      case Square s -> s.side() * s.side();',
      '      default -> 0;',
      '    };',
      '  }',
      '  public String describe() { return "shape"; }',
      '}',
      'record Circle(double r) {}',
    ].join('\n');
    expect(await find('Shapes.java', java, 'Shapes', 'class')).toMatchObject({ line: 1, exported: true });
    expect(await find('Shapes.java', java, 'Shapes.area', 'function')).toMatchObject({ line: 6 });
    expect(await find('Shapes.java', java, 'Shapes.describe', 'function')).toMatchObject({ line: 13 });
    expect(await find('Shapes.java', java, 'Circle', 'class')).toMatchObject({ line: 15 });
  });
});

describe('listSymbols and canFindSymbols', () => {
  it('reports lines and which files it can parse', async () => {
    expect(
      (await listSymbols('x.ts', 'const a = 1;\n\nfunction b() {}\n')).map((s) => [s.name, s.line]),
    ).toEqual([
      ['a', 1],
      ['b', 3],
    ]);
    for (const file of ['a.mts', 'a.jsx', 'a.py', 'a.go', 'a.rs', 'A.java', 'a.php', 'a.cpp', 'a.hpp'])
      expect(canFindSymbols(file)).toBe(true);
    for (const file of ['a.zig', 'a.kt', 'a.cs', 'a.rb', 'a.sh', 'Makefile', 'a.md'])
      expect(canFindSymbols(file)).toBe(false);
    expect(await listSymbols('a.zig', 'fn main() void {}')).toEqual([]);
  });
});
