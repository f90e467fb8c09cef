import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/testing.ts', 'src/mcp.ts', 'src/internal.ts'],
  format: ['esm'],
  target: 'node20',
  dts: true,
  clean: true,
});
