import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@closedloop/cortex';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { askBeforeWrites, createNotesModel, notesNarration } from '../__fixtures__/notes-model';
import { createDemoRunner, type DemoRunnerOptions } from '../runner/demo-runner';
import { type ParsedSseMessage, readSse } from './__fixtures__/read-sse';
import type { ConfigAnswer, RunAnswer, StepChangesAnswer } from './api-types';
import { startWebServer, type WebServer } from './web-server';

/** The server over the real runner (cortex, workspace tools, journal), scripted models. */
let base: string;
const servers: WebServer[] = [];
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'closedloop-web-runs-'));
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  rmSync(base, { recursive: true, force: true });
});

async function serve(options: Partial<DemoRunnerOptions> & { latencyMs?: number } = {}) {
  const { latencyMs = 0, ...rest } = options;
  const env: NodeJS.ProcessEnv = { ...process.env, CLOSEDLOOP_DEMO_LATENCY_MS: String(latencyMs) };
  delete env.OPENAI_API_KEY;
  delete env.ANTHROPIC_API_KEY;
  const runner = createDemoRunner({ journal: join(base, 'runs'), workspace: join(base, 'ws'), env, ...rest });
  const server = await startWebServer({ journalDir: runner.journal, ...runner });
  servers.push(server);
  const url = (path: string) => new URL(path, server.url).href;
  const post = async (path: string, body: unknown) => {
    const response = await fetch(url(path), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const get = async <T>(path: string) => (await (await fetch(url(path))).json()) as T;
  return { server, runner, url, post, get };
}

const events = (messages: ParsedSseMessage[]) =>
  messages
    .filter((message) => message.event === 'message')
    .map((message) => JSON.parse(message.data) as RunEvent);
const hasEvent = (type: string) => (messages: ParsedSseMessage[]) =>
  events(messages).some((event) => event.type === type);

describe('which model runs typed tasks', () => {
  it('says so in /api/config, and refuses a typed task with no model (the demo still runs)', async () => {
    const { post, get } = await serve();
    expect(await get<ConfigAnswer>('/api/config')).toEqual({
      model: null,
      version: expect.stringMatching(/^\d+\./),
    });
    const refused = await post('/api/runs', { task: 'Write a haiku about the sea', mode: 'auto' });
    expect(refused.status).toBe(400);
    for (const needle of ['--provider', 'OPENAI_API_KEY', 'ANTHROPIC_API_KEY', '--base-url']) {
      expect(refused.body.error).toContain(needle);
    }
    // Said once, not prefixed twice.
    expect(String(refused.body.error).match(/No model is configured/g)).toHaveLength(1);
    expect((await get<{ runs: unknown[] }>('/api/runs')).runs).toEqual([]);
  });

  it('names the model of a run and of the server', async () => {
    const { post, get, url } = await serve({ chatModel: createNotesModel() });
    expect((await get<ConfigAnswer>('/api/config')).model).toEqual({
      provider: 'scripted',
      modelId: 'scripted-notes',
    });
    const { body } = await post('/api/runs', { task: 'write notes', mode: 'auto' });
    await readSse(url(`/api/runs/${body.runId as string}/events`));
    const run = await get<RunAnswer>(`/api/runs/${body.runId as string}`);
    expect(run).toMatchObject({
      model: { provider: 'scripted', modelId: 'scripted-notes' },
      active: false,
      resumable: false,
    });
    expect(run.workspace).toBe(join(base, 'ws'));
  });
});

describe('streamed model text', () => {
  it('streams text deltas as `live` messages without ids; journaled events keep gap-free ids', async () => {
    const { post, url, runner } = await serve({ chatModel: createNotesModel({ latencyMs: 30 }) });
    const { body } = await post('/api/runs', { task: 'write notes', mode: 'auto' });
    const stream = await readSse(url(`/api/runs/${body.runId as string}/events`));
    const live = stream.messages.filter((message) => message.event === 'live');
    expect(live.every((message) => message.id === undefined)).toBe(true);
    const deltas = live
      .map((message) => JSON.parse(message.data) as RunEvent)
      .filter((event) => event.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((event) => event.delta).join('')).toContain(notesNarration);
    const indexed = stream.messages.filter((message) => message.event === 'message');
    expect(indexed.map((message) => message.id)).toEqual(indexed.map((_, index) => String(index)));
    expect(events(stream.messages)).toEqual(await runner.readRun(body.runId as string));
  });
});

describe('approvals', () => {
  it('holds a guarded call until a human approves it through the server, then the run goes on', async () => {
    const { post, url } = await serve({ chatModel: createNotesModel(), guard: askBeforeWrites });
    const { body } = await post('/api/runs', { task: 'write notes', mode: 'auto' });
    const runId = body.runId as string;
    const asked = await readSse(url(`/api/runs/${runId}/events`), { until: hasEvent('approval-requested') });
    const request = events(asked.messages).find((event) => event.type === 'approval-requested');
    expect(request).toMatchObject({ stepId: 'notes', kind: 'tool-call', tool: 'write_file' });
    const approvalId = (request as { approvalId: string }).approvalId;
    expect(existsSync(join(base, 'ws', 'notes.txt'))).toBe(false);

    expect((await post(`/api/runs/${runId}/approvals/nope`, { approved: true })).status).toBe(404);
    expect((await post(`/api/runs/${runId}/approvals/${approvalId}`, { approved: 'yes' })).status).toBe(400);
    const answer = await post(`/api/runs/${runId}/approvals/${approvalId}`, { approved: true, note: 'fine' });
    expect(answer).toEqual({ status: 200, body: { runId, approvalId, approved: true } });
    const again = await post(`/api/runs/${runId}/approvals/${approvalId}`, { approved: false });
    expect(again.status).toBe(409);

    const rest = await readSse(url(`/api/runs/${runId}/events`));
    const all = events(rest.messages);
    expect(all.find((event) => event.type === 'approval-resolved')).toMatchObject({
      approved: true,
      note: 'fine',
    });
    expect(all.at(-1)).toMatchObject({ type: 'run-finished', stopReason: 'completed' });
    expect(readFileSync(join(base, 'ws', 'notes.txt'), 'utf8')).toContain('hello');
    // Over now: nothing waits for an answer.
    expect((await post(`/api/runs/${runId}/approvals/${approvalId}`, { approved: true })).status).toBe(409);
  });

  it('a denial stops the call: the file is never written and the claim fails', async () => {
    const { post, url } = await serve({ chatModel: createNotesModel(), guard: askBeforeWrites });
    const { body } = await post('/api/runs', { task: 'write notes', mode: 'auto' });
    const runId = body.runId as string;
    const asked = await readSse(url(`/api/runs/${runId}/events`), { until: hasEvent('approval-requested') });
    const request = events(asked.messages).find((event) => event.type === 'approval-requested') as {
      approvalId: string;
    };
    expect(
      (await post(`/api/runs/${runId}/approvals/${request.approvalId}`, { approved: false })).status,
    ).toBe(200);
    const all = events((await readSse(url(`/api/runs/${runId}/events`))).messages);
    expect(all.find((event) => event.type === 'approval-resolved')).toMatchObject({ approved: false });
    expect(all.at(-1)).toMatchObject({ type: 'run-finished' });
    expect(all.at(-1)).not.toMatchObject({ stopReason: 'completed' });
    expect(existsSync(join(base, 'ws', 'notes.txt'))).toBe(false);
  });
});

describe('step changes', () => {
  it("serves each step run's workspace diff, marking files its own file tools wrote", async () => {
    const { post, url, get } = await serve({ chatModel: createNotesModel() });
    const { body } = await post('/api/runs', { task: 'write notes', mode: 'auto' });
    const runId = body.runId as string;
    await readSse(url(`/api/runs/${runId}/events`));
    const changes = await get<StepChangesAnswer>(`/api/runs/${runId}/steps/notes/changes`);
    expect(changes.runs).toHaveLength(1);
    expect(changes.runs[0]).toMatchObject({
      stepId: 'notes',
      run: 1,
      status: 'completed',
      concurrentSteps: [],
    });
    expect(changes.runs[0]?.files).toEqual([
      {
        path: 'notes.txt',
        change: 'added',
        byStep: true,
        additions: 2,
        deletions: 0,
        hunks: [expect.objectContaining({ lines: ['+hello', '+from the notes step'] })],
      },
    ]);
    expect((await get<StepChangesAnswer>(`/api/runs/${runId}/steps/ghost/changes`)).runs).toEqual([]);
    expect((await fetch(url('/api/runs/run-missing/steps/notes/changes'))).status).toBe(404);
  });
});

describe('resume', () => {
  it('continues a cancelled run from its journal: ids continue, finished steps are not redone', async () => {
    const { post, url, get } = await serve({ latencyMs: 80 });
    const { body } = await post('/api/runs', { mode: 'auto' });
    const runId = body.runId as string;
    expect((await post(`/api/runs/${runId}/resume`, {})).status).toBe(409);
    const first = await readSse(url(`/api/runs/${runId}/events`), {
      until: (messages) =>
        events(messages).some((event) => event.type === 'step-finished' && event.stepId === 'scaffold'),
    });
    expect((await post(`/api/runs/${runId}/cancel`, {})).status).toBe(202);
    const cancelled = await readSse(url(`/api/runs/${runId}/events`));
    expect(events(cancelled.messages).at(-1)).toMatchObject({
      type: 'run-finished',
      stopReason: 'cancelled',
    });
    expect(first.messages.length).toBeGreaterThan(0);
    const before = await get<RunAnswer>(`/api/runs/${runId}`);
    expect(before).toMatchObject({ active: false, resumable: true });

    expect(await post(`/api/runs/${runId}/resume`, {})).toEqual({ status: 202, body: { runId } });
    // Until the resumed run ends (about 3 s on a quiet machine; a loaded CI machine took over 8 s).
    const resumed = await readSse(url(`/api/runs/${runId}/events?from=${before.events.length}`), {
      timeoutMs: 45_000,
    });
    const after = events(resumed.messages);
    expect(resumed.messages.find((message) => message.event === 'message')?.id).toBe(
      String(before.events.length),
    );
    expect(after[0]).toMatchObject({ type: 'run-started', resumed: true });
    expect(after.at(-1)).toMatchObject({ type: 'run-finished', stopReason: 'completed' });
    expect(after.some((event) => event.type === 'step-started' && event.stepId === 'scaffold')).toBe(false);
    const done = await get<RunAnswer>(`/api/runs/${runId}`);
    expect(done).toMatchObject({ active: false, resumable: false });
    expect(done.events).toEqual([...before.events, ...after]);

    const twice = await post(`/api/runs/${runId}/resume`, {});
    expect(twice.status).toBe(409);
    expect(twice.body.error).toContain('stopped for good');
    expect((await post('/api/runs/run-missing/resume', {})).status).toBe(404);
  }, 60_000);
});
