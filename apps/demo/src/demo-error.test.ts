import { ClosedloopError } from '@closedloop/model';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { DemoError, type DemoErrorCode } from './demo-error';
import { HttpError, type HttpErrorCode } from './server/http';
import { WebServerError, type WebServerErrorCode } from './server/web-server-error';

describe('the demo errors extend ClosedloopError', () => {
  it('DemoError and WebServerError are ClosedloopErrors with their code and cause', () => {
    const cause = new Error('EADDRINUSE');
    const demo = new DemoError('no-model', 'No model: pass --provider.', { cause });
    const server = new WebServerError({ code: 'listen-failed', message: 'Port 4000 is in use.', cause });
    for (const error of [demo, server]) {
      expect(error).toBeInstanceOf(ClosedloopError);
      expect(ClosedloopError.isInstance(error)).toBe(true);
      expect(error.cause).toBe(cause);
    }
    expect([demo.name, server.name]).toEqual(['DemoError', 'WebServerError']);
    expect(DemoError.isInstance(server)).toBe(false);
    expect(WebServerError.isInstance(demo)).toBe(false);
    expectTypeOf(demo.code).toEqualTypeOf<DemoErrorCode>();
    expectTypeOf(server.code).toEqualTypeOf<WebServerErrorCode>();
  });

  it('HttpError is a ClosedloopError whose code and details carry the status', () => {
    const error = new HttpError(405, 'GET is not allowed on /api/runs/r1/cancel; use POST.', {
      allow: 'POST',
    });
    expect(ClosedloopError.isInstance(error)).toBe(true);
    expect(HttpError.isInstance(error)).toBe(true);
    expect(HttpError.isInstance(new DemoError('unknown-run', 'No run "r1".'))).toBe(false);
    expect(error.code).toBe('http-405');
    expect(error.details).toEqual({ status: 405, headers: { allow: 'POST' } });
    expect(error.status).toBe(405);
    expectTypeOf(error.code).toEqualTypeOf<HttpErrorCode>();
  });

  it('isInstance works for an error from another copy of the module', () => {
    const foreign = Object.assign(new Error('x'), {
      [Symbol.for('closedloop.error')]: true,
      [Symbol.for('closedloop.demo.error')]: true,
    });
    expect(DemoError.isInstance(foreign)).toBe(true);
    expect(ClosedloopError.isInstance(foreign)).toBe(true);
  });
});
