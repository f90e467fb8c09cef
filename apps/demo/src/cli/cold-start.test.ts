import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { uncertainCallPolicies } from '@closedloop/cortex';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuild } from '../../test/ensure-build';
import { version } from '../version';
import { uncertainPolicyChoices } from './approval-options';

const run = promisify(execFile);
const packageDir = join(import.meta.dirname, '..', '..');
const bin = join(packageDir, 'bin', 'closedloop.js');
const recorder = join(packageDir, 'test', 'record-modules.mjs');

beforeAll(() => ensureCliBuild(), 180_000);

/** Runs the built `closedloop` with `args`; returns its output and every module it loaded (URLs). */
async function loadedBy(args: string[]) {
  const file = join(mkdtempSync(join(tmpdir(), 'closedloop-modules-')), 'modules.txt');
  const { stdout, code } = await run(process.execPath, ['--import', recorder, bin, ...args], {
    env: { ...process.env, CLOSEDLOOP_RECORD_MODULES: file },
  }).then(
    ({ stdout }) => ({ stdout, code: 0 }),
    (error: { stdout: string; code: number }) => ({ stdout: error.stdout, code: error.code }),
  );
  const modules = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return { stdout, code, modules };
}

/**
 * The files of `@closedloop/model/error` (the error base every closedloop error extends, which
 * the CLI's error handling needs from its first line): its entry and the chunks it imports.
 */
function errorBaseFiles(): Set<string> {
  const dist = join(packageDir, '..', '..', 'packages', 'model', 'dist');
  const files = new Set<string>();
  const visit = (name: string) => {
    if (files.has(name)) return;
    files.add(name);
    const text = readFileSync(join(dist, name), 'utf8');
    for (const match of text.matchAll(/from ["']\.\/([^"']+\.js)["']/g)) visit(match[1]!);
  };
  visit('error.js');
  return files;
}

/** What `--help` and `--version` must not load: each is loaded at the point of use. */
const heavy: [string, RegExp][] = [
  ['the OpenAI SDK', /\/node_modules\/openai\//],
  ['the Anthropic SDK', /\/node_modules\/@anthropic-ai\//],
  ['BullMQ and Redis', /\/node_modules\/(bullmq|ioredis)\//],
  ['a closedloop package (cortex, providers, tools…)', /\/packages\/[^/]+\/(dist|src)\//],
  ['the web server (node:http)', /^node:http$/],
  ['the web server chunk', /\/dist\/web-server-[^/]*\.js$/],
  ['zod', /\/node_modules\/zod\//],
];

describe('closedloop cold start: --help and --version load only the command definitions', () => {
  const cases = [
    ['--help'],
    ['--version'],
    ...['demo', 'run', 'resume', 'report', 'serve', 'coordinator', 'worker'].map((command) => [
      command,
      '--help',
    ]),
  ];
  it.each(cases.map((args) => [args.join(' '), args] as const))('closedloop %s', async (_, args) => {
    const { stdout, code, modules } = await loadedBy(args);
    expect(code).toBe(0);
    // The recorder saw the CLI's own imports (so an empty list cannot pass by accident).
    expect(modules.some((url) => url.endsWith('/dist/bin.js'))).toBe(true);
    // commander is bundled into the entry: none of its CommonJS files is loaded at start.
    expect(modules.filter((url) => /\/node_modules\/commander\//.test(url))).toEqual([]);
    const base = errorBaseFiles();
    const loaded = heavy.flatMap(([what, pattern]) =>
      modules
        .filter((url) => pattern.test(url))
        .filter((url) => !(/\/packages\/model\/dist\/[^/]+$/.test(url) && base.has(url.split('/').at(-1)!)))
        .map((url) => `${what}: ${url}`),
    );
    expect(loaded).toEqual([]);
    if (args[0] === '--version') expect(stdout.trim()).toBe(version);
    else expect(stdout).toMatch(/^Usage: closedloop/);
  });

  it('the recorder sees CommonJS files (so a CommonJS dependency loaded at start would show)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'closedloop-modules-')), 'modules.txt');
    await run(process.execPath, ['--import', recorder, '-e', "require('commander')"], {
      cwd: packageDir,
      env: { ...process.env, CLOSEDLOOP_RECORD_MODULES: file },
    });
    const modules = readFileSync(file, 'utf8').split('\n').filter(Boolean);
    expect(modules.some((url) => /\/node_modules\/commander\/index\.js$/.test(url))).toBe(true);
  });

  it('a command that runs loads what it needs on use (the recorder sees dynamic imports)', async () => {
    const journal = mkdtempSync(join(tmpdir(), 'closedloop-journal-'));
    const { code, modules } = await loadedBy(['report', 'no-such-run', '--journal', journal]);
    expect(code).toBe(2); // unknown run
    expect(modules.some((url) => /\/packages\/cortex\//.test(url))).toBe(true);
  });

  it('--on-uncertain offers exactly the policies cortex knows', () => {
    expect([...uncertainPolicyChoices]).toEqual([...uncertainCallPolicies]);
  });
});
