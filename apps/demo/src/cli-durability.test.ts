import { appendFileSync, mkdtempSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { createJsonlRunStore, type RunResult } from '@closedloop/cortex';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from './cli';

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

describe('closedloop resume and report with damaged journals, leases and approval flags', () => {
  let journal: string;
  let runId: string;
  let text: string;
  beforeAll(async () => {
    process.env.CLOSEDLOOP_DEMO_LATENCY_MS = '0';
    const base = mkdtempSync(join(tmpdir(), 'closedloop-durable-'));
    journal = join(base, 'runs');
    const first = capture();
    expect(
      await main(['run', '--json', '--workspace', join(base, 'ws'), '--journal', journal], first.io),
    ).toBe(0);
    runId = (JSON.parse(first.out()) as RunResult).runId;
    text = readFileSync(join(journal, `${runId}.jsonl`), 'utf8');
  }, 60_000);

  it('refuses a resume while another process holds the run: exit 2, "run X is being resumed by pid N on host H"', async () => {
    const lease = await createJsonlRunStore({ dir: journal }).acquireLease(runId, { purpose: 'resume' });
    try {
      const second = capture();
      expect(await main(['resume', runId, '--journal', journal], second.io)).toBe(2);
      expect(second.err()).toContain(
        `run ${runId} is being resumed by pid ${process.pid} on host ${hostname()}`,
      );
    } finally {
      await lease.release();
    }
    const again = capture();
    expect(await main(['resume', runId, '--journal', journal, '--json'], again.io)).toBe(0);
  });

  it('report says what is wrong with a damaged journal; resume gives the typed error; --repair fixes a torn tail', async () => {
    const path = join(journal, `${runId}.jsonl`);
    try {
      writeFileSync(path, '');
      const empty = capture();
      expect(await main(['report', runId, '--journal', journal], empty.io)).toBe(1);
      expect(empty.err()).toMatch(/journal problem \(journal-empty\): .*0 bytes/);
      const refused = capture();
      expect(await main(['resume', runId, '--journal', journal], refused.io)).toBe(2);
      expect(refused.err()).toMatch(/is empty \(0 bytes\)/);

      unlinkSync(path);
      const missing = capture();
      expect(await main(['report', runId, '--journal', journal], missing.io)).toBe(1);
      expect(missing.err()).toMatch(/journal problem \(journal-missing\): .*has metadata but its journal/);

      writeFileSync(path, text);
      appendFileSync(path, '{"seq":999,"event":{"type":"run-fini');
      const torn = capture();
      expect(await main(['report', runId, '--journal', journal], torn.io)).toBe(1);
      expect(torn.out()).toContain('run finished: completed');
      expect(torn.err()).toContain('journal problem (journal-truncated)');
      expect(torn.err()).toContain(`closedloop resume ${runId} --repair`);
      const repaired = capture();
      expect(await main(['resume', runId, '--journal', journal, '--repair', '--json'], repaired.io)).toBe(0);
      expect(readFileSync(path, 'utf8')).toBe(text);
    } finally {
      writeFileSync(path, text);
    }
  });

  it.each([
    [['resume', 'run-x', '--approve', '--deny'], /--approve or --deny, not both/],
    [['resume', 'run-x', '--on-uncertain', 'maybe'], /--on-uncertain must be one of ask, rerun, fail/],
  ])('%j → exit 2 with a clear message', async (argv, message) => {
    const { io, err } = capture();
    expect(await main(argv, io)).toBe(2);
    expect(err()).toMatch(message);
  });
});
