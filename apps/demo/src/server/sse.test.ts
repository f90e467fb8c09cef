import { describe, expect, it } from 'vitest';
import { parseSse } from './__fixtures__/read-sse';
import { formatSseMessage, resolveStreamStart } from './sse';

describe('formatSseMessage', () => {
  it('writes id, event and one data line of JSON, ended by a blank line', () => {
    expect(formatSseMessage({ id: 3, data: { type: 'run-started', note: 'a\nb' } })).toBe(
      'id: 3\ndata: {"type":"run-started","note":"a\\nb"}\n\n',
    );
    expect(formatSseMessage({ event: 'end', data: {} })).toBe('event: end\ndata: {}\n\n');
    expect(formatSseMessage({ data: undefined })).toBe('data: null\n\n');
  });

  it('cannot be broken out of by newlines in id or event', () => {
    const text = formatSseMessage({ id: '1\ndata: evil', event: 'x\n\nid: 9', data: 1 });
    expect(parseSse(text).messages).toEqual([{ id: '1data: evil', event: 'xid: 9', data: '1' }]);
  });
});

describe('resolveStreamStart', () => {
  it('starts after Last-Event-ID, else at ?from=, else at 0', () => {
    expect(resolveStreamStart({})).toBe(0);
    expect(resolveStreamStart({ from: '7' })).toBe(7);
    expect(resolveStreamStart({ lastEventId: '7' })).toBe(8);
    expect(resolveStreamStart({ lastEventId: '7', from: '2' })).toBe(8);
    expect(resolveStreamStart({ lastEventId: ' 4 ' })).toBe(5);
  });

  it('ignores values that are not non-negative integers', () => {
    for (const bad of ['-1', '1.5', 'abc', '', '1e3', '9'.repeat(20)]) {
      expect(resolveStreamStart({ lastEventId: bad, from: bad }), bad).toBe(0);
    }
    expect(resolveStreamStart({ lastEventId: 'x', from: '3' })).toBe(3);
  });
});
