import { codeOnly } from './asked-literals';
import { type ChangedText, SCRIPT_FILE } from './changed-text';

/**
 * A route asked for ("add a GET /health endpoint", "a POST /users route") must be registered
 * with that method and that path — express, fastify, hono and koa style `app.get('/health', …)`,
 * fastify's `route({ method, url })`, Flask's `@app.route('/health', methods=[…])`, FastAPI's
 * `@app.get('/health')` — not as `POST /health` or `GET /healthz`.
 */

/** A route a description asks for: the HTTP method (upper case), if named, and the path. */
export interface AskedRoute {
  method?: string;
  path: string;
}

const METHODS = 'GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS';
const PATH = '(\\/[\\w\\-.~:{}<>/*]*)';
const METHOD_PATH = new RegExp(`\\b(${METHODS})\\s+\`?${PATH}`, 'g');
const PATH_NOUN = new RegExp(`\`?${PATH}\`?\\s+(?:endpoint|route|handler)\\b`, 'g');
const NOUN_PATH = new RegExp(`\\b(?:endpoint|route)\\s+(?:at\\s+|for\\s+)?\`?${PATH}`, 'g');
const ROUTE_ASK = /\b(?:add|create|expose|register|implement|serve|write|define|introduce|new)\w*\b/i;

const cleanPath = (path: string) => path.replace(/[.,;:]+$/, '');

/** The routes a description asks to add. */
export function askedRoutes(description: string): AskedRoute[] {
  if (!ROUTE_ASK.test(description)) return [];
  const routes = new Map<string, AskedRoute>();
  for (const match of description.matchAll(METHOD_PATH)) {
    const path = cleanPath(match[2] ?? '');
    if (path !== '') routes.set(path, { method: (match[1] ?? '').toUpperCase(), path });
  }
  for (const pattern of [PATH_NOUN, NOUN_PATH])
    for (const match of description.matchAll(pattern)) {
      const path = cleanPath(match[1] ?? '');
      if (path !== '' && !routes.has(path) && !/\.\w+$/.test(path)) routes.set(path, { path });
    }
  return [...routes.values()];
}

/** A route registration found in code: the methods it answers (`*` for any) and its path. */
export interface Registration {
  methods: string[];
  path: string;
}

/** A quoted path whose opening quote is capture group `n`. */
const quoted = (n: number) => `[fr]?(["'\`])(\\/[^"'\`\\n]*)\\${n}`;
const CALL_FORM = new RegExp(
  `(?<![\\w$])(?:@)?[\\w$]+(?:\\.[\\w$]+)*\\.(get|post|put|patch|delete|del|head|options|all|use|route|api_route)\\s*\\(\\s*${quoted(2)}([^\\n]*)`,
  'gi',
);
const HONO_ON = new RegExp(`\\.on\\s*\\(\\s*(["'])(${METHODS})\\1\\s*,\\s*${quoted(3)}`, 'gi');
const ROUTE_OBJECT = /\.route\s*\(\s*\{([^}]*)\}/g;

/** The route registrations in a JS/TS or Python code text. */
export function routeRegistrations(code: string): Registration[] {
  const found: Registration[] = [];
  for (const match of code.matchAll(CALL_FORM)) {
    const verb = (match[1] ?? '').toLowerCase();
    const path = match[3] ?? '';
    const rest = match[4] ?? '';
    if (verb === 'route' || verb === 'api_route') {
      // Flask / FastAPI: `methods=["POST"]`, GET when none is given.
      const list = /\bmethods\s*=\s*[[(]([^\])]*)[\])]/.exec(rest)?.[1];
      const methods =
        list === undefined
          ? ['GET']
          : [...list.matchAll(/["'](\w+)["']/g)].map((m) => (m[1] ?? '').toUpperCase());
      found.push({ methods, path });
    } else if (verb === 'all' || verb === 'use') found.push({ methods: ['*'], path });
    else found.push({ methods: [verb === 'del' ? 'DELETE' : verb.toUpperCase()], path });
  }
  for (const match of code.matchAll(HONO_ON))
    found.push({ methods: [(match[2] ?? '').toUpperCase()], path: match[4] ?? '' });
  for (const match of code.matchAll(ROUTE_OBJECT)) {
    const body = match[1] ?? '';
    const path = /\b(?:url|path)\s*:\s*(["'`])(\/[^"'`]*)\1/.exec(body)?.[2];
    if (path === undefined) continue;
    const methods = [
      ...body
        .replace(/\b(?:url|path)\s*:\s*(["'`])[^"'`]*\1/, '')
        .matchAll(new RegExp(`["'](${METHODS})["']`, 'gi')),
    ].map((m) => (m[1] ?? '').toUpperCase());
    found.push({ methods: methods.length > 0 ? methods : ['*'], path });
  }
  return found;
}

/** A path with its parameters written one way (`:id`, `{id}`, `<int:id>` → `:`) and no trailing slash. */
const normal = (path: string) =>
  path
    .replace(/\{[^}]*\}|<[^>]*>|:[\w$]+/g, ':')
    .replace(/\/+$/, '')
    .toLowerCase() || '/';

/** Whether a registration answers the asked path (or its tail, for a router mounted on a prefix). */
const pathMatches = (registered: string, asked: string) => {
  const r = normal(registered);
  const a = normal(asked);
  return r === a || (r !== '/' && a.endsWith(r) && a.charAt(a.length - r.length) === '/');
};

const key = (route: Registration) => `${route.methods.join('|')} ${route.path}`;

/**
 * The routes the step added in its changed files when no route there answers the asked one
 * (method and path), as `METHOD /path` texts; none when one answers it or the step added no route
 * the verifier reads in JS/TS or Python code (a file-based router, say: not judged here).
 */
export async function routeMismatch(changed: readonly ChangedText[], asked: AskedRoute): Promise<string[]> {
  const registered: Registration[] = [];
  const added: Registration[] = [];
  for (const { file, before, after } of changed) {
    if (!SCRIPT_FILE.test(file)) continue;
    const now = routeRegistrations(await codeOnly(file, after));
    const old = new Set(
      before === undefined ? [] : routeRegistrations(await codeOnly(file, before)).map(key),
    );
    registered.push(...now);
    added.push(...now.filter((route) => !old.has(key(route))));
  }
  const answers = registered.some(
    (route) =>
      pathMatches(route.path, asked.path) &&
      (asked.method === undefined ||
        route.methods.includes('*') ||
        route.methods.includes(asked.method) ||
        (asked.method === 'HEAD' && route.methods.includes('GET'))),
  );
  if (answers) return [];
  return added.map(key);
}
