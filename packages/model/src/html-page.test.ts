import { describe, expect, it } from 'vitest';
import { htmlPageError, isHtmlContentType } from './html-page';
import { ModelError } from './model-error';

describe('isHtmlContentType / htmlPageError', () => {
  it('knows an HTML page by its media type, parameters and case aside', () => {
    for (const type of ['text/html', 'text/html; charset=utf-8', 'TEXT/HTML', 'application/xhtml+xml'])
      expect(isHtmlContentType(type)).toBe(true);
    for (const type of ['text/event-stream', 'application/json', 'text/plain', '', null, undefined])
      expect(isHtmlContentType(type)).toBe(false);
  });

  it('is a non-retryable invalid-response naming the page by its title, never keeping the page', () => {
    const body = `<html><head><title>\n  Sign in <b>now</b> ${'x'.repeat(200)}</title></head><body>token=abc</body></html>`;
    const error = htmlPageError({
      provider: 'acme',
      contentType: 'text/html',
      body,
      requestId: 'req_1',
      streaming: true,
    });
    expect(ModelError.isInstance(error)).toBe(true);
    expect([error.code, error.isRetryable, error.requestId]).toEqual(['invalid-response', false, 'req_1']);
    expect(error.message).toMatch(
      /^acme: the server answered with an HTML page \(text\/html, titled "Sign in now x+…"\), not an event stream \(request req_1\); check the baseURL/,
    );
    expect(error.message).not.toContain('token=abc');
    expect(error.rawOutput).toBeUndefined();
    const untitled = htmlPageError({ provider: 'acme', contentType: 'text/html', streaming: false });
    expect(untitled.message).toBe(
      'acme: the server answered with an HTML page (text/html), not a JSON body; check the baseURL: it points at a web page, a login or a proxy, not at the API.',
    );
  });
});
