import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/bin.ts'],
  format: ['esm'],
  target: 'node20',
  clean: false,
  sourcemap: true,
  banner: { js: '#!/usr/bin/env node' },
});
