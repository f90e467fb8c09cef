import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * Runs only the opt-in live tests (`src/*.int.test.ts`, excluded from the default run). They
 * skip themselves without an API key. Usage: `pnpm test:live` in this package.
 */
export default defineConfig({
  root: import.meta.dirname,
  resolve: { conditions: ['@closedloop/source', ...defaultClientConditions] },
  ssr: { resolve: { conditions: ['@closedloop/source', ...defaultServerConditions] } },
  test: { include: ['src/**/*.int.test.ts'], testTimeout: 60_000 },
});
