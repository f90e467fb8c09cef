import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { truncateSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startLinkSwapper } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { manifestLists, packageInstalled } from './check-claims';
import { detectTooling } from './detect-tooling';
import { analyseLedger } from './ledger-evidence';
import { readCoverage } from './protocols/coverage-protocol';
import { createStepChanges } from './step-changes';
import { createWorkspaceFacts, realRootOf } from './workspace-facts';
import { snapshotWorkspace } from './workspace-snapshot';

const workspace = useTempWorkspaces();
const outsides: string[] = [];
afterEach(async () => {
  await Promise.all(outsides.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A folder outside the workspace with `files` in it. */
async function outside(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'closedloop-outside-'));
  outsides.push(dir);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

/** A named pipe: reading it blocks until a writer comes (none will). */
function fifo(file: string): void {
  execFileSync('mkfifo', [file]);
}

/** Settles within `ms`, or rejects: a reader that blocks on a FIFO never settles. */
function within<T>(promise: Promise<T>, ms = 3_000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still blocked after ${ms} ms`)), ms)),
  ]);
}

describe('the verifier reads no file through a link out of the workspace, and never blocks on a FIFO', () => {
  it('detectTooling', async () => {
    const elsewhere = await outside({
      'package.json': JSON.stringify({ scripts: { test: 'vitest run', build: 'outside-build' } }),
      'pyproject.toml': '[tool.pytest.ini_options]\n',
    });
    const ws = await workspace({});
    await symlink(path.join(elsewhere, 'package.json'), path.join(ws.root, 'package.json'));
    await symlink(path.join(elsewhere, 'pyproject.toml'), path.join(ws.root, 'pyproject.toml'));
    const linked = await detectTooling(ws.root);
    expect(linked.scripts).toEqual({});
    expect(linked.commands.build).toBeUndefined();
    expect(linked.testRunner).toBeUndefined();

    const piped = await workspace({});
    fifo(path.join(piped.root, 'package.json'));
    fifo(path.join(piped.root, 'pyproject.toml'));
    expect((await within(detectTooling(piped.root))).scripts).toEqual({});

    // A link inside the workspace is read.
    const inside = await workspace({ 'config/package.json': JSON.stringify({ scripts: { build: 'tsup' } }) });
    await symlink('config/package.json', path.join(inside.root, 'package.json'));
    expect((await detectTooling(inside.root)).scripts).toEqual({ build: 'tsup' });
  });

  it('check-claims: installed packages and manifests', async () => {
    const elsewhere = await outside({
      'requirements.txt': 'requests==2.0\n',
      'lib/python3.12/site-packages/requests/__init__.py': '',
      'node_modules/left-pad/package.json': '{"name":"left-pad"}',
    });
    const ws = await workspace({});
    const root = realRootOf(ws.root);
    await symlink(path.join(elsewhere, 'requirements.txt'), path.join(root, 'requirements.txt'));
    await mkdir(path.join(root, '.venv'));
    await symlink(path.join(elsewhere, 'lib'), path.join(root, '.venv', 'lib'));
    await mkdir(path.join(root, 'node_modules'));
    await symlink(
      path.join(elsewhere, 'node_modules', 'left-pad'),
      path.join(root, 'node_modules', 'left-pad'),
    );
    expect(manifestLists(root, 'requests')).toBeUndefined();
    expect(packageInstalled(root, 'requests')).toBeUndefined();
    expect(packageInstalled(root, 'left-pad')).toBeUndefined();

    const piped = await workspace({});
    const pipedRoot = realRootOf(piped.root);
    fifo(path.join(pipedRoot, 'package.json'));
    fifo(path.join(pipedRoot, 'requirements.txt'));
    expect(await within(Promise.resolve().then(() => manifestLists(pipedRoot, 'requests')))).toBeUndefined();

    // The same files inside the workspace count.
    const real = await workspace({
      'requirements.txt': 'requests==2.0\n',
      '.venv/lib/python3.12/site-packages/requests/__init__.py': '',
      'node_modules/left-pad/package.json': '{"name":"left-pad"}',
    });
    const realRoot = realRootOf(real.root);
    expect(manifestLists(realRoot, 'requests')).toBe('requirements.txt');
    expect(packageInstalled(realRoot, 'requests')).toBe('.venv/lib/python3.12/site-packages/requests');
    expect(packageInstalled(realRoot, 'left-pad')).toBe('node_modules/left-pad');
  });

  it('the coverage report', async () => {
    const elsewhere = await outside({
      'coverage-summary.json': JSON.stringify({ total: { lines: { pct: 100 } } }),
    });
    const ws = await workspace({});
    const dir = path.join(ws.root, '.closedloop-coverage-test');
    await mkdir(dir);
    await symlink(path.join(elsewhere, 'coverage-summary.json'), path.join(dir, 'coverage-summary.json'));
    expect(readCoverage(dir, 'json-summary', ws.root)).toBeUndefined();
    // The whole report folder swapped for a link out of the workspace.
    await rm(dir, { recursive: true });
    await symlink(elsewhere, dir);
    expect(readCoverage(dir, 'json-summary', ws.root)).toBeUndefined();
    await rm(dir);

    await mkdir(dir);
    fifo(path.join(dir, 'lcov.info'));
    expect(await within(Promise.resolve().then(() => readCoverage(dir, 'lcov', ws.root)))).toBeUndefined();

    await rm(dir, { recursive: true });
    await mkdir(dir);
    await writeFile(
      path.join(dir, 'coverage-summary.json'),
      JSON.stringify({ total: { lines: { pct: 91.5 } } }),
    );
    expect(readCoverage(dir, 'json-summary', ws.root)).toBe(91.5);
  });

  it('step changes: a prior state is compared with a file inside, read in bounded chunks', async () => {
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    const elsewhere = await outside({ 'secret.txt': 'host secret\n' });
    const ws = await workspace({ 'notes.txt': 'old\n' });
    const root = realRootOf(ws.root);
    const status = (file: string, prior: string | null) =>
      within(
        createStepChanges({
          facts: createWorkspaceFacts(root),
          ledger: analyseLedger([]),
          priorStates: new Map([[file, prior]]),
        }).status(file),
      );
    expect(await status('notes.txt', sha('old\n'))).toBe('unchanged');
    expect(await status('notes.txt', sha('older\n'))).toBe('modified');

    // A link out of the workspace: the host file's content is never compared (it matches here).
    await symlink(path.join(elsewhere, 'secret.txt'), path.join(root, 'linked.txt'));
    expect(await status('linked.txt', sha('host secret\n'))).not.toBe('unchanged');
    await symlink('/dev/zero', path.join(root, 'zero.txt'));
    expect(await status('zero.txt', sha(''))).not.toBe('unchanged');
    fifo(path.join(root, 'pipe.txt'));
    expect(await status('pipe.txt', sha(''))).not.toBe('unchanged');

    // A sparse file of 3 GiB: not read whole into memory (readFileSync threw above 2 GiB).
    await writeFile(path.join(root, 'huge.bin'), '');
    truncateSync(path.join(root, 'huge.bin'), 3 * 1024 ** 3);
    expect(await status('huge.bin', sha(''))).not.toBe('unchanged');
  });

  it('a snapshot never hashes or keeps a file outside while a folder above it is swapped for a link out', async () => {
    const elsewhere = await outside({ 'f.ts': 'export const outside = 1;\n' });
    const ws = await workspace({ 'd/f.ts': 'export const inside = 1;\n' });
    const root = realRootOf(ws.root);
    const outsideHash = createHash('sha1').update('export const outside = 1;\n').digest('hex');
    const swapper = startLinkSwapper({ folder: path.join(root, 'd'), target: elsewhere, durationMs: 20_000 });
    let leaks = 0;
    let insides = 0;
    try {
      const end = Date.now() + 3000;
      while (Date.now() < end) {
        const snapshot = snapshotWorkspace(root);
        for (const state of snapshot.files.values()) if (state.hash === outsideHash) leaks += 1;
        for (const text of snapshot.texts.values()) {
          if (text.includes('outside')) leaks += 1;
          if (text.includes('inside')) insides += 1;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      await swapper.stop();
    }
    expect(insides).toBeGreaterThan(0);
    expect(leaks).toBe(0);
  }, 15_000);
});
