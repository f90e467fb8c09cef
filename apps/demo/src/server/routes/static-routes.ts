import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HttpError } from '../http';
import type { Route } from '../router';

/** The page's own files only: no inline script or style, no other origin. */
const contentSecurityPolicy =
  "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

interface Asset {
  contentType: string;
  body: Buffer;
  immutable: boolean;
}

/**
 * The built web UI (vite's `dist/web`): next to the bundled CLI (`dist/bin.js` → `dist/web`),
 * or, when running from the sources, in the package's `dist/web`.
 */
export function defaultAssetsDir(): string {
  const candidates = [new URL('./web/', import.meta.url), new URL('../../../dist/web/', import.meta.url)];
  const found = candidates.find((candidate) => existsSync(new URL('index.html', candidate)));
  return fileURLToPath(found ?? candidates[0]!);
}

/** Reads the built files once (the page, and `assets/*` with their hashed names). */
function loadAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const add = (urlPath: string, file: string, immutable: boolean) => {
    const contentType = contentTypes[extname(file)];
    if (contentType) assets.set(urlPath, { contentType, body: readFileSync(file), immutable });
  };
  if (!existsSync(join(dir, 'index.html'))) return assets;
  add('/', join(dir, 'index.html'), false);
  const assetDir = join(dir, 'assets');
  if (existsSync(assetDir)) {
    for (const name of readdirSync(assetDir)) add(`/assets/${name}`, join(assetDir, name), true);
  }
  return assets;
}

/** `GET /` and `GET /assets/*`: the built page, from memory, with a strict CSP. */
export function staticRoutes(assetsDir: string): Route[] {
  const assets = loadAssets(assetsDir);
  return [
    {
      method: 'GET',
      pattern: /^\/(?:index\.html|assets\/[A-Za-z0-9._-]+)?$/,
      handle({ url, response }) {
        const path = url.pathname === '/index.html' ? '/' : url.pathname;
        const asset = assets.get(path);
        if (!asset) {
          if (path === '/') {
            throw new HttpError(
              503,
              `The web UI is not built (no ${join(assetsDir, 'index.html')}). Run "npm run build" at the repository root.`,
            );
          }
          throw new HttpError(404, `Nothing at ${url.pathname}.`);
        }
        response.writeHead(200, {
          'content-type': asset.contentType,
          'content-length': asset.body.length,
          'cache-control': asset.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
          'x-content-type-options': 'nosniff',
          'content-security-policy': contentSecurityPolicy,
          'referrer-policy': 'no-referrer',
        });
        response.end(asset.body);
      },
    },
  ];
}
