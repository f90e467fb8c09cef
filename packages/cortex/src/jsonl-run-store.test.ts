import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { CortexError } from './cortex-error';
import { encodeHeader, encodeRecord } from './journal-format';
import { createJsonlRunStore, type JournalDurability, type JsonlRunStore } from './jsonl-run-store';
import type { RunEvent } from './run-events';
import { runStoreConformance } from './run-store-conformance';

const root = mkdtempSync(join(tmpdir(), 'cortex-jsonl-'));
const opened: JsonlRunStore[] = [];
let counter = 0;
/** A store over a new, existing, empty folder. */
const fresh = (durability?: JournalDurability): JsonlRunStore => {
  const dir = join(root, `store-${counter++}`);
  mkdirSync(dir);
  const store = createJsonlRunStore({
    dir,
    maxOpenFiles: 2,
    ...(durability ? { durability } : {}),
  });
  opened.push(store);
  return store;
};
afterAll(async () => {
  for (const store of opened) await store.close();
});

const started = (runId: string, at: number): RunEvent => ({
  type: 'run-started',
  runId,
  at,
  request: 'r',
  resumed: false,
});

async function appendEvents(store: JsonlRunStore, runId: string, ats: number[], from = 0): Promise<void> {
  await store.append(
    runId,
    ats.map((at, index) => ({ seq: from + index, event: started(runId, at) })),
  );
}

async function caught(action: () => Promise<unknown>): Promise<CortexError> {
  const error = await action().then(
    () => undefined,
    (failure: unknown) => failure,
  );
  expect(CortexError.isInstance(error), String(error)).toBe(true);
  return error as CortexError;
}

for (const durability of ['fsync', 'batch', 'none'] as const) {
  describe(`JSONL run store conformance (durability: ${durability})`, () => {
    for (const check of runStoreConformance(() => fresh(durability), {
      reopen: async (store) => {
        const jsonl = store as JsonlRunStore;
        await jsonl.close();
        const again = createJsonlRunStore({ dir: join(jsonl.pathOf('x'), '..'), durability });
        opened.push(again);
        return again;
      },
    })) {
      it(check.name, check.run);
    }
  });
}

