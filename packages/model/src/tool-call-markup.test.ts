import { describe, expect, it } from 'vitest';
import { toolCallMarkup } from './tool-call-markup';

const offered = ['read_file', 'get_weather'];

describe('toolCallMarkup', () => {
  it.each([
    [
      '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>',
      '<tool_call>',
      'read_file',
    ],
    ['[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]', '[TOOL_CALLS]', 'get_weather'],
    ['[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}', '[TOOL_CALLS]', 'get_weather'],
    ['<|python_tag|>{"name": "read_file", "parameters": {"path": "a.ts"}}', '<|python_tag|>', 'read_file'],
    [
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
      '<｜tool▁call▁begin｜>',
      'get_weather',
    ],
    ['<function=read_file>{"path": "a.ts"}</function>', '<function=…>', 'read_file'],
    ['{"name": "read_file", "arguments": {"path": "a.ts"}}', 'a bare JSON call', 'read_file'],
    [
      '```json\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n```',
      'a bare JSON call',
      'get_weather',
    ],
  ])('finds the call in %j', (text, format, name) => {
    expect(toolCallMarkup(text, offered)).toEqual({ format, name });
  });

  it.each([
    ['an answer', 'The file says hello.'],
    [
      'markup naming a tool not offered',
      '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>',
    ],
    [
      'a JSON answer that is not one call',
      'Here: {"name": "read_file", "arguments": {}} is how you would call it.',
    ],
    ['empty text', ''],
  ])('leaves %s alone', (_what, text) => {
    expect(toolCallMarkup(text, offered)).toBeUndefined();
  });

  it('finds nothing when no tool was offered', () => {
    expect(
      toolCallMarkup('<tool_call>{"name": "read_file", "arguments": {}}</tool_call>', []),
    ).toBeUndefined();
  });
});
