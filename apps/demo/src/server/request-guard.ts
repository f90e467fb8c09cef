import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { hostname as machineName } from 'node:os';

/** A refusal of the request guard: an HTTP status and a message. */
export interface GuardRefusal {
  status: 401 | 403;
  message: string;
  headers?: Record<string, string>;
}

/** Options of {@link createRequestGuard}. */
export interface RequestGuardOptions {
  /** The interface the server binds. */
  host: string;
  /**
   * The access token. Required (and generated when not given) for a non-loopback host; `false`
   * is refused there. On loopback the default is no token.
   */
  token?: string | false;
  /** Host names (besides the bound host and loopback names) the server answers to. */
  allowedHosts?: readonly string[];
}

/** What the server consults on every request. */
export interface RequestGuard {
  /** The token clients must present, or undefined when none is needed. */
  readonly token: string | undefined;
  /**
   * Checks the Host header (DNS rebinding), the token (non-loopback), and for state-changing
   * methods the Origin / `Sec-Fetch-Site` (cross-site requests, `text/plain` forms included).
   * Returns a refusal, or undefined to serve the request.
   */
  check(request: IncomingMessage, url: URL): GuardRefusal | undefined;
  /** Headers to add to a response that accepted a `?token=` (sets the token cookie). */
  cookieFor(url: URL): Record<string, string>;
}

/** The cookie that carries the token after the first visit. */
export const tokenCookie = 'closedloop_token';

/** True for loopback names and addresses: `localhost`, `127.0.0.0/8`, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1' || bare === '::ffff:127.0.0.1';
  return false;
}

/** The host name of a `Host` header, lowercase, brackets kept for IPv6. */
export function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1).toLowerCase();
  const colon = hostHeader.lastIndexOf(':');
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

const stateChanging = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return undefined;
}

/**
 * The web server's request guard. On a loopback host it answers only to loopback `Host` names;
 * on any other host it requires a token (generated when not given, printed in the URL) and
 * answers only to the bound host, its IP literals, the machine's name and `allowedHosts`. Every
 * state-changing request must come from the page itself: a `Sec-Fetch-Site` other than
 * `same-origin`, or an `Origin` that is not the server's, is refused — so a cross-site
 * `text/plain` form cannot start or cancel a run.
 */
export function createRequestGuard(options: RequestGuardOptions): RequestGuard {
  const loopback = isLoopbackHost(options.host);
  const token =
    options.token === false
      ? undefined
      : (options.token ?? (loopback ? undefined : randomBytes(24).toString('base64url')));
  if (!loopback && token === undefined) {
    throw new Error(`host ${options.host} is not loopback: a token is required (token: false is refused).`);
  }
  if (token !== undefined && !/^[A-Za-z0-9._~-]{16,}$/.test(token)) {
    throw new Error('token must be at least 16 characters of A–Z a–z 0–9 . _ ~ -.');
  }
  const wildcard = options.host === '0.0.0.0' || options.host === '::' || options.host === '[::]';
  // As `hostnameOf` reads a Host header: lowercase, IPv6 literals in brackets.
  const asHostName = (host: string) => (isIP(host) === 6 ? `[${host}]` : host).toLowerCase();
  const allowed = new Set([options.host, ...(options.allowedHosts ?? [])].map(asHostName));
  if (wildcard) allowed.add(machineName().toLowerCase());

  const hostAllowed = (hostHeader: string): boolean => {
    const name = hostnameOf(hostHeader);
    if (name === '') return false;
    if (isLoopbackHost(name)) return true;
    if (loopback) return false;
    if (allowed.has(name)) return true;
    // Bound to every interface: any address literal of this machine, never a DNS name
    // (a rebinding attack names the server with its own domain).
    return wildcard && isIP(name.replace(/^\[|\]$/g, '')) !== 0;
  };

  return {
    token,
    check(request, url) {
      const hostHeader = request.headers.host ?? '';
      if (!hostAllowed(hostHeader)) {
        return {
          status: 403,
          message: `Host "${hostHeader}" is not allowed; open the UI via ${options.host}${loopback ? ' (loopback only)' : ''}.`,
        };
      }
      if (token !== undefined) {
        const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
        const presented =
          bearer ?? url.searchParams.get('token') ?? cookieValue(request.headers.cookie, tokenCookie);
        if (presented === undefined || presented === null || !sameSecret(presented, token)) {
          return {
            status: 401,
            message:
              'This server needs its access token: open the URL it printed (…/?token=…) or send "Authorization: Bearer <token>".',
            headers: { 'www-authenticate': 'Bearer' },
          };
        }
      }
      if (stateChanging.has(request.method ?? 'GET')) {
        const site = request.headers['sec-fetch-site'];
        if (site !== undefined && site !== 'same-origin') {
          return { status: 403, message: `Cross-site request refused (Sec-Fetch-Site: ${site}).` };
        }
        const origin = request.headers.origin;
        if (origin !== undefined) {
          let originHost: string | undefined;
          try {
            const parsed = new URL(origin);
            originHost =
              parsed.protocol === 'http:' || parsed.protocol === 'https:'
                ? parsed.host.toLowerCase()
                : undefined;
          } catch {
            originHost = undefined;
          }
          if (originHost !== hostHeader.toLowerCase()) {
            return { status: 403, message: `Cross-origin request refused (Origin: ${origin}).` };
          }
        }
        // Neither header (an old browser): a form-encodable body is what a cross-site form sends.
        const type = (request.headers['content-type'] ?? '').toLowerCase();
        if (
          site === undefined &&
          origin === undefined &&
          /^(?:text\/plain|application\/x-www-form-urlencoded|multipart\/form-data)\b/.test(type)
        ) {
          return {
            status: 403,
            message: `A ${type.split(';')[0]} request without an Origin is refused (it could be a cross-site form).`,
          };
        }
      }
      return undefined;
    },
    cookieFor(url): Record<string, string> {
      if (token === undefined || url.searchParams.get('token') !== token) return {};
      return { 'set-cookie': `${tokenCookie}=${token}; HttpOnly; SameSite=Strict; Path=/` };
    },
  };
}
