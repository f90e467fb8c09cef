import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/bin.ts'],
  format: ['esm'],
  // The commands' `import()`s become chunks of their own: `closedloop --help` loads only the
  // entry (commander and the option definitions), never the runners, the providers or the server.
  splitting: true,
  target: 'node20',
  clean: false,
  sourcemap: true,
  banner: { js: '#!/usr/bin/env node' },
});
