import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Finding } from './finding';
import { createProtocolContext, type Protocol } from './protocol';
import { runProtocols } from './run-protocols';

const ctx = () => createProtocolContext({ workspace: tmpdir() });

function protocol(
  name: string,
  layer: Protocol['layer'],
  outcome: Partial<Finding> | (() => Promise<Finding[]>),
  extra: Partial<Protocol> = {},
): Protocol {
  return {
    name,
    priority: 'P1',
    layer,
    run:
      typeof outcome === 'function'
        ? outcome
        : async () => [{ check: name, priority: 'P1', status: 'pass', message: 'ok', ...outcome }],
    ...extra,
  };
}

describe('runProtocols', () => {
  it('runs groups in order, protocols of a group in parallel', async () => {
    const log: string[] = [];
    const timed = (name: string, group: number, ms: number): Protocol =>
      protocol(
        name,
        1,
        async () => {
          log.push(`start ${name}`);
          await new Promise((resolve) => setTimeout(resolve, ms));
          log.push(`end ${name}`);
          return [{ check: name, priority: 'P1', status: 'pass', message: 'ok' }];
        },
        { group },
      );
    const result = await runProtocols(
      [timed('FUNC', 3, 5), timed('LINT', 2, 40), timed('TEST', 2, 10), timed('BUILD', 1, 5)],
      ctx(),
    );
    expect(log).toEqual([
      'start BUILD',
      'end BUILD',
      'start LINT',
      'start TEST',
      'end TEST',
      'end LINT',
      'start FUNC',
      'end FUNC',
    ]);
    expect(result.timings.map((timing) => timing.check)).toEqual(['BUILD', 'LINT', 'TEST', 'FUNC']);
  });

  it('fast-fails: a P0 failure skips later groups', async () => {
    const { findings } = await runProtocols(
      [
        protocol('BUILD', 1, { status: 'fail', priority: 'P0' }, { group: 1, priority: 'P0' }),
        protocol('TEST', 2, { status: 'pass' }, { group: 2 }),
      ],
      ctx(),
    );
    expect(findings.map((f) => [f.check, f.status])).toEqual([
      ['BUILD', 'fail'],
      ['TEST', 'skip'],
    ]);
    expect(findings[1]?.message).toMatch(/fast-fail after a P0 failure in BUILD/);
    const noFastFail = await runProtocols(
      [
        protocol('BUILD', 1, { status: 'fail', priority: 'P0' }, { group: 1, priority: 'P0' }),
        protocol('TEST', 2, {}, { group: 2 }),
      ],
      ctx(),
      { fastFail: false },
    );
    expect(noFastFail.findings[1]?.status).toBe('pass');
  });

  it('reports skip for protocols that do not apply or are outside the mode', async () => {
    const { findings } = await runProtocols(
      [protocol('A', 1, {}, { appliesTo: () => false }), protocol('E2E', 4, {}), protocol('JUDGE', 5, {})],
      ctx(),
      { mode: 'standard' },
    );
    expect(findings.map((f) => [f.check, f.status])).toEqual([
      ['E2E', 'skip'],
      ['A', 'skip'],
      ['JUDGE', 'pass'],
    ]);
    expect(findings[0]?.message).toMatch(/not part of mode standard/);
  });

  it('turns crashes, timeouts and malformed results into infrastructure errors', async () => {
    const { findings } = await runProtocols(
      [
        protocol('CRASH', 1, async () => {
          throw new Error('boom');
        }),
        protocol('SLOW', 1, () => new Promise(() => {}), { timeoutMs: 50 }),
        protocol('BAD', 1, async () => [{ check: 'BAD', status: 'great' } as unknown as Finding]),
        protocol('EMPTY', 1, async () => []),
      ],
      ctx(),
    );
    expect(findings.map((f) => [f.check, f.status])).toEqual([
      ['CRASH', 'error'],
      ['SLOW', 'error'],
      ['BAD', 'error'],
      ['EMPTY', 'skip'],
    ]);
    expect(findings[0]?.message).toMatch(/crashed: boom/);
    expect(findings[1]?.message).toMatch(/timed out after 50 ms/);
  });

  it('kills commands of a protocol that times out', async () => {
    const workspace = await realpath(await mkdtemp(path.join(tmpdir(), 'closedloop-hang-')));
    try {
      await writeFile(
        path.join(workspace, 'hang.cjs'),
        // A beat at once, then every 50 ms: the file exists as soon as the command started.
        'const beat = () => require("fs").appendFileSync("beats.txt", ".");\nbeat();\nsetInterval(beat, 50);\n',
      );
      const hang: Protocol = {
        name: 'HANG',
        priority: 'P1',
        layer: 1,
        // Long enough for a loaded machine to start node in the sandbox (beats.txt must exist).
        timeoutMs: 3000,
        run: async (context) => {
          const result = await context.run(['node', 'hang.cjs']);
          return [{ check: 'HANG', priority: 'P1', status: 'pass', message: String(result.exitCode) }];
        },
      };
      const started = Date.now();
      const { findings } = await runProtocols([hang], createProtocolContext({ workspace }));
      expect(findings[0]).toMatchObject({
        status: 'error',
        message: expect.stringMatching(/timed out after 3000 ms/),
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      // The command (in its own pid namespace when sandboxed) no longer beats.
      const beats = path.join(workspace, 'beats.txt');
      const before = (await readFile(beats, 'utf8')).length;
      expect(before).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect((await readFile(beats, 'utf8')).length).toBe(before);
    } finally {
      await rm(workspace, { recursive: true, force: true });
    }
  });

  it('applies criterion priorities and fills the layer', async () => {
    const { findings } = await runProtocols([protocol('TEST', 2, { status: 'fail' })], ctx(), {
      priorities: { TEST: 'P0' },
    });
    expect(findings[0]).toMatchObject({ priority: 'P0', layer: 2 });
  });

  it('rejects malformed protocols, duplicate names, bad modes, and aborts', async () => {
    await expect(
      runProtocols(
        [{ name: 'X', priority: 'P9', layer: 1, run: async () => [] } as unknown as Protocol],
        ctx(),
      ),
    ).rejects.toMatchObject({
      code: 'invalid-protocol',
    });
    await expect(runProtocols([protocol('A', 1, {}), protocol('A', 2, {})], ctx())).rejects.toMatchObject({
      code: 'invalid-protocol',
    });
    await expect(runProtocols([], ctx(), { mode: 'turbo' as never })).rejects.toMatchObject({
      code: 'invalid-options',
    });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    await expect(
      runProtocols([protocol('SLOW', 1, () => new Promise(() => {}), { timeoutMs: 10_000 })], ctx(), {
        signal: controller.signal,
      }),
    ).rejects.toMatchObject({ code: 'aborted' });
  });
});