describe('JSONL journal format (version 2)', () => {
  it('is a header line, then one { seq, event } record per line; one append is one group of whole lines', async () => {
    const store = fresh();
    await appendEvents(store, 'run-a', [1, 2]);
    await appendEvents(store, 'run-a', [3], 2);
    const lines = readFileSync(store.pathOf('run-a'), 'utf8').split('\n');
    expect(lines).toHaveLength(5);
    expect(JSON.parse(lines[0]!)).toMatchObject({
      format: 'closedloop-run-journal',
      version: 2,
      runId: 'run-a',
    });
    expect(JSON.parse(lines[2]!)).toEqual({ seq: 1, event: started('run-a', 2) });
    expect(lines[4]).toBe('');
    expect(store.durability).toBe('fsync');
  });

  it('ignores a duplicated line (same seq, same content): a usage-recorded line counts once', async () => {
    const store = fresh();
    const usage: RunEvent = {
      type: 'usage-recorded',
      runId: 'run-a',
      at: 2,
      purpose: 'step',
      usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
      costUsd: 0,
    };
    await store.append('run-a', [
      { seq: 0, event: started('run-a', 1) },
      { seq: 1, event: usage },
    ]);
    // A retried group, as a writer that reopened the journal writes it.
    await store.close();
    appendFileSync(store.pathOf('run-a'), encodeRecord({ seq: 1, event: usage }));
    await store.append('run-a', [{ seq: 2, event: started('run-a', 3) }]);
    const events = await store.read('run-a');
    expect(events.map((event) => event.type)).toEqual(['run-started', 'usage-recorded', 'run-started']);
  });

  it('one seq with two different contents is two writers: a typed error, not a guess', async () => {
    const store = fresh();
    await appendEvents(store, 'run-a', [1, 2]);
    appendFileSync(store.pathOf('run-a'), encodeRecord({ seq: 1, event: started('run-a', 99) }));
    const error = await caught(() => store.read('run-a'));
    expect(error.code).toBe('journal-corrupt');
    expect(error.message).toMatch(/two processes wrote this run/);
  });

  it('an earlier line copied after later ones is not a retried group: journal-corrupt naming the line', async () => {
    // A retried group re-writes the journal's last records, back to back; a copy of an older
    // line anywhere else (by hand, by a second writer) is refused, never skipped as a retry.
    for (const tail of [[], [5]]) {
      const store = fresh();
      await appendEvents(store, 'run-a', [1, 2, 3, 4]);
      await store.close();
      const lines = readFileSync(store.pathOf('run-a'), 'utf8').split('\n');
      // Line 3 holds seq 1: the copy lands on line 6, after seq 3.
      appendFileSync(store.pathOf('run-a'), `${lines[2]}\n`);
      if (tail.length > 0)
        appendFileSync(store.pathOf('run-a'), encodeRecord({ seq: 4, event: started('run-a', 5) }));
      const error = await caught(() => store.read('run-a'));
      expect(error.code, `then ${JSON.stringify(tail)}`).toBe('journal-corrupt');
      expect(error.message).toMatch(/line 6 repeats seq 1/);
      expect(error.details).toMatchObject({ line: 6, seq: 1 });
    }
  });

  it('seqs out of order (two lines swapped) are journal-corrupt naming the line', async () => {
    const store = fresh();
    await appendEvents(store, 'run-a', [1, 2]);
    await store.close();
    appendFileSync(store.pathOf('run-a'), encodeRecord({ seq: 3, event: started('run-a', 4) }));
    appendFileSync(store.pathOf('run-a'), encodeRecord({ seq: 2, event: started('run-a', 3) }));
    const error = await caught(() => store.read('run-a'));
    expect(error.code).toBe('journal-corrupt');
    expect(error.message).toMatch(/line 4 has seq 3 where 2 was expected/);
    expect(error.details).toMatchObject({ line: 4, seq: 3, expected: 2 });
  });

  it('a gap in the seqs is a typed error', async () => {
    const store = fresh();
    await appendEvents(store, 'run-a', [1]);
    appendFileSync(store.pathOf('run-a'), encodeRecord({ seq: 5, event: started('run-a', 2) }));
    expect((await caught(() => store.read('run-a'))).code).toBe('journal-corrupt');
  });

  it('an empty file (0 bytes) or a header without events is journal-empty, never an empty history', async () => {
    const store = fresh();
    await appendEvents(store, 'run-a', [1]);
    // Emptied after an event was made durable: its durable point says what is missing.
    writeFileSync(store.pathOf('run-a'), '');
    expect(await caught(() => store.read('run-a'))).toMatchObject({
      code: 'journal-rolled-back',
      details: { expectedSeq: 0, foundSeq: -1 },
    });
    // Without a durable point (a journal written before they existed): journal-empty.
    rmSync(join(store.pathOf('run-a'), '..', 'run-a.durable'));
    const empty = await caught(() => store.read('run-a'));
    expect(empty.code).toBe('journal-empty');
    expect(empty.message).toContain('0 bytes');
    writeFileSync(store.pathOf('run-a'), encodeHeader('run-a', 1));
    expect((await caught(() => store.read('run-a'))).code).toBe('journal-empty');
    // A missing journal is simply an unknown run here; cortex.resume tells "missing" from "unknown".
    expect(await store.read('run-nope')).toEqual([]);
  });

  it('a torn last line is journal-truncated: inspect shows the intact events, appends refuse, repair drops it', async () => {
    const store = fresh();
    await appendEvents(store, 'run-a', [1, 2]);
    await store.close();
    appendFileSync(
      store.pathOf('run-a'),
      '{"seq":2,"event":{"type":"run-started","runId":"run-a","at":3,"req',
    );
    const error = await caught(() => store.read('run-a'));
    expect(error.code).toBe('journal-truncated');
    expect(error.details).toMatchObject({ line: 4, bytes: 66 });
    const inspection = await store.inspect('run-a');
    expect(inspection.exists).toBe(true);
    expect(inspection.events.map((event) => event.at)).toEqual([1, 2]);
    expect(inspection.problem?.code).toBe('journal-truncated');
    expect((await caught(() => appendEvents(store, 'run-a', [3], 2))).code).toBe('journal-truncated');
    expect(await store.repair('run-a')).toEqual({ droppedBytes: 66 });
    expect(await store.repair('run-a')).toEqual({ droppedBytes: 0 });
    await appendEvents(store, 'run-a', [3], 2);
    expect((await store.read('run-a')).map((event) => event.at)).toEqual([1, 2, 3]);
  });

  it('a complete last record without its newline is torn too (its write never returned)', async () => {
    const store = fresh();
    await appendEvents(store, 'run-a', [1]);
    await store.close();
    appendFileSync(store.pathOf('run-a'), encodeRecord({ seq: 1, event: started('run-a', 2) }).trimEnd());
    expect((await caught(() => store.read('run-a'))).code).toBe('journal-truncated');
  });

  it('a last line torn mid-UTF-8 sequence is journal-truncated with its real byte count; repair drops exactly it', async () => {
    const store = fresh();
    await appendEvents(store, 'run-a', [1, 2]);
    await store.close();
    // "€" is E2 82 AC: the write was cut after its first byte.
    const torn = Buffer.concat([
      Buffer.from('{"seq":2,"event":{"type":"note","text":"5 '),
      Buffer.from([0xe2]),
    ]);
    appendFileSync(store.pathOf('run-a'), torn);
    const error = await caught(() => store.read('run-a'));
    expect(error.code).toBe('journal-truncated');
    expect(error.details).toMatchObject({ line: 4, bytes: torn.length });
    expect(await store.repair('run-a')).toEqual({ droppedBytes: torn.length });
    expect((await store.read('run-a')).map((event) => event.at)).toEqual([1, 2]);
  });

  it('a complete line with an invalid UTF-8 sequence is journal-corrupt, never read with U+FFFD in place of its bytes', async () => {
    const store = fresh();
    await appendEvents(store, 'run-a', [1, 2]);
    await store.close();
    // Valid JSON once decoded leniently: the damaged bytes would silently become "\uFFFD".
    const damaged = Buffer.concat([
      Buffer.from('{"seq":2,"event":{"type":"run-started","runId":"run-a","at":3,"request":"'),
      Buffer.from([0xe2, 0x82]),
      Buffer.from('","resumed":false}}\n'),
    ]);
    appendFileSync(store.pathOf('run-a'), damaged);
    const error = await caught(() => store.read('run-a'));
    expect(error.code).toBe('journal-corrupt');
    expect(error.details).toMatchObject({ line: 4 });
    expect(error.message).toMatch(/UTF-8/);
    const inspection = await store.inspect('run-a');
    expect(inspection.events.map((event) => event.at)).toEqual([1, 2]);
    expect(inspection.problem?.code).toBe('journal-corrupt');
    expect((await caught(() => appendEvents(store, 'run-a', [4], 3))).code).toBe('journal-corrupt');
    // Repair drops only a torn last line: it never deletes a damaged complete record.
    expect(await store.repair('run-a')).toEqual({ droppedBytes: 0 });
  });

  it('a journal without a header (closedloop 0.1) or of an unknown version is journal-version', async () => {
    const store = fresh();
    writeFileSync(store.pathOf('run-old'), `${JSON.stringify(started('run-old', 1))}\n`);
    const legacy = await caught(() => store.read('run-old'));
    expect(legacy.code).toBe('journal-version');
    expect(legacy.message).toMatch(/no format header/);
    writeFileSync(
      store.pathOf('run-new'),
      `${JSON.stringify({ format: 'closedloop-run-journal', version: 9, runId: 'run-new', createdAt: 1 })}\n`,
    );
    expect((await caught(() => store.read('run-new'))).message).toMatch(/version 9/);
  });

  it('an unreadable line in the middle is journal-corrupt with its line number', async () => {
    const store = fresh();
    await appendEvents(store, 'run-a', [1]);
    appendFileSync(store.pathOf('run-a'), 'not json\n');
    appendFileSync(store.pathOf('run-a'), encodeRecord({ seq: 1, event: started('run-a', 3) }));
    const error = await caught(() => store.read('run-a'));
    expect(error).toMatchObject({ code: 'journal-corrupt', details: { line: 3 } });
    appendFileSync(store.pathOf('run-b'), `${encodeHeader('run-b', 1)}[1,2]\n`);
    expect((await caught(() => store.read('run-b'))).code).toBe('journal-corrupt');
  });

  it('corrupt metadata is a typed error', async () => {
    const store = fresh();
    await store.writeMeta('run-a', { runId: 'run-a', request: 'r', createdAt: 1, options: {} });
    writeFileSync(join(store.pathOf('run-a'), '..', 'run-a.meta.json'), '{');
    expect((await caught(() => store.readMeta('run-a'))).code).toBe('journal-corrupt');
  });

  it('keeps at most maxOpenFiles descriptors and reopens evicted runs correctly', async () => {
    const store = fresh();
    for (let round = 0; round < 3; round++) {
      await Promise.all(['r1', 'r2', 'r3', 'r4'].map((runId) => appendEvents(store, runId, [round], round)));
    }
    for (const runId of ['r1', 'r2', 'r3', 'r4']) {
      expect((await store.read(runId)).map((event) => event.at)).toEqual([0, 1, 2]);
    }
  });

  it('a write failure is a typed store error', async () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    const store = createJsonlRunStore({ dir: join(file, 'sub') });
    expect((await caught(() => appendEvents(store, 'run-a', [1]))).code).toBe('store-failed');
  });

  it('after a full disk, the same store appends again once there is room (the failed group left nothing)', async () => {
    const store = fresh();
    const here = dirname(fileURLToPath(import.meta.url));
    const child = spawn(
      'bash',
      [
        '-c',
        'ulimit -S -f 4 && exec "$0" "$@"',
        process.execPath,
        '--import',
        'tsx',
        '--conditions=@closedloop/source',
        join(here, '__fixtures__', 'append-until-full.ts'),
      ],
      { cwd: join(here, '..'), env: { ...process.env, STORE_DIR: join(store.pathOf('x'), '..') } },
    );
    let output = '';
    const exited = new Promise((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes('failed')) resolve();
      });
      child.on('exit', () => reject(new Error(`the child exited: ${output}`)));
    });
    expect(output).toContain('failed store-failed');
    // Space was freed: the child may write files of any size again.
    expect(spawnSync('prlimit', ['--pid', String(child.pid), '--fsize=unlimited:']).status).toBe(0);
    child.stdin.write('\n');
    await exited;
    expect(output.trim().split('\n')).toEqual(['failed store-failed', 'appended', 'events 9']);
    expect((await store.read('run-a')).length).toBe(9);
  }, 30_000);

  it('rejects bad options with typed errors', () => {
    for (const bad of [{ dir: '' }, { dir: root, maxOpenFiles: 0 }, { dir: root, durability: 'always' }]) {
      expect(() => createJsonlRunStore(bad as never)).toThrow(
        expect.objectContaining({ code: 'invalid-options' }),
      );
    }
  });
});

