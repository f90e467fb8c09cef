import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJsonlRunStore, type RunResult } from '@closedloop/cortex';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from './cli-context';
import { main } from './main';

function capture() {
  let out = '';
  let err = '';
  const env: NodeJS.ProcessEnv = { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: '0' };
  delete env.OPENAI_API_KEY;
  delete env.ANTHROPIC_API_KEY;
  const io: Partial<CliIo> = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env,
  };
  return { io, out: () => out, err: () => err };
}

/** The `.durable` record the JSONL store writes once `text` is the whole durable journal. */
function durablePoint(runId: string, text: string): string {
  const seq = text.trimEnd().split('\n').length - 2;
  const bytes = Buffer.byteLength(text);
  const sha256 = createHash('sha256').update(text).digest('hex');
  const json = JSON.stringify({
    format: 'closedloop-journal-durable',
    version: 1,
    runId,
    seq,
    bytes,
    sha256,
  });
  return `${json.padEnd(255)}\n`;
}

describe('closedloop resume and report with damaged journals, leases and approval flags', () => {
  let journal: string;
  let runId: string;
  let text: string;
  beforeAll(async () => {
    const base = mkdtempSync(join(tmpdir(), 'closedloop-durable-'));
    journal = join(base, 'runs');
    const first = capture();
    expect(
      await main(['demo', '--json', '--workspace', join(base, 'ws'), '--journal', journal], first.io),
    ).toBe(0);
    runId = (JSON.parse(first.out()) as RunResult).runId;
    // As if the process died just before journaling run-finished: the run can be resumed.
    const lines = readFileSync(join(journal, `${runId}.jsonl`), 'utf8')
      .trimEnd()
      .split('\n');
    expect(lines.at(-1)).toContain('"run-finished"');
    text = `${lines.slice(0, -1).join('\n')}\n`;
    writeFileSync(join(journal, `${runId}.jsonl`), text);
    // …with the durable point and metadata that death leaves: the point at the last record
    // written, the metadata without the `durableSeq` a session's end records.
    writeFileSync(join(journal, `${runId}.durable`), durablePoint(runId, text));
    const metaPath = join(journal, `${runId}.meta.json`);
    const {
      journaled: _journaled,
      durableSeq: _durableSeq,
      ...meta
    } = JSON.parse(readFileSync(metaPath, 'utf8'));
    writeFileSync(metaPath, JSON.stringify(meta));
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
  });

  it('report says what is wrong with a damaged journal; resume gives the typed error; --repair fixes a torn tail', async () => {
    const path = join(journal, `${runId}.jsonl`);
    try {
      // Emptied after the run made its events durable: its durable point tells, never a restart.
      writeFileSync(path, '');
      const empty = capture();
      expect(await main(['report', runId, '--journal', journal], empty.io)).toBe(1);
      expect(empty.out()).toMatch(/journal problem \(journal-rolled-back\): .*ends at seq -1/);
      expect(empty.out()).toContain('restore the full journal');
      expect(empty.err()).toMatch(/^error: .*ends at seq -1.*\(CortexError journal-rolled-back\)\n$/);
      const refused = capture();
      expect(await main(['resume', runId, '--journal', journal], refused.io)).toBe(2);
      expect(refused.err()).toMatch(/ends at seq -1/);

      unlinkSync(path);
      const missing = capture();
      expect(await main(['report', runId, '--journal', journal], missing.io)).toBe(1);
      expect(missing.out()).toMatch(/journal problem \(journal-missing\): .*has metadata but its journal/);

      writeFileSync(path, text);
      appendFileSync(path, '{"seq":999,"event":{"type":"run-fini');
      const torn = capture();
      expect(await main(['report', runId, '--journal', journal], torn.io)).toBe(1);
      expect(torn.out()).toContain('Replanned: Write isPrime');
      expect(torn.out()).toContain('journal problem (journal-truncated)');
      expect(torn.out()).toContain(`closedloop resume ${runId} --repair`);
      const repaired = capture();
      expect(await main(['resume', runId, '--journal', journal, '--repair', '--json'], repaired.io)).toBe(0);
      expect(readFileSync(path, 'utf8').startsWith(text)).toBe(true);
      expect(readFileSync(path, 'utf8')).toContain('"run-finished"');
    } finally {
      writeFileSync(path, text);
      writeFileSync(join(journal, `${runId}.durable`), durablePoint(runId, text));
    }
  });

  it.each([
    [['resume', 'run-x', '--approve', '--deny'], /--approve or --deny, not both/],
    [['resume', 'run-x', '--on-uncertain', 'maybe'], /--on-uncertain.*Allowed choices are ask, rerun, fail/],
  ])('%j → exit 2 with a clear message', async (argv, message) => {
    const { io, err } = capture();
    expect(await main(argv, io)).toBe(2);
    expect(err()).toMatch(message);
  });
});
