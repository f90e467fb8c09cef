#!/usr/bin/env node
// Runs the pinned pnpm (from `packageManager`) through npx, so a fresh clone needs only Node and npm.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const { packageManager } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const result = spawnSync('npx', ['--yes', packageManager, ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, npm_config_update_notifier: 'false' },
});
process.exit(result.status ?? 1);
