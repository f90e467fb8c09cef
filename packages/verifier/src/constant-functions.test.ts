import { describe, expect, it } from 'vitest';
import { constantAsked, constantFunctions } from './constant-functions';

describe('constantFunctions', () => {
  it('finds asked functions that return a constant whatever their arguments, in Go, Rust, Java, Kotlin and Ruby', () => {
    expect(
      constantFunctions('fib.go', 'func Fib(n int) int {\n\t// TODO\n\treturn 55\n}\n', ['Fib']),
    ).toEqual([{ name: 'Fib', line: 1, value: '55' }]);
    expect(
      constantFunctions('m.rs', 'pub fn factorial(n: u64) -> u64 {\n    120\n}\n', ['factorial']),
    ).toHaveLength(1);
    expect(
      constantFunctions(
        'S.java',
        'class S {\n  public static int max(int[] values) {\n    return 9;\n  }\n}\n',
        ['max'],
      ),
    ).toHaveLength(1);
    expect(constantFunctions('C.kt', 'fun area(r: Double): Double = 3.14\n', ['area'])).toHaveLength(1);
    expect(constantFunctions('t.rb', 'def total(items)\n  0\nend\n', ['total'])).toHaveLength(1);
  });

  it('leaves computing bodies, getters without arguments, calls and files with a parser alone', () => {
    expect(
      constantFunctions(
        'fib.go',
        'func Fib(n int) int {\n\tif n < 2 {\n\t\treturn n\n\t}\n\treturn Fib(n-1) + Fib(n-2)\n}\n',
        ['Fib'],
      ),
    ).toEqual([]);
    expect(
      constantFunctions('v.rs', 'pub fn version() -> &\'static str {\n    "1.0"\n}\n', ['version']),
    ).toEqual([]);
    expect(constantFunctions('C.kt', 'fun area(r: Double): Double = Math.PI * r * r\n', ['area'])).toEqual(
      [],
    );
    expect(constantFunctions('a.js', 'function f(n) { return 5; }', ['f'])).toEqual([]);
    // An interface method's no-op.
    expect(
      constantFunctions('s.go', 'func (s *Store) Close(ctx context.Context) error {\n\treturn nil\n}\n', [
        'Close',
      ]),
    ).toEqual([]);
  });

  it('knows a constant the request asks for from one it only shows as an example result', () => {
    expect(constantAsked('8080', 'Implement DefaultPort(env string) int that returns 8080')).toBe(true);
    expect(constantAsked('55', 'Implement Fib(n int) int; Fib(10) is 55')).toBe(false);
  });
});
