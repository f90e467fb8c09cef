import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing.ts'],
  format: ['esm'],
  target: 'node20',
  dts: true,
  clean: true,
  sourcemap: true,
  // The package ships its src/: maps point at it instead of embedding it (a third of the install).
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
});
