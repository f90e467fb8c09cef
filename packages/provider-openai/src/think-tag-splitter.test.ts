import { describe, expect, it } from 'vitest';
import { splitThinkTags, ThinkTagSplitter } from './think-tag-splitter';

describe('ThinkTagSplitter', () => {
  it('splits a leading think block from the answer, whole or in any pieces', () => {
    const whole = '<think>\n2 + 2 is 4.\n</think>\n\nThe answer is 4.';
    expect(splitThinkTags(whole)).toEqual({ text: 'The answer is 4.', reasoning: '\n2 + 2 is 4.\n' });
    for (const size of [1, 2, 3, 5, 8]) {
      const splitter = new ThinkTagSplitter();
      let text = '';
      let reasoning = '';
      for (let index = 0; index < whole.length; index += size) {
        const part = splitter.push(whole.slice(index, index + size));
        text += part.text;
        reasoning += part.reasoning;
      }
      const rest = splitter.flush();
      expect({ text: text + rest.text, reasoning: reasoning + rest.reasoning }).toEqual({
        text: 'The answer is 4.',
        reasoning: '\n2 + 2 is 4.\n',
      });
    }
  });

  it('leaves answers without a leading block alone', () => {
    expect(splitThinkTags('Use <think> tags like this.')).toEqual({
      text: 'Use <think> tags like this.',
      reasoning: '',
    });
    expect(splitThinkTags('<thinking is fun')).toEqual({ text: '<thinking is fun', reasoning: '' });
    expect(splitThinkTags('')).toEqual({ text: '', reasoning: '' });
    // An unterminated block is all reasoning.
    expect(splitThinkTags('<think>still going')).toEqual({ text: '', reasoning: 'still going' });
  });
});
