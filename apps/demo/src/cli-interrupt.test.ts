import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunResult } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';

const repoRoot = join(import.meta.dirname, '..', '..', '..');
const bin = join(import.meta.dirname, 'bin.ts');

function cli(args: string[], options: { latencyMs: number; interruptAfter?: RegExp }) {
  // One process (no tsx wrapper), so SIGINT reaches the CLI's own handler.
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions=@closedloop/source', bin, ...args],
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
  it('cancels cleanly on SIGINT, says how to resume, and the resumed run completes without redoing finished steps', async () => {
    const base = mkdtempSync(join(tmpdir(), 'closedloop-interrupt-'));
    const common = ['--workspace', join(base, 'ws'), '--journal', join(base, 'runs')];

    const first = await cli(['run', ...common], {
      latencyMs: 150,
      interruptAfter: /\[completed\] write-tests/,
    });
    expect(first.stderr).toContain('Cancelling…');
    expect(first.stdout).toMatch(/stop reason: cancelled/);
    const resumeLine = /Resume with: closedloop resume (\S+)/.exec(first.stdout);
    expect(resumeLine).not.toBeNull();
    expect(first.code).toBe(1);

    const second = await cli(['resume', resumeLine![1]!, ...common.slice(2), '--json'], { latencyMs: 0 });
    const result = JSON.parse(second.stdout) as RunResult;
    expect(result.stopReason).toBe('completed');
    expect(second.code).toBe(0);
    // Steps that completed before Ctrl-C ran once: one session each, never re-run.
    const scaffold = result.report.steps.find((step) => step.id === 'scaffold');
    expect(scaffold?.status).toBe('completed');
    expect(result.report.sessions).toBe(2);
  }, 60_000);
});
