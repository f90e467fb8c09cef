#!/usr/bin/env node
// The `closedloop` command. It exists before the first build (so package managers can link it)
// and runs the built CLI in dist/.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'error: closedloop is not built yet. Run "npm run build" (or "node scripts/pnpm.mjs run build") at the repository root.\n',
  );
  process.exit(1);
}
await import(entry.href);
