import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import type { RunResult } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';
import { main } from './cli';

const run = promisify(execFile);

function capture() {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk) => {
    out += chunk;
  });
  stderr.on('data', (chunk) => {
    err += chunk;
  });
  return {
    io: { stdout: stdout as unknown as NodeJS.WriteStream, stderr: stderr as unknown as NodeJS.WriteStream },
    out: () => out,
    err: () => err,
  };
}

describe('closedloop run (offline scripted scenario)', () => {
  it('catches both false claims from evidence, replans them, and ends completed with real passing tests', async () => {
    process.env.CLOSEDLOOP_DEMO_LATENCY_MS = '0';
    const base = mkdtempSync(join(tmpdir(), 'closedloop-cli-'));
    const workspace = join(base, 'ws');
    const journal = join(base, 'runs');
    const { io, out } = capture();
    const code = await main(['run', '--json', '--workspace', workspace, '--journal', journal], io);
    const result = JSON.parse(out()) as RunResult;

    expect(code).toBe(0);
    expect(result.stopReason).toBe('completed');
    expect(result.report.replans).toHaveLength(2);
    const failedClaims = result.report.steps
      .flatMap((step) => step.findings.map((finding) => ({ step: step.id, ...finding })))
      .filter((finding) => finding.status === 'fail');
    // The first claim: a file that was never written.
    expect(
      failedClaims.some(
        (finding) => finding.step === 'implement' && /src\/is-prime\.js/.test(finding.message),
      ),
    ).toBe(true);
    // The second claim: "tests pass" while node --test fails.
    expect(
      failedClaims.some((finding) => /node --test/.test(finding.message) && /fail/i.test(finding.message)),
    ).toBe(true);
    // The goal verification really ran the tests; they pass in the workspace now.
    expect(readFileSync(join(workspace, 'src/is-prime.js'), 'utf8')).toContain('n < 2');
    const tests = await run(process.execPath, ['--test'], { cwd: workspace });
    expect(tests.stdout).toMatch(/# pass 4/);
  }, 60_000);

  it('reports a journaled run again with `report`', async () => {
    process.env.CLOSEDLOOP_DEMO_LATENCY_MS = '0';
    const base = mkdtempSync(join(tmpdir(), 'closedloop-cli-'));
    const journal = join(base, 'runs');
    const first = capture();
    await main(['run', '--json', '--workspace', join(base, 'ws'), '--journal', journal], first.io);
    const { runId } = JSON.parse(first.out()) as RunResult;

    const again = capture();
    expect(await main(['report', runId, '--journal', journal], again.io)).toBe(0);
    expect(again.out()).toContain('run finished: completed');
    expect(again.out()).toContain('replanned implement, run-tests');
  }, 60_000);
});

describe('closedloop usage errors', () => {
  it.each([
    [['run', '--provider', 'nope'], /Unknown provider "nope"/],
    [['run', '--mode', 'fast'], /--mode must be "single" or "auto"/],
    [['run', '--concurrency', '0'], /--concurrency must be a whole number/],
    [['resume'], /needs a run id/],
    [['frobnicate'], /Unknown command "frobnicate"/],
    [
      ['report', 'run-missing', '--journal', mkdtempSync(join(tmpdir(), 'closedloop-none-'))],
      /No journal for run/,
    ],
  ])('%j → exit 2 with a clear message', async (argv, message) => {
    const { io, err } = capture();
    expect(await main(argv, io)).toBe(2);
    expect(err()).toMatch(message);
  });

  it('says which key is missing for a real provider', async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const { io, err } = capture();
      expect(await main(['run', 'do a thing', '--provider', 'openai'], io)).toBe(2);
      expect(err()).toMatch(/OPENAI_API_KEY is not set/);
    } finally {
      if (saved !== undefined) process.env.OPENAI_API_KEY = saved;
    }
  });

  it('says when nothing answers at an OpenAI-compatible base URL', async () => {
    const { io, err } = capture();
    const code = await main(
      [
        'run',
        'do a thing',
        '--provider',
        'openai-compatible',
        '--model',
        'llama3.1',
        '--base-url',
        'http://127.0.0.1:9/v1',
      ],
      io,
    );
    expect(code).toBe(2);
    expect(err()).toMatch(/Nothing answers at http:\/\/127\.0\.0\.1:9/);
  });
});
