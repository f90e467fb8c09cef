import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/error.ts', 'src/testing.ts', 'src/conformance.ts', 'src/provider.ts'],
  format: ['esm'],
  target: 'node20',
  dts: true,
  clean: true,
  sourcemap: true,
  // The package ships its src/: maps point at it instead of embedding it (a third of the install).
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
  // The conformance entry runs inside the user's vitest: never bundle it.
  external: ['vitest'],
});
