import { describe, expect, it } from 'vitest';
import { restatedArguments } from './restated-arguments';

describe('restatedArguments', () => {
  it('ordinary deltas are "no"', () => {
    expect(restatedArguments('', '{"q": 1}')).toBe('no');
    expect(restatedArguments('{"q": ', '1}')).toBe('no');
    // JSON-looking text inside a string value is not a restatement (it does not start over).
    expect(restatedArguments('{"code": "', '{"x":1}')).toBe('no');
  });

  it('the complete arguments again, re-spaced or JSON-encoded, are "same"; others are "different"', () => {
    expect(restatedArguments('{"q": 1}', '{"q":1}')).toBe('same');
    expect(restatedArguments('{"q": 1}', '"{\\"q\\": 1}"')).toBe('same');
    expect(restatedArguments('{"q": 1}', '{"q": 2}')).toBe('different');
  });

  it('the whole arguments from their start after an incomplete stream are "whole"', () => {
    expect(restatedArguments('{', '{"city": "Orlando"}')).toBe('whole');
    expect(
      restatedArguments(
        '{"date": "2025-03-26", "income_type": "支出"',
        '{"date":"2025-03-26","income_type":"支出"}',
      ),
    ).toBe('whole');
    // Not from the start: an ordinary delta.
    expect(restatedArguments('{"a": 1, ', '{"b": 2}')).toBe('no');
  });
});
