import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError, sendJson } from './http';
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
}

/** A running web server. */
export interface WebServer {
  /** `http://host:port/`, with the port actually bound. */
  url: string;
  /** Cancels the runs still active, ends every event stream, and stops listening. */
  close(): Promise<void>;
}

const loopbackHosts = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  const colon = hostHeader.lastIndexOf(':');
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

function validateOptions(options: WebServerOptions): { host: string; port: number; heartbeatMs: number } {
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
  return { host, port, heartbeatMs };
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
 * Bound to loopback it also refuses requests whose `Host` is not a loopback name (DNS rebinding).
 * Several runs may be active at once.
 *
 * @example
 * const runner = createDemoRunner({ journal: '.closedloop/runs' });
 * const server = await startWebServer({ journalDir: runner.journal, ...runner });
 * console.log(`open ${server.url}`);
 */
export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const { host, port, heartbeatMs } = validateOptions(options);
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
  const checkHost = loopbackHosts.has(host);

  async function route(request: IncomingMessage, response: ServerResponse) {
    if (checkHost && !loopbackHosts.has(hostnameOf(request.headers.host ?? ''))) {
      throw new HttpError(
        403,
        `Host "${request.headers.host ?? ''}" is not allowed; open the UI via ${host}.`,
      );
    }
    await dispatch(routes, request, response, new URL(request.url ?? '/', 'http://localhost'));
  }

  const server: Server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof Error ? error.message : String(error);
      if (response.headersSent) {
        response.destroy();
        return;
      }
      sendJson(response, status, { error: message }, error instanceof HttpError ? error.headers : {});
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
    url: `http://${urlHost}:${address.port}/`,
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
