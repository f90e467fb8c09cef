import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError, sendJson } from './http';
import { defaultServerCaps, refuseOverCap } from './limits';
import { createRequestGuard, type RequestGuard } from './request-guard';
import { dispatch, type Route } from './router';
import { approvalRoutes } from './routes/approval-routes';
import { changeRoutes } from './routes/change-routes';
import { configRoutes } from './routes/config-routes';
import { runRoutes } from './routes/run-routes';
import { defaultAssetsDir, staticRoutes } from './routes/static-routes';
import type { RunBackend } from './run-backend';
import { createRunRegistry } from './run-registry';
import type { ServerContext } from './server-context';
import { WebServerError } from './web-server-error';

export { startRunBodySchema } from './api-types';
export type {
  ReadRunFunction,
  RunBackend,
  RunMode,
  StartedRun,
  StartRunFunction,
  StartRunInput,
} from './run-backend';

/** Options of {@link startWebServer}: where to listen, and the run backend (`createDemoRunner`'s runner). */
export interface WebServerOptions extends RunBackend {
  /** Interface to bind. Default `127.0.0.1` (loopback only: the UI can start runs that touch files). */
  host?: string;
  /** TCP port; `0` (the default) picks a free one. The bound port is in the returned `url`. */
  port?: number;
  /** The run journals' folder (`<runId>.jsonl`), listed by `GET /api/runs`. */
  journalDir: string;
  /** Interval of SSE keep-alive comments. Default 15 000 ms. */
  heartbeatMs?: number;
  /** The built web UI (`index.html` + `assets/`). Default: `dist/web` of this package. */
  assetsDir?: string;
  /**
   * Access token. A non-loopback `host` always needs one: generated when not given, and part of
   * the returned `url` (`?token=…`; the page then keeps it in an HttpOnly cookie). Loopback: none
   * by default.
   */
  token?: string;
  /** Host names the server answers to besides `host` and loopback names (Host-header check). */
  allowedHosts?: readonly string[];
  /** Event streams open at once; one more is answered 429. Default 32. */
  maxEventStreams?: number;
  /** Runs active at once (started or resumed); one more is answered 503. Default 4. */
  maxActiveRuns?: number;
}

/** A running web server. */
export interface WebServer {
  /** `http://host:port/`, with the port actually bound. */
  url: string;
  /** Cancels the runs still active, ends every event stream, and stops listening. */
  close(): Promise<void>;
}

function validateOptions(options: WebServerOptions): {
  host: string;
  port: number;
  heartbeatMs: number;
  guard: RequestGuard;
  maxEventStreams: number;
  maxActiveRuns: number;
} {
  const fail = (message: string): never => {
    throw new WebServerError({ code: 'invalid-options', message: `startWebServer: ${message}` });
  };
  if (typeof options !== 'object' || options === null) fail('options must be an object.');
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? 0;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  if (typeof host !== 'string' || host === '')
    fail(`host must be a non-empty string, got ${JSON.stringify(host)}.`);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    fail(`port must be an integer 0–65535 (0 = any free port), got ${String(port)}.`);
  }
  if (!Number.isFinite(heartbeatMs) || heartbeatMs < 10)
    fail(`heartbeatMs must be ≥ 10, got ${String(heartbeatMs)}.`);
  if (typeof options.journalDir !== 'string' || options.journalDir === '') {
    fail(`journalDir must be a non-empty path, got ${JSON.stringify(options.journalDir)}.`);
  }
  if (typeof options.startRun !== 'function')
    fail('startRun must be a function (see runner/demo-runner.ts).');
  if (typeof options.readRun !== 'function') fail('readRun must be a function (see runner/demo-runner.ts).');
  const maxEventStreams = options.maxEventStreams ?? defaultServerCaps.maxEventStreams;
  const maxActiveRuns = options.maxActiveRuns ?? defaultServerCaps.maxActiveRuns;
  for (const [name, value] of Object.entries({ maxEventStreams, maxActiveRuns })) {
    if (!Number.isInteger(value) || value < 1) fail(`${name} must be an integer ≥ 1, got ${String(value)}.`);
  }
  let guard: RequestGuard | undefined;
  try {
    guard = createRequestGuard({
      host,
      ...(options.token !== undefined ? { token: options.token } : {}),
      ...(options.allowedHosts !== undefined ? { allowedHosts: options.allowedHosts } : {}),
    });
  } catch (error) {
    fail((error as Error).message);
  }
  return { host, port, heartbeatMs, guard: guard as RequestGuard, maxEventStreams, maxActiveRuns };
}

