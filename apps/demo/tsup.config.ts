import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/bin.ts'],
  format: ['esm'],
  // The commands' `import()`s become chunks of their own: `closedloop --help` loads only the
  // entry (commander and the option definitions), never the runners, the providers or the server.
  splitting: true,
  // Bundled: loading commander's seven CommonJS files (resolution, the CJS loader, the ESM
  // interop lexer) was a third of the CLI's own start-up time.
  noExternal: ['commander'],
  target: 'node20',
  clean: false,
  sourcemap: true,
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __closedloopRequire } from 'node:module';\nconst require = __closedloopRequire(import.meta.url);",
  },
});
