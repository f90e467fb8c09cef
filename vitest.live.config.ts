import { defaultClientConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

/**
 * The opt-in live tests (`*.int.test.ts`, never in the default run): they call real model APIs
 * and skip themselves when their API key is not set. `npm run test:live`.
 */
export default defineConfig({
  resolve: { conditions: ['@closedloop/source', ...defaultClientConditions] },
  ssr: { resolve: { conditions: ['@closedloop/source', ...defaultServerConditions] } },
  test: { include: ['{packages,apps}/*/src/**/*.int.test.ts'], testTimeout: 300_000 },
});
