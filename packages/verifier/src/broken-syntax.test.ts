import { describe, expect, it } from 'vitest';
import { brokenByStep, brokenSyntaxAsked } from './broken-syntax';

const file = (name: string, after: string, before?: string) => ({
  file: name,
  after,
  before,
  created: before === undefined,
});

describe('brokenByStep (files the step left unparsable)', () => {
  it('finds JS, Python and JSON files that parsed before and do not now', async () => {
    const broken = await brokenByStep([
      file('src/a.js', 'export function double(x) {\n  return x * 2;\n', 'export const a = 1;\n'),
      file('calc.py', 'def add(a, b)\n    return a + b\n', 'def add(a, b):\n    return a - b\n'),
      file('config.json', '{ "debug": true,, }\n', '{}\n'),
      file('src/new.js', 'export const = ;\n'),
    ]);
    expect(broken.map((entry) => entry.file)).toEqual(['src/a.js', 'calc.py', 'config.json', 'src/new.js']);
    expect(broken[0]?.errors.length).toBeGreaterThan(0);
  });

  it('finds CSV and TSV rows with another number of fields than the header', async () => {
    const people = 'name,age,city\nAlice,30,Paris\n';
    const broken = await brokenByStep([
      file('data/people.csv', `${people}Carol,41\n`, people),
      file('data/a.tsv', 'a\tb\n1\t2\t3\n'),
    ]);
    expect(broken).toEqual([
      { file: 'data/people.csv', errors: ['line 3 has 2 field(s), the header has 3'] },
      { file: 'data/a.tsv', errors: ['line 2 has 3 field(s), the header has 2'] },
    ]);
    expect(
      await brokenByStep([
        file('data/people.csv', `${people}"Carol, Jr.",41,"Lyon\nRhône"\r\n\n`, people),
        file('data/old.csv', 'a,b\n1\n2,3\n', 'a,b\n1\n'),
      ]),
    ).toEqual([]);
  });

  it('leaves valid code, JSONC, earlier breakage, fixtures and unknown languages alone', async () => {
    expect(
      await brokenByStep([
        file('src/a.js', 'export const a = 2;\n', 'export const a = 1;\n'),
        file('tsconfig.json', '{\n  // strict\n  "compilerOptions": { "strict": true, },\n}\n'),
        file('src/b.js', 'export const = 2;\n', 'export const = 1;\n'),
        file('test/__fixtures__/bad.js', 'export const = ;\n'),
        file('notes.txt', '{{{'),
        file('src/c.js', 'export const c = 1;\n', undefined),
      ]),
    ).toEqual([]);
  });

  it('reads JSON that JSON.parse reads strictly: a trailing comma or a comment breaks it', async () => {
    const broken = await brokenByStep([
      file('config/app.json', '{\n  "port": 8080,\n}\n'),
      file('package.json', '{\n  // deps\n  "name": "a"\n}\n', '{ "name": "a" }\n'),
      file('.vscode/settings.json', '{\n  "a": 1,\n}\n'),
      file('tsconfig.build.json', '{ "extends": "./tsconfig.json", }\n'),
      file('empty.json', '\n'),
    ]);
    expect(broken.map((entry) => entry.file)).toEqual(['config/app.json', 'package.json']);
  });

  it('knows when broken syntax is the work', () => {
    expect(brokenSyntaxAsked('Add a fixture with a syntax error for the parser tests')).toBe(true);
    expect(brokenSyntaxAsked('Add a malformed JSON sample')).toBe(true);
    expect(brokenSyntaxAsked('Add a double function to src/a.js')).toBe(false);
  });
});