describe('JSONL lease (a lock file beside the journal)', () => {
  const lockOf = (store: JsonlRunStore, runId: string) => join(store.pathOf(runId), '..', `${runId}.lock`);
  const writeLock = (store: JsonlRunStore, runId: string, holder: Record<string, unknown>) =>
    writeFileSync(
      lockOf(store, runId),
      JSON.stringify({ token: 'other', purpose: 'resume', acquiredAt: Date.now(), ttlMs: 15_000, ...holder }),
    );

  it('holds the pid, host and heartbeat, is removed on release, and is not a run', async () => {
    const store = fresh();
    const lease = await store.acquireLease('run-a', { purpose: 'resume' });
    const lock = JSON.parse(readFileSync(lockOf(store, 'run-a'), 'utf8'));
    expect(lock).toMatchObject({ pid: process.pid, host: hostname(), purpose: 'resume' });
    expect(typeof lock.renewedAt).toBe('number');
    expect(await store.list()).toEqual([]);
    await lease.release();
    expect(existsSync(lockOf(store, 'run-a'))).toBe(false);
  });

  it('a lock whose pid is gone on this host is taken over at once', async () => {
    const store = fresh();
    const exited = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const deadPid = Number(exited.stdout.toString());
    writeLock(store, 'run-a', { pid: deadPid, host: hostname(), renewedAt: Date.now() });
    const lease = await store.acquireLease('run-a', { purpose: 'resume' });
    expect(lease.holder.pid).toBe(process.pid);
    await lease.release();
    expect(readdirSync(join(store.pathOf('run-a'), '..'))).toEqual([]);
  });

  it('a taker killed between its takeover marker and its rename does not block later takers', async () => {
    const store = fresh();
    const deadPid = () =>
      Number(
        spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString(),
      );
    writeLock(store, 'run-a', {
      token: 'dead-owner',
      pid: deadPid(),
      host: hostname(),
      renewedAt: Date.now(),
    });
    // Two takers died in turn mid-takeover: one marked the owner, the next marked that taker.
    const marker = `${lockOf(store, 'run-a')}.takeover-dead-owner`;
    const taker = (token: string) =>
      JSON.stringify({
        token,
        purpose: 'resume',
        pid: deadPid(),
        host: hostname(),
        renewedAt: Date.now(),
        ttlMs: 15_000,
      });
    writeFileSync(marker, taker('dead-taker'));
    writeFileSync(`${marker}.takeover-dead-taker`, taker('dead-taker-2'));
    const lease = await store.acquireLease('run-a', { purpose: 'resume' });
    expect(lease.holder.pid).toBe(process.pid);
    expect(lease.takenOver).toMatchObject({ token: 'dead-owner' });
    await lease.release();
    expect(readdirSync(join(store.pathOf('run-a'), '..'))).toEqual([]);
  });

  it('a takeover marker of a live taker is respected: the lease is not taken twice', async () => {
    const store = fresh();
    writeLock(store, 'run-a', { token: 'old', pid: 1, host: 'elsewhere', renewedAt: Date.now() - 60_000 });
    writeFileSync(
      `${lockOf(store, 'run-a')}.takeover-old`,
      JSON.stringify({
        token: 'live',
        purpose: 'resume',
        pid: process.ppid,
        host: hostname(),
        renewedAt: Date.now(),
        ttlMs: 15_000,
      }),
    );
    expect((await caught(() => store.acquireLease('run-a'))).code).toBe('store-failed');
  });

  it('a fresh lock of a live process is refused: "run X is being resumed by pid N on host H"', async () => {
    const store = fresh();
    writeLock(store, 'run-a', { pid: process.ppid, host: hostname(), renewedAt: Date.now() });
    const error = await caught(() => store.acquireLease('run-a'));
    expect(error.code).toBe('run-leased');
    expect(error.message).toContain(
      `run run-a is being resumed by pid ${process.ppid} on host ${hostname()}`,
    );
    writeLock(store, 'run-b', { pid: 1, host: 'elsewhere', renewedAt: Date.now() });
    expect((await caught(() => store.acquireLease('run-b'))).message).toContain('on host elsewhere');
  });

  it('a live holder on this host whose heartbeat stopped (paused, or its clock jumped) is not taken over', async () => {
    const store = fresh();
    const here = dirname(fileURLToPath(import.meta.url));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--conditions=@closedloop/source', join(here, '__fixtures__', 'lease-holder.ts')],
      {
        cwd: join(here, '..'),
        env: { ...process.env, STORE_DIR: join(store.pathOf('x'), '..'), RUN_ID: 'run-a', TTL_MS: '300' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      let output = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk) => {
          output += chunk;
          if (output.includes('held')) resolve();
        });
        child.on('exit', () => reject(new Error(`the holder exited: ${output}`)));
      });
      // Paused (SIGSTOP, a suspended VM, a blocked event loop): alive, but its heartbeat stops and
      // its lock looks older than its TTL — as it does to a taker whose clock jumped forward.
      child.kill('SIGSTOP');
      await new Promise((resolve) => setTimeout(resolve, 900));
      const lock = JSON.parse(readFileSync(lockOf(store, 'run-a'), 'utf8'));
      expect(Date.now() - lock.renewedAt).toBeGreaterThan(300);
      const error = await caught(() => store.acquireLease('run-a'));
      expect(error.code).toBe('run-leased');
      expect(error.message).toContain(`pid ${child.pid}`);
      // Resumed, it still holds its lease; once it is dead, the lease is taken over at once.
      child.kill('SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(output).not.toContain('lost');
      child.kill('SIGKILL');
      await exited;
      const lease = await store.acquireLease('run-a');
      expect(lease.takenOver?.pid).toBe(child.pid);
      await lease.release();
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  it('a renewal that fails once (a full disk, an I/O error) does not stop the heartbeat for good', async () => {
    const store = fresh();
    const lease = await store.acquireLease('run-a', { ttlMs: 300, renewEveryMs: 40 });
    // The renewal's private file cannot be written while a folder stands in its place.
    const blocker = `${lockOf(store, 'run-a')}.${lease.holder.token}.tmp`;
    mkdirSync(blocker);
    await new Promise((resolve) => setTimeout(resolve, 150));
    rmSync(blocker, { recursive: true });
    await new Promise((resolve) => setTimeout(resolve, 450));
    // Renewed again since: the lease is not stale, so nobody can take it over.
    const lock = JSON.parse(readFileSync(lockOf(store, 'run-a'), 'utf8'));
    expect(Date.now() - lock.renewedAt).toBeLessThan(300);
    expect((await caught(() => store.acquireLease('run-a'))).code).toBe('run-leased');
    expect(lease.signal.aborted).toBe(false);
    await lease.release();
  });

  it('a holder that cannot renew for a whole TTL loses its lease (lease-lost), so it stops acting', async () => {
    const store = fresh();
    const lease = await store.acquireLease('run-a', { ttlMs: 200, renewEveryMs: 40 });
    mkdirSync(`${lockOf(store, 'run-a')}.${lease.holder.token}.tmp`);
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toMatchObject({ code: 'lease-lost' });
    expect(String(lease.signal.reason.message)).toContain('for longer than its TTL');
    await lease.release();
  });

  it('a lock whose pid now names another process (reused after a crash, or before a reboot) is taken over', async () => {
    const store = fresh();
    // process.ppid is alive: only the process identity in the lock tells it is not the holder.
    writeLock(store, 'run-a', {
      pid: process.ppid,
      host: hostname(),
      renewedAt: Date.now(),
      processStart: '1',
    });
    const reused = await store.acquireLease('run-a');
    expect(reused.takenOver?.pid).toBe(process.ppid);
    await reused.release();
    writeLock(store, 'run-b', {
      pid: process.ppid,
      host: hostname(),
      renewedAt: Date.now(),
      bootId: 'a-boot-before-this-one',
    });
    const rebooted = await store.acquireLease('run-b');
    expect(rebooted.takenOver?.pid).toBe(process.ppid);
    await rebooted.release();
  });

  it('a lock from another host whose heartbeat is older than its TTL is stale', async () => {
    const store = fresh();
    writeLock(store, 'run-a', { pid: 1, host: 'elsewhere', renewedAt: Date.now() - 60_000, ttlMs: 15_000 });
    const lease = await store.acquireLease('run-a');
    await lease.release();
  });

  it('two processes taking over one stale lock: exactly one wins', async () => {
    const store = fresh();
    const other = createJsonlRunStore({ dir: join(store.pathOf('x'), '..') });
    opened.push(other);
    writeLock(store, 'run-a', { pid: 1, host: 'elsewhere', renewedAt: Date.now() - 60_000 });
    const results = await Promise.allSettled([store.acquireLease('run-a'), other.acquireLease('run-a')]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ code: 'run-leased' });
  });
});
