import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/error.ts', 'src/testing.ts', 'src/conformance.ts', 'src/provider.ts'],
  format: ['esm'],
  target: 'node20',
  dts: true,
  clean: true,
  // The conformance entry runs inside the user's vitest: never bundle it.
  external: ['vitest'],
});
