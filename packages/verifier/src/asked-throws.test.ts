import { describe, expect, it } from 'vitest';
import { askedThrows, otherMessagesThrown, throwAnsweredByReturn, thrownMessages } from './asked-throws';

describe('askedThrows', () => {
  it.each([
    ['Make parse throw a ParseError when the input is empty', [{ type: 'ParseError' }]],
    ['parse should raise ValueError on an empty string', [{ type: 'ValueError' }]],
    ['Make validate throw an error when the email is missing', [{}]],
    [
      "Throw an Error with the message 'name is required' when name is empty",
      [{ type: 'Error', message: 'name is required' }],
    ],
    [
      'Make create_user raise ValueError("name is required")',
      [{ type: 'ValueError', message: 'name is required' }],
    ],
    ['Return null instead of throwing an error', []],
    ['parse should no longer throw a ParseError on empty input', []],
    ['Catch the error thrown by parse', []],
  ])('%s → %j', (description, asked) => {
    expect(askedThrows(description)).toEqual(asked);
  });
});

describe('throwAnsweredByReturn', () => {
  const before = 'export function parse(s) {\n  return s.split(",");\n}\n';
  const add = (line: string) => before.replace('{\n', `{\n  ${line}\n`);
  it.each([
    ["if (s === '') return null;", "if (s === '') return null;"],
    ['if (!s) return undefined;', 'if (!s) return undefined;'],
    ["if (!s) return { error: 'empty' };", "if (!s) return { error: 'empty' };"],
    ["if (!s) return new Error('empty');", "if (!s) return new Error('empty');"],
  ])('finds %s', async (line, found) => {
    expect(await throwAnsweredByReturn([{ file: 'src/parse.js', before, after: add(line) }])).toEqual({
      file: 'src/parse.js',
      line: found,
    });
  });

  it('finds `return None` in Python', async () => {
    const py = 'def parse(text):\n    return text.split(",")\n';
    const after = py.replace(':\n', ':\n    if not text:\n        return None\n');
    expect(await throwAnsweredByReturn([{ file: 'app/parse.py', before: py, after }])).toEqual({
      file: 'app/parse.py',
      line: 'return None',
    });
  });

  it.each([
    ["if (s === '') throw new ParseError('empty');"],
    ["if (s === '') { log('empty'); throw new Error('empty'); }"],
    ['if (s.length > 9) return s.slice(0, 9).split(",");'],
    ["// if (s === '') return null;"],
  ])('accepts %s', async (line) => {
    expect(await throwAnsweredByReturn([{ file: 'src/parse.js', before, after: add(line) }])).toBeUndefined();
  });

  it('accepts a Python raise', async () => {
    const py = 'def parse(text):\n    return text.split(",")\n';
    const after = py.replace(':\n', ':\n    if not text:\n        raise ValueError("empty")\n');
    expect(await throwAnsweredByReturn([{ file: 'app/parse.py', before: py, after }])).toBeUndefined();
  });
});

describe('thrownMessages', () => {
  it('reads JS and Python messages', () => {
    expect(
      thrownMessages(
        "throw new Error('a');\nthrow new TypeError(`b`);\nraise ValueError(\"c\")\nraise KeyError(f'd')\nthrow err;",
      ),
    ).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('otherMessagesThrown', () => {
  const before = 'export function create(name) {\n  return { name };\n}\n';
  const withThrow = (message: string) =>
    before.replace('{\n', `{\n  if (!name) throw new Error('${message}');\n`);
  it('names the other message thrown', async () => {
    expect(
      await otherMessagesThrown(
        [{ file: 'src/users.js', before, after: withThrow('Name is missing') }],
        'name is required',
      ),
    ).toEqual(['Name is missing']);
  });

  it.each([['name is required'], ['name is required.']])('accepts %j', async (message) => {
    expect(
      await otherMessagesThrown(
        [{ file: 'src/users.js', before, after: withThrow(message) }],
        'name is required',
      ),
    ).toEqual([]);
  });

  it('accepts the message kept in a constant', async () => {
    const after = `const REQUIRED = 'name is required';\n${before.replace('{\n', '{\n  if (!name) throw new Error(REQUIRED);\n')}`;
    expect(await otherMessagesThrown([{ file: 'src/users.js', before, after }], 'name is required')).toEqual(
      [],
    );
  });
});

describe('askedThrows on a throw the code does now', () => {
  it.each([
    ['parse throws a TypeError on empty input; make it return null'],
    ['Fix the crash: parse throws a TypeError when the input is empty'],
    ['Stop parse from crashing: it raises KeyError'],
  ])('%s → none', (description) => {
    expect(askedThrows(description)).toEqual([]);
  });

  it('reads "so that parse throws" as asked', () => {
    expect(askedThrows('Change parse so that it throws a ParseError on empty input')).toEqual([
      { type: 'ParseError' },
    ]);
  });
});
