import { describe, expect, it } from 'vitest';
import { askedConstantValues, constantDefinition, constantMismatch } from './asked-constant-values';

describe('askedConstantValues', () => {
  it('reads every NAME = value of a sentence with the code files named', () => {
    expect(askedConstantValues('Add MAX_RETRIES = 5 and TIMEOUT_MS = 3000 to src/config.ts')).toEqual([
      { name: 'MAX_RETRIES', value: '5', files: ['src/config.ts'] },
      { name: 'TIMEOUT_MS', value: '3000', files: ['src/config.ts'] },
    ]);
    expect(askedConstantValues("Add `export const LEVEL: string = 'info'` to app/log.py")).toEqual([
      { name: 'LEVEL', value: "'info'", files: ['app/log.py'] },
    ]);
  });

  it('asks for nothing from a comparison or a lower-case assignment', () => {
    expect(askedConstantValues('Return early when count == 0')).toEqual([]);
    expect(askedConstantValues('Set retries = 5 in src/a.ts')).toEqual([]);
  });
});

describe('constantDefinition', () => {
  it('reads a JS/TS const and a Python assignment', () => {
    expect(
      constantDefinition(
        'a.ts',
        'export const A = 1;\nexport const MAX_RETRIES: number = 3;\n',
        'MAX_RETRIES',
      ),
    ).toEqual({ value: '3', line: 2 });
    expect(constantDefinition('a.py', 'DEBUG = False\nTIMEOUT = 10  # seconds\n', 'TIMEOUT')).toEqual({
      value: '10',
      line: 2,
    });
    expect(constantDefinition('a.ts', 'const other = 1;\n', 'MAX_RETRIES')).toBeUndefined();
  });
});

describe('constantMismatch', () => {
  it('accepts the asked literal, also spelled with separators or another quote', () => {
    expect(constantMismatch('5', '5')).toBeUndefined();
    expect(constantMismatch('60_000', '60000')).toBeUndefined();
    expect(constantMismatch('"info"', "'info'")).toBeUndefined();
    expect(constantMismatch('True', 'true')).toBeUndefined();
  });

  it('leaves an expression alone', () => {
    expect(constantMismatch('60 * 1000', '60000')).toBeUndefined();
  });

  it('names another value, and the text of a number asked', () => {
    expect(constantMismatch('3', '5')).toBe('3');
    expect(constantMismatch("'50'", '50')).toBe("the text '50', not the number 50");
  });
});
