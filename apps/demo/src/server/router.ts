import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError } from './http';

/** One request, as a route handler sees it. */
export interface RouteRequest {
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  /** Decoded path parameters (named groups of the route's pattern). */
  params: Record<string, string>;
}

/** A route: a method, a path pattern with named groups, a handler. */
export interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  handle(request: RouteRequest): Promise<void> | void;
}

/**
 * Finds the route of a request and runs it: 404 when no pattern matches the path, 405 (with
 * `allow`) when patterns match but not the method, 400 for a parameter that is not valid URL
 * encoding. `HEAD` is served by `GET` routes.
 */
export async function dispatch(
  routes: readonly Route[],
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
) {
  const method = request.method === 'HEAD' ? 'GET' : (request.method ?? 'GET');
  const allowed: string[] = [];
  for (const route of routes) {
    const match = route.pattern.exec(url.pathname);
    if (!match) continue;
    if (route.method !== method) {
      allowed.push(route.method);
      continue;
    }
    const params: Record<string, string> = {};
    for (const [name, value] of Object.entries(match.groups ?? {})) {
      try {
        params[name] = decodeURIComponent(value);
      } catch {
        throw new HttpError(400, `The ${name} in the path is not valid URL encoding.`);
      }
    }
    await route.handle({ request, response, url, params });
    return;
  }
  if (allowed.length) {
    const allow = [...new Set(allowed)].join(', ');
    throw new HttpError(405, `${request.method} is not allowed on ${url.pathname}; use ${allow}.`, { allow });
  }
  throw new HttpError(
    404,
    url.pathname.startsWith('/api/') ? `No API route ${url.pathname}.` : `Nothing at ${url.pathname}.`,
  );
}
