import { appScript } from './app-script';
import { pageCss } from './page-css';
import { pageHtml } from './page-html';
import { runStateScript } from './run-state-script';

/** A static file of the web UI, served from memory. */
export interface WebAsset {
  contentType: string;
  body: string;
}

/** Every static file of the web UI by URL path (no build step, no CDN: all of it is in these strings). */
export const webAssets: Readonly<Record<string, WebAsset>> = {
  '/': { contentType: 'text/html; charset=utf-8', body: pageHtml },
  '/assets/styles.css': { contentType: 'text/css; charset=utf-8', body: pageCss },
  '/assets/app.js': { contentType: 'text/javascript; charset=utf-8', body: appScript },
  '/assets/run-state.js': { contentType: 'text/javascript; charset=utf-8', body: runStateScript },
};
