import { ClosedloopError } from '@closedloop/model/error';

const marker = Symbol.for('closedloop.demo.web-server.error');

/** Every way {@link startWebServer} can refuse to start. */
export type WebServerErrorCode =
  /** An option is missing, of the wrong type or out of range (e.g. `port: 70000`). */
  | 'invalid-options'
  /** The socket could not be bound (port in use, host not local, permission denied). */
  | 'listen-failed';

/**
 * The error `startWebServer` throws before it serves anything. Request-level problems never
 * throw: they become HTTP 4xx/5xx answers. `WebServerError.isInstance(e)` works across
 * duplicate copies of the module.
 */
export class WebServerError extends ClosedloopError<WebServerErrorCode> {
  readonly [marker] = true;
  override readonly name = 'WebServerError';

  /** True for a `WebServerError` from any copy of this module. */
  static override isInstance(error: unknown): error is WebServerError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
