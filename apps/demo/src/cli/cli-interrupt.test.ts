import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunResult } from '@closedloop/cortex';
import { beforeAll, describe, expect, it } from 'vitest';
import { builtBin, ensureCliBuild, ensureWebBuild } from '../../test/ensure-build';
import { createVirtualTerminal } from '../view/__fixtures__/virtual-terminal';

const packageDir = join(import.meta.dirname, '..', '..');
const repoRoot = join(packageDir, '..', '..');
const sourceBin = join(packageDir, 'src', 'bin.ts');

beforeAll(async () => {
  await ensureCliBuild();
  await ensureWebBuild();
}, 180_000);

function cli(args: string[], options: { latencyMs: number; interruptAfter?: RegExp }) {
  // One process (no tsx wrapper), so SIGINT reaches the CLI's own handler.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@closedloop/source', sourceBin, ...args],
    {
      cwd: repoRoot,
      env: { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: String(options.latencyMs), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
    if (options.interruptAfter?.test(stdout) && child.exitCode === null && !child.killed) {
      options.interruptAfter = undefined;
      child.kill('SIGINT');
    }
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('Ctrl-C and resume', () => {
  it('cancels cleanly on SIGINT, prints a resume command that works as printed from a clone, and the resumed run completes', async () => {
    const base = mkdtempSync(join(tmpdir(), 'closedloop-interrupt-'));
    const first = await cli(['demo', '--workspace', join(base, 'ws'), '--journal', join(base, 'runs')], {
      latencyMs: 150,
      interruptAfter: /“Write the tests” completed/,
    });
    expect(first.stderr).toContain('Cancelling…');
    expect(first.stdout).toMatch(/stop reason: cancelled/);
    expect(first.code).toBe(1);
    const printed = /Resume with: (.+)/.exec(first.stdout)?.[1];
    // From the repository root the CLI is `npx closedloop` (the root links the demo's bin).
    expect(printed).toMatch(/^npx closedloop resume run-\S+ --journal \S+$/);

    // Exactly as printed, through a shell, from the clone's root.
    const second = execFileSync('sh', ['-c', `${printed} --json`], {
      cwd: repoRoot,
      env: { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: '0', NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    const result = JSON.parse(second) as RunResult;
    expect(result.stopReason).toBe('completed');
    // Steps that completed before Ctrl-C ran once: one session each, never re-run.
    expect(result.report.steps.find((step) => step.id === 'scaffold')?.status).toBe('completed');
    expect(result.report.sessions).toBe(2);
  }, 90_000);
});

describe('from a clone', () => {
  it('`npx closedloop`, `pnpm closedloop` and `npm run closedloop` run the CLI', () => {
    const version = execFileSync('sh', ['-c', 'npx closedloop --version'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    expect(version.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const pnpm = execFileSync(process.execPath, ['scripts/pnpm.mjs', '--silent', 'closedloop', '--version'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    expect(pnpm.trim()).toBe(version.trim());
    const help = execFileSync('npm', ['run', '--silent', 'closedloop', '--', '--help'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    expect(help).toContain('Usage: closedloop');
  }, 60_000);
});

describe('live view in a real terminal', () => {
  it('at 50 columns in a pty, the demo leaves one copy of the plan in the scrollback', () => {
    const base = mkdtempSync(join(tmpdir(), 'closedloop-pty-'));
    const command = [
      'stty cols 50 rows 40;',
      `CLOSEDLOOP_DEMO_LATENCY_MS=40 ${JSON.stringify(process.execPath)} ${JSON.stringify(builtBin)} demo`,
      `--workspace ${JSON.stringify(join(base, 'ws'))} --journal ${JSON.stringify(join(base, 'runs'))}`,
    ].join(' ');
    // util-linux `script` runs the command on a pseudo-terminal and copies everything it printed.
    const output = execFileSync('script', ['-qefc', command, '/dev/null'], {
      cwd: repoRoot,
      env: { ...process.env, TERM: 'xterm-256color', FORCE_COLOR: '1' },
      encoding: 'utf8',
      timeout: 90_000,
    });
    expect(output).toContain('\x1b['); // drawn live, with escape codes
    const terminal = createVirtualTerminal({ columns: 50, rows: 40 });
    terminal.stream.write(output);
    return terminal.lines().then((lines) => {
      terminal.dispose();
      expect(lines.filter((line) => /^ {2}plan\b/.test(line))).toEqual(['  plan — completed']);
      for (const step of [
        'scaffold: Create package.json',
        'write-tests: Write the tests',
        'implement: Write isPrime (replaced)',
      ]) {
        expect(
          lines.filter((line) => line.includes(step)),
          step,
        ).toHaveLength(1);
      }
      expect(lines.filter((line) => line.includes('stop reason: completed'))).toHaveLength(1);
    });
  }, 120_000);
});

describe('closedloop serve', () => {
  it('serves the built page and the API until Ctrl-C, naming the model typed tasks run on', async () => {
    const base = mkdtempSync(join(tmpdir(), 'closedloop-serve-'));
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.OPENAI_API_KEY;
    delete env.ANTHROPIC_API_KEY;
    const child = spawn(
      process.execPath,
      [builtBin, 'serve', '--port', '0', '--journal', join(base, 'runs')],
      {
        cwd: repoRoot,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        const match = /closedloop web UI: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      child.on('exit', (code) => reject(new Error(`serve exited early (${code}): ${stdout}`)));
    });
    expect(stdout).toContain('no model configured');
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js">/);
    expect(await (await fetch(new URL('/api/config', url))).json()).toMatchObject({ model: null });
    const exit = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGINT');
    expect(await exit).toBe(0);
  }, 60_000);
});
