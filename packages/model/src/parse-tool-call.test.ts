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

  it('a call without arguments sent as `null` has {} (Mistral, gateways); the raw text stays', () => {
    expect(parseToolCall({ id: 'n', name: 'f', rawArguments: 'null' })).toEqual({
      id: 'n',
      name: 'f',
      arguments: {},
      rawArguments: 'null',
    });
  });

  it('arguments encoded twice (a JSON string holding the JSON) are the JSON they hold', () => {
    expect(parseToolCall({ id: 'd', name: 'f', rawArguments: '"{\\"path\\": \\"a.txt\\"}"' })).toEqual({
      id: 'd',
      name: 'f',
      arguments: { path: 'a.txt' },
      rawArguments: '{"path": "a.txt"}',
    });
    // A string that is not JSON, or JSON that is not an object or array, stays a string.
    expect(parseToolCall({ id: 's', name: 'f', rawArguments: '"{\\"path\\": \\"a."' }).arguments).toBe(
      '{"path": "a.',
    );
    expect(parseToolCall({ id: 's', name: 'f', rawArguments: '"hello"' }).arguments).toBe('hello');
    expect(parseToolCall({ id: 's', name: 'f', rawArguments: '"42"' }).arguments).toBe('42');
  });
});
