import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing.ts', 'src/telemetry.ts', 'src/internal.ts', 'src/store.ts'],
  format: ['esm'],
  target: 'node20',
  dts: true,
  clean: true,
});
