import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The web UI: `src/web` (Preact, TSX compiled by esbuild) built into `dist/web`, which
 * `closedloop serve` serves. No inline scripts or styles, so the server's CSP can forbid them.
 */
export default defineConfig({
  root: fileURLToPath(new URL('./src/web', import.meta.url)),
  base: '/',
  publicDir: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  resolve: { conditions: ['@closedloop/source'] },
  build: {
    outDir: fileURLToPath(new URL('./dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: true,
    reportCompressedSize: false,
  },
});
