import { describe, expect, it } from 'vitest';
import { isEventStreamResponse, repairEventStream, withRepairedEventStreams } from './repair-event-stream';

const encoder = new TextEncoder();

async function repaired(...chunks: string[]): Promise<string> {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(repairEventStream(body)).text();
}

describe('repairEventStream', () => {
  it('writes every line ending as LF, a CRLF or a lone CR split across reads included', async () => {
    expect(await repaired('data: 1\r', '\ndata: 2\r', '\r', 'data: 3\r\n\r', '\n')).toBe(
      'data: 1\ndata: 2\n\ndata: 3\n\n',
    );
    expect(await repaired('data: {"a":1}\r\r', 'data: [DONE]\r\r')).toBe('data: {"a":1}\n\ndata: [DONE]\n\n');
  });

  it('closes a last event sent without its blank line when its data is whole JSON or [DONE]', async () => {
    expect(await repaired('data: {"a":1}\n\n', 'data: {"b":', '2}')).toBe(
      'data: {"a":1}\n\ndata: {"b":2}\n\n',
    );
    expect(await repaired('event: message_stop\ndata: {"type":"message_stop"}\n')).toBe(
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
    expect(await repaired('data: {"a":1}\r\rdata: [DONE]')).toBe('data: {"a":1}\n\ndata: [DONE]\n\n');
    // Multi-line data is one JSON value.
    expect(await repaired('data: {"a":\ndata: 1}')).toBe('data: {"a":\ndata: 1}\n\n');
  });

  it('leaves a cut last event or a comment unterminated (the stream reads as cut); drops a last name without data', async () => {
    expect(await repaired('data: {"a":1}\n\ndata: {"b":')).toBe('data: {"a":1}\n\ndata: {"b":');
    expect(await repaired('data: {"a":1}\n\n: keep-alive')).toBe('data: {"a":1}\n\n: keep-alive');
    expect(await repaired('data: {"a":1}\n\nevent: ping')).toBe('data: {"a":1}\n\n');
  });

  it('drops events with a name and no data (`event: ping`), also split across reads; a named event with data passes', async () => {
    expect(
      await repaired('event: ping\n\ndata: {"a":1}\n\nev', 'ent: pi', 'ng\n', '\ndata: {"b":2}\n\n'),
    ).toBe('data: {"a":1}\n\ndata: {"b":2}\n\n');
    expect(await repaired('event: ping\nid: 3\n: c\n\nevent: x\ndata: 1\n\ndata: 2\nevent: y\n\n')).toBe(
      'event: x\ndata: 1\n\ndata: 2\nevent: y\n\n',
    );
    expect(await repaired('event:ping\r\rdata:{"a":1}\r\r')).toBe('data:{"a":1}\n\n');
  });

  it('passes an error in a non-standard `error:` field (llama.cpp) as the data {"error": …}', async () => {
    expect(await repaired('data: {"a":1}\n\nerror: {"code":500,"message":"busy"}\n\ndata: [DONE]\n\n')).toBe(
      'data: {"a":1}\n\ndata: {"error":{"code":500,"message":"busy"}}\n\ndata: [DONE]\n\n',
    );
    expect(await repaired('error: model not loaded')).toBe(
      'data: {"error":{"message":"model not loaded"}}\n\n',
    );
    // A backend's JSON error forwarded without `data:` (Lemonade), with or without a blank line after.
    expect(await repaired('data: {"a":1}\n\n{"error":{"code":400,"message":"too long"}}')).toBe(
      'data: {"a":1}\n\ndata: {"error":{"code":400,"message":"too long"}}\n\n',
    );
    expect(await repaired('{"error":{"message":"x"}}\n\n{"error":"cut')).toBe(
      'data: {"error":{"message":"x"}}\n\ndata: {"error":{"message":"{\\"error\\":\\"cut"}}\n\n',
    );
    // With data, the `error:` line is left alone (the data is the event).
    expect(await repaired('error: x\ndata: {"a":1}\n\n')).toBe('error: x\ndata: {"a":1}\n\n');
  });

  it('drops a byte order mark at the start', async () => {
    expect(await repaired('\uFEFFevent: ping\n\ndata: {"a":1}\n\n')).toBe('data: {"a":1}\n\n');
    expect(await repaired('\uFEFFdata: {"a":1}\n\n')).toBe('data: {"a":1}\n\n');
  });

  it('passes nothing after the terminal event ([DONE], message_stop, response.completed), split or not', async () => {
    expect(await repaired('data: {"a":1}\n\ndata: [DO', 'NE]\n\ndata: {"a":2}\n\ndata: [DONE]\n\n')).toBe(
      'data: {"a":1}\n\ndata: [DONE]\n\n',
    );
    expect(await repaired('data: {"a":1}\n\ndata: [DONE]')).toBe('data: {"a":1}\n\ndata: [DONE]\n\n');
    expect(
      await repaired(
        'event: message_stop\ndata: {"type":"message_stop"}\n\nevent: content_block_delta\ndata: {}\n\n',
      ),
    ).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    expect(await repaired('data: {"type":"message_stop"}\n\ndata: {"x":1}\n\n')).toBe(
      'data: {"type":"message_stop"}\n\n',
    );
    expect(
      await repaired('event: response.completed\ndata: {"type":"response.completed"}\n\ndata: {"x":1}\n\n'),
    ).toBe('event: response.completed\ndata: {"type":"response.completed"}\n\n');
    // `[DONE]` inside JSON data, a `message_stop` that is only a value: not terminal.
    expect(
      await repaired('data: {"t":"data: [DONE]"}\n\ndata: {"type":"message_stop_x"}\n\ndata: 1\n\n'),
    ).toBe('data: {"t":"data: [DONE]"}\n\ndata: {"type":"message_stop_x"}\n\ndata: 1\n\n');
  });

  it("drops empty `data:` lines (a keep-alive's), also split across reads; other lines pass", async () => {
    expect(await repaired('data: {"a":1}\n\ndata: \n\nevent: ping\ndata:\n\ndata: {"b":2}\n\n')).toBe(
      'data: {"a":1}\n\n\ndata: {"b":2}\n\n',
    );
    expect(await repaired('data: {"a":1}\n\nda', 'ta:', ' ', '\n\ndata', ': {"b":', '2}\n\n')).toBe(
      'data: {"a":1}\n\n\ndata: {"b":2}\n\n',
    );
    expect(await repaired('data: {"a":1}\n\ndata: ')).toBe('data: {"a":1}\n\ndata: ');
    expect(await repaired('data: {"a":\ndata: 1}\n\n', ': comment\n\n')).toBe(
      'data: {"a":\ndata: 1}\n\n: comment\n\n',
    );
  });

  it('passes a stream without CR through read for read', async () => {
    const chunk = encoder.encode('data: {"a":1}\n\n');
    const reader = repairEventStream(
      new ReadableStream({
        start(controller) {
          controller.enqueue(chunk);
          controller.close();
        },
      }),
    ).getReader();
    expect((await reader.read()).value).toBe(chunk);
  });
});

describe('withRepairedEventStreams', () => {
  it('repairs event streams only', async () => {
    const reply = (type: string) => async () =>
      new Response('data: {"a":1}\r\rdata: {"b":2}', { headers: { 'content-type': type } });
    expect(
      await (await withRepairedEventStreams(reply('text/event-stream; charset=utf-8'))('x')).text(),
    ).toBe('data: {"a":1}\n\ndata: {"b":2}\n\n');
    expect(await (await withRepairedEventStreams(reply('application/json'))('x')).text()).toBe(
      'data: {"a":1}\r\rdata: {"b":2}',
    );
  });
});

describe('isEventStreamResponse', () => {
  const response = (type: string, status = 200) =>
    new Response('data: {}\n\n', { status, headers: { 'content-type': type } });
  const streaming = { input: 'http://x/v1/chat/completions', init: { body: '{"model":"m","stream": true}' } };
  const whole = { input: 'http://x/v1/chat/completions', init: { body: '{"model":"m"}' } };

  it('is an event stream when labelled so, or a 200 to a streaming request labelled neither JSON nor HTML', () => {
    expect(isEventStreamResponse(response('text/event-stream'), whole)).toBe(true);
    expect(isEventStreamResponse(response('text/plain; charset=utf-8'), streaming)).toBe(true);
    expect(
      isEventStreamResponse(response('application/octet-stream'), {
        input: 'http://x/v1beta/m:streamGenerateContent?alt=sse',
      }),
    ).toBe(true);
    expect(isEventStreamResponse(response('text/plain'), whole)).toBe(false);
    expect(isEventStreamResponse(response('application/json'), streaming)).toBe(false);
    expect(isEventStreamResponse(response('text/html'), streaming)).toBe(false);
    expect(isEventStreamResponse(response('text/plain', 502), streaming)).toBe(false);
  });
});
