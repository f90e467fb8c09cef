import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CommandRunner, createToolRegistry, defineTool } from '@closedloop/tools';
import { beginWorkspaceActivity, isCountedRegistry, workspaceActivity } from '@closedloop/tools/internal';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { planWithStep, writeCall } from './__fixtures__/step-trace';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { createProtocolContext, type Protocol } from './protocol';
import { runCommand } from './run-command';
import { runProtocols } from './run-protocols';
import { verifyStep } from './verify-step';
import { diffSnapshots, snapshotWorkspace } from './workspace-snapshot';

const workspace = useTempWorkspaces();

/** A script commands run to write a file: `node write.mjs <file> <text>` (the policy has no `-e`). */
const writer = {
  'write.mjs': "import { writeFileSync } from 'node:fs';\nwriteFileSync(process.argv[2], process.argv[3]);\n",
};

const run = { scope: 'run-1' };
/** Reuse of run-1's last walk, however old. */
const reuse = { reuse: { scope: 'run-1', withinMs: 60_000 } };

describe('snapshotWorkspace({ reuse })', () => {
  it("returns the scope's last walk while nothing of this process has run since — never another scope's, nor an unscoped one", async () => {
    const ws = await workspace({ 'a.txt': 'a\n' });
    const first = snapshotWorkspace(ws.root, { reuse: run });
    expect(snapshotWorkspace(ws.root, reuse)).toBe(first);
    expect(snapshotWorkspace(ws.root, { reuse: { scope: 'run-2', withinMs: 60_000 } })).not.toBe(first);
    // Without `reuse` a walk is taken, and recorded for no one.
    const plain = snapshotWorkspace(ws.root);
    expect(plain).not.toBe(first);
    const other = await workspace({ 'b.txt': 'b\n' });
    snapshotWorkspace(other.root);
    expect(snapshotWorkspace(other.root, reuse).files.has('b.txt')).toBe(true);
    expect(snapshotWorkspace(other.root, reuse)).toBe(snapshotWorkspace(other.root, reuse));
  });

  it('walks again for other limits, and once the walk is older than the window', async () => {
    const ws = await workspace({ 'a.txt': 'a\n' });
    const first = snapshotWorkspace(ws.root, { reuse: run });
    expect(snapshotWorkspace(ws.root, { ...reuse, maxFiles: 10 })).not.toBe(first);
    const limited = snapshotWorkspace(ws.root, { reuse: run, maxFiles: 10 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const again = snapshotWorkspace(ws.root, { reuse: { scope: 'run-1', withinMs: 10 }, maxFiles: 10 });
    expect(again).not.toBe(limited);
    expect(again.takenAt).toBeGreaterThan(limited.takenAt);
  });

  it('walks again after a tool call — even one that ended — and sees what it wrote', async () => {
    const ws = await workspace({ 'a.txt': 'a\n' });
    const registry = createToolRegistry([
      defineTool({
        name: 'write_b',
        description: 'Writes b.txt.',
        input: z.object({}),
        execute: () => {
          writeFileSync(path.join(ws.root, 'b.txt'), 'b\n');
          return 'written';
        },
      }),
    ]);
    const before = snapshotWorkspace(ws.root, { reuse: run });
    await registry.execute('write_b', {}, { signal: new AbortController().signal, callId: 'c1' });
    const baseline = snapshotWorkspace(ws.root, reuse);
    expect(baseline).not.toBe(before);
    expect(baseline.files.has('b.txt')).toBe(true);
  });

  it('walks again while a tool that timed out is still running, and after it finally ends', async () => {
    const ws = await workspace({ 'a.txt': 'a\n' });
    let finish: () => void = () => {};
    const registry = createToolRegistry([
      defineTool({
        name: 'slow_write',
        description: 'Writes late.',
        input: z.object({}),
        timeoutMs: 20,
        execute: () =>
          new Promise<string>((resolve) => {
            finish = () => {
              writeFileSync(path.join(ws.root, 'late.txt'), 'late\n');
              resolve('done');
            };
          }),
      }),
    ]);
    const outcome = await registry.execute(
      'slow_write',
      {},
      { signal: new AbortController().signal, callId: 'c2' },
    );
    expect(outcome.status).toBe('error');
    // The call gave up, the tool did not: a walk now is no moment's exact state to reuse.
    const during = snapshotWorkspace(ws.root, { reuse: run });
    expect(snapshotWorkspace(ws.root, reuse)).not.toBe(during);
    finish();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(snapshotWorkspace(ws.root, reuse).files.has('late.txt')).toBe(true);
  });

  it('walks again after a command ran, and sees what it wrote', async () => {
    const ws = await workspace({ 'a.txt': 'a\n', ...writer });
    const before = snapshotWorkspace(ws.root, { reuse: run });
    const ran = await runCommand({ argv: ['node', 'write.mjs', 'c.txt', 'c'], cwd: ws.root });
    expect(ran.exitCode, JSON.stringify(ran)).toBe(0);
    const baseline = snapshotWorkspace(ws.root, reuse);
    expect(baseline).not.toBe(before);
    expect(baseline.files.has('c.txt')).toBe(true);
  });

  it('never records a walk taken while something of this process runs', async () => {
    const ws = await workspace({ 'a.txt': 'a\n' });
    const end = beginWorkspaceActivity();
    const during = snapshotWorkspace(ws.root, { reuse: run });
    end();
    expect(snapshotWorkspace(ws.root, reuse)).not.toBe(during);
  });

  it('a reused baseline judges the step exactly as a fresh one: the change shows, attributed once', async () => {
    const ws = await workspace({ 'a.txt': 'a\n', ...writer });
    snapshotWorkspace(ws.root, { reuse: run }); // the previous step's final walk
    const baseline = snapshotWorkspace(ws.root, reuse);
    const ran = await runCommand({ argv: ['node', 'write.mjs', 'a.txt', 'changed'], cwd: ws.root });
    expect(ran.exitCode, JSON.stringify(ran)).toBe(0);
    const changes = diffSnapshots(baseline, snapshotWorkspace(ws.root));
    expect(changes.modified).toEqual(['a.txt']);
    expect(changes.created).toEqual([]);
  });
});

describe("verifyStep and the next step's baseline", () => {
  const reporter: Protocol = {
    name: 'REPORTER',
    priority: 'P1',
    layer: 1,
    async run(ctx) {
      writeFileSync(path.join(ctx.workspace, 'report.txt'), 'report\n');
      return [{ check: 'REPORTER', priority: 'P1', status: 'pass', message: 'report written' }];
    },
  };

  /** A step that wrote a.txt, verified against a baseline of run-1 (with `protocols`). */
  async function verifiedStep(protocols: string[]) {
    const ws = await workspace({ 'README.md': '# r\n' });
    const baseline = snapshotWorkspace(ws.root, { reuse: run });
    await ws.write('a.txt', 'A\n');
    const plan = planWithStep({
      description: 'Create a.txt',
      protocols,
      ledger: [writeCall('a.txt', 'A\n')],
      notes: '[SUCCESS]: wrote a.txt',
      claims: { filesWritten: ['a.txt'] },
    });
    const report = await verifyStep(plan, 's1', { workspace: ws.root, baseline, protocols: [reporter] });
    expect(report.verdict).toBe('success');
    return { ws, baseline };
  }

  it("the step's final walk is the next step's baseline while nothing ran since", async () => {
    const { ws, baseline } = await verifiedStep([]);
    const next = snapshotWorkspace(ws.root, reuse);
    expect(next).not.toBe(baseline);
    expect(next.files.has('a.txt')).toBe(true);
    expect(snapshotWorkspace(ws.root, reuse)).toBe(next);
  });

  it('not once its protocols ran: a protocol may write by means of its own', async () => {
    const { ws } = await verifiedStep(['REPORTER']);
    const next = snapshotWorkspace(ws.root, reuse);
    expect(next.files.has('report.txt')).toBe(true);
  });

  it('not while a protocol that timed out still runs, nor before it settles', async () => {
    const ws = await workspace({ 'README.md': '# r\n' });
    let finish: () => void = () => {};
    const slow: Protocol = {
      name: 'SLOW',
      priority: 'P1',
      layer: 1,
      timeoutMs: 20,
      // Ignores its signal: keeps going after the timeout, and writes then.
      run: (ctx) =>
        new Promise((resolve) => {
          finish = () => {
            writeFileSync(path.join(ctx.workspace, 'late.txt'), 'late\n');
            resolve([]);
          };
        }),
    };
    const result = await runProtocols([slow], createProtocolContext({ workspace: ws.root }));
    expect(result.findings[0]).toMatchObject({ check: 'SLOW', status: 'error' });
    const during = snapshotWorkspace(ws.root, { reuse: run });
    expect(snapshotWorkspace(ws.root, reuse)).not.toBe(during);
    finish();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(snapshotWorkspace(ws.root, reuse).files.has('late.txt')).toBe(true);
  });
});

describe('what counts as activity', () => {
  it("a command the verifier runs through any runner — a caller's own too — counts until the runner is done", async () => {
    const ws = await workspace({ 'README.md': '# r\n' });
    const seen: number[] = [];
    const runner = {
      root: ws.root,
      async run() {
        seen.push(workspaceActivity().running);
        writeFileSync(path.join(ws.root, 'own.txt'), 'own\n');
        return {
          exitCode: 0,
          signal: null,
          stdout: '',
          stderr: '',
          timedOut: false,
          truncated: false,
          durationMs: 1,
        };
      },
    } as unknown as CommandRunner;
    const before = snapshotWorkspace(ws.root, { reuse: run });
    const result = await runCommand({ argv: ['node', '--version'], cwd: ws.root, runner });
    expect(result.exitCode).toBe(0);
    expect(seen[0]).toBeGreaterThan(0);
    const after = snapshotWorkspace(ws.root, reuse);
    expect(after).not.toBe(before);
    expect(after.files.has('own.txt')).toBe(true);
  });

  it('only registries createToolRegistry made count their calls', () => {
    expect(isCountedRegistry(createToolRegistry([]))).toBe(true);
    expect(isCountedRegistry({ execute: async () => ({ status: 'success', output: '' }) })).toBe(false);
    expect(isCountedRegistry(undefined)).toBe(false);
  });

  it('one pair of counters per process, whichever copy of the tools package counts', () => {
    const shared = (globalThis as Record<symbol, { epoch: number; running: number }>)[
      Symbol.for('closedloop.workspaceActivity')
    ];
    const before = workspaceActivity().epoch;
    const end = beginWorkspaceActivity();
    expect(shared?.epoch).toBe(before + 1);
    expect(shared?.running).toBe(workspaceActivity().running);
    end();
  });
});