/** Which cap a request meets: starting or resuming a run, or opening an event stream. */
function capFor(
  method: string,
  pathname: string,
  now: { activeRuns: number; maxActiveRuns: number; streams: number; maxEventStreams: number },
) {
  if (method === 'POST' && /^\/api\/runs(?:\/[^/]+\/resume)?$/.test(pathname))
    return refuseOverCap('runs', now.activeRuns, now.maxActiveRuns);
  if (method === 'GET' && /^\/api\/runs\/[^/]+\/events$/.test(pathname))
    return refuseOverCap('streams', now.streams, now.maxEventStreams);
  return undefined;
}

/**
 * Starts the `closedloop serve` web UI: a `node:http` server (no framework) that serves the built
 * page and a JSON + SSE API over the run backend. Routes live in `routes/` (runs, approvals,
 * step changes, config, static files); this module checks every request, then dispatches.
 *
 * | route                                         | answer                                                              |
 * | --------------------------------------------- | ------------------------------------------------------------------- |
 * | `GET /`, `GET /assets/*`                      | the built page (vite), with a strict CSP                            |
 * | `GET /api/config`                             | `{ model, version }`: the model typed tasks run on (`null`: none)   |
 * | `POST /api/runs` `{ task?, mode }`            | `201 { runId }`; no task = the built-in scenario; 400 for a typed task without a model |
 * | `GET /api/runs`                               | `{ runs: [{ runId, updatedAt, active }] }`, newest first            |
 * | `GET /api/runs/:id`                           | `{ runId, active, resumable, model, workspace, events }`            |
 * | `GET /api/runs/:id/events`                    | SSE: one journaled `RunEvent` per message, `id:` = its index (resumes after `Last-Event-ID` or `?from=`); live-only events (`text-delta`…) as `event: live` without id; ends with `event: end` |
 * | `POST /api/runs/:id/cancel`                   | `202 { runId, cancelling: true }`; 409 when the run is not active   |
 * | `POST /api/runs/:id/resume`                   | `202 { runId }`; 409 when it is active or stopped for good          |
 * | `POST /api/runs/:id/approvals/:approvalId`    | `{ approved, note? }` answers a pending approval; 409 when answered |
 * | `GET /api/runs/:id/steps/:stepId/changes`     | `{ runs: StepChanges[] }`: the workspace diff of each run of a step |
 *
 * Every request passes the request guard (`request-guard.ts`): the `Host` must be the server's
 * (DNS rebinding), a non-loopback server needs its token (generated and put in `url`), and a
 * state-changing request from another site (`Origin`, `Sec-Fetch-Site`) is refused. At most
 * `maxActiveRuns` runs (503 beyond) and `maxEventStreams` event streams (429 beyond) at once.
 *
 * @example
 * const runner = createDemoRunner({ journal: '.closedloop/runs' });
 * const server = await startWebServer({ journalDir: runner.journal, ...runner });
 * console.log(`open ${server.url}`);
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const { host, port, heartbeatMs, guard, maxEventStreams, maxActiveRuns } = validateOptions(options);
  const registry = createRunRegistry(options);
  const context: ServerContext = {
    backend: options,
    registry,
    journalDir: options.journalDir,
    heartbeatMs,
    streams: new Set(),
  };
  const routes: Route[] = [
    ...configRoutes(context),
    ...runRoutes(context),
    ...approvalRoutes(context),
    ...changeRoutes(context),
    ...staticRoutes(options.assetsDir ?? defaultAssetsDir()),
  ];
  async function route(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const refusal = guard.check(request, url);
    if (refusal) throw new HttpError(refusal.status, refusal.message, refusal.headers);
    const activeRuns = [...registry.channels.values()].filter((channel) => !channel.ended).length;
    const overCap = capFor(request.method ?? 'GET', url.pathname, {
      activeRuns,
      maxActiveRuns,
      streams: context.streams.size,
      maxEventStreams,
    });
    if (overCap) throw new HttpError(overCap.status, overCap.message, overCap.headers);
    for (const [name, value] of Object.entries(guard.cookieFor(url))) response.setHeader(name, value);
    await dispatch(routes, request, response, url);
  }

  const server: Server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      const status = HttpError.isInstance(error) ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      sendJson(response, status, { error: message }, HttpError.isInstance(error) ? error.headers : {});
    });
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => {
      reject(
        new WebServerError({
          code: 'listen-failed',
          message: `startWebServer: could not listen on ${host}:${port}: ${error.message}`,
          cause: error,
        }),
      );
    };
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}/${guard.token !== undefined ? `?token=${guard.token}` : ''}`,
    close() {
      closing ??= (async () => {
        await registry.close();
        for (const stream of context.streams) stream.end();
        context.streams.clear();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
