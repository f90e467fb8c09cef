import { describe, expect, it } from 'vitest';
import { extractJson } from './extract-json';

describe('extractJson', () => {
  it('parses plain JSON, including primitives', () => {
    expect(extractJson(' {"a":1} ')).toEqual({ ok: true, value: { a: 1 }, json: '{"a":1}' });
    expect(extractJson('42')).toMatchObject({ ok: true, value: 42 });
  });

  it('strips ```json and bare ``` fences', () => {
    expect(extractJson('```json\n{"a":1}\n```')).toMatchObject({ ok: true, value: { a: 1 } });
    expect(extractJson('Result:\n```\n[1,2]\n```')).toMatchObject({ ok: true, value: [1, 2] });
    expect(extractJson('```JSON {"b":true}```')).toMatchObject({ ok: true, value: { b: true } });
  });

  it('skips a fence that does not parse and uses a later one', () => {
    expect(extractJson('```ts\nconst x = 1;\n```\nthen\n```json\n{"ok":1}\n```')).toMatchObject({
      ok: true,
      value: { ok: 1 },
    });
  });

  it('finds the first balanced object in prose, respecting strings and escapes', () => {
    const text = 'Here: {"msg":"a } and { and \\" quote","n":[1,{"d":2}]} and later {"x":1}';
    expect(extractJson(text)).toMatchObject({
      ok: true,
      value: { msg: 'a } and { and " quote', n: [1, { d: 2 }] },
    });
  });

  it('skips balanced non-JSON braces before the JSON', () => {
    expect(extractJson('Use {curly} braces; answer: {"a":2}')).toMatchObject({ ok: true, value: { a: 2 } });
  });

  it('ignores <think> blocks', () => {
    expect(extractJson('<think>maybe {"a":0}?</think>\n{"a":1}')).toMatchObject({
      ok: true,
      value: { a: 1 },
    });
  });

  it('reports failures', () => {
    expect(extractJson('')).toEqual({ ok: false, error: 'the answer is empty' });
    expect(extractJson('no json here')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no JSON object/),
    });
    expect(extractJson('{"a": 1,}')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no valid JSON/),
    });
    expect(extractJson('{"a": 1')).toMatchObject({ ok: false });
  });
});
