import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const packagesDir = join(import.meta.dirname, '..', 'packages');
const published = readdirSync(packagesDir).filter((name) => {
  const manifest = JSON.parse(readFileSync(join(packagesDir, name, 'package.json'), 'utf8'));
  return manifest.private !== true;
});

/**
 * Every published package must pass publint (strict) and "Are the types wrong?" for ESM-only
 * consumers. Runs on the built `dist/` that `pnpm check` produces before vitest starts.
 */
describe.each(published)('@closedloop/%s package', (name) => {
  const pkgDir = join(packagesDir, name);

  it('passes publint', async () => {
    const { messages } = await publint({ pkgDir, strict: true, pack: 'npm' });
    expect(
      messages.map((message) => `${message.type}: ${message.code} ${JSON.stringify(message.args)}`),
    ).toEqual([]);
  });

  it('passes attw (esm-only profile: node10 and require() resolutions are not supported)', async () => {
    const attw = join(import.meta.dirname, '..', 'node_modules', '.bin', 'attw');
    const outcome = await run(attw, ['--pack', pkgDir, '--profile', 'esm-only', '--format', 'table-flipped'], {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    }).then(
      () => 'ok',
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
    );
    expect(outcome).toBe('ok');
  });
});
