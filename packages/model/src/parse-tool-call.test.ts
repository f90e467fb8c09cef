import { describe, expect, it } from 'vitest';
import { parseToolCall } from './parse-tool-call';

describe('parseToolCall', () => {
  it('parses JSON, treats empty or blank text as {} and keeps unparsable text raw', () => {
    expect(parseToolCall({ id: 'a', name: 'f', rawArguments: '{"x":1}' }).arguments).toEqual({ x: 1 });
    expect(parseToolCall({ id: 'a', name: 'f', rawArguments: '' }).arguments).toEqual({});
    expect(parseToolCall({ id: 'a', name: 'f', rawArguments: ' ' }).arguments).toEqual({});
    expect(parseToolCall({ id: 'a', name: 'f', rawArguments: '{"x":' })).toEqual({
      id: 'a',
      name: 'f',
      arguments: '{"x":',
      rawArguments: '{"x":',
    });
    expect(parseToolCall({ id: 't', name: 'f', rawArguments: '[1,2]' }).arguments).toEqual([1, 2]);
  });
});
