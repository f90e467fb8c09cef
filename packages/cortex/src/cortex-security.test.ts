import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createToolRegistry, defineTool, workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scenarioModel, writeStep } from './__fixtures__/scenario-model';
import { createCortex, defaultRunDeadlineMs, defaultStepDeadlineMs } from './create-cortex';
import { createJsonlRunStore } from './jsonl-run-store';
import type { RunEvent } from './run-events';

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});
async function workspace(files: Record<string, string> = {}) {
  const ws = await createTempWorkspace({ files, git: true });
  workspaces.push(ws);
  return ws;
}

const step = (id: string) => ({
  id,
  description: `do ${id}`,
  dependsOn: [],
  requiredTools: [],
  successCriteria: [],
  protocols: [],
});
const plan = (count: number) => ({
  title: 't',
  successCriteria: [],
  protocols: [],
  steps: Array.from({ length: count }, (_, i) => step(`s${i}`)),
});

/** Every file of the journal folder, concatenated. */
async function journalText(dir: string): Promise<string> {
  let text = '';
  for (const name of await readdir(dir)) text += await readFile(path.join(dir, name), 'utf8');
  return text;
}

describe('secrets never reach the journal, the events or the result', () => {
  it('redacts the task text, what a tool and a command print, and the answer, on the journal path', async () => {
    const envKey = 'cortex-env-canary-7Hq2Lm9Vx4';
    const pasted = 'sk-ant-api03-PASTEDpastedPASTED0123456789';
    const printed = 'ghp_PRINTEDprintedPRINTED0123456789abcd';
    process.env.CLOSEDLOOP_CORTEX_TEST_TOKEN = envKey;
    try {
      const ws = await workspace({
        'leak.cjs': `console.log("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY"); console.log("${printed}"); console.log(process.argv[2]);\n`,
      });
      const store = await createTempWorkspace({});
      workspaces.push(store);
      // A tool whose registry does not redact: only the bus stands between it and the journal.
      const leaky = defineTool({
        name: 'leaky',
        description: 'returns secrets',
        input: z.object({}),
        execute: () => `token ${envKey} and DB_PASS=hunter2hunter2`,
      });
      const model = scenarioModel({
        plans: [plan(1)],
        steps: {
          s0: [
            { toolCalls: [{ name: 'leaky', arguments: {} }] },
            { toolCalls: [{ name: 'run_command', arguments: { argv: ['node', 'leak.cjs', envKey] } }] },
            ...writeStep('out.txt', `key ${envKey}`),
          ],
        },
        answer: `Done with ${envKey} and ${pasted}.`,
      });
      const events: RunEvent[] = [];
      // Neither the runner nor the registry redacts here: only the bus stands before the journal.
      const registry = createToolRegistry([...workspaceTools({ root: ws.root, redactor: false }), leaky], {
        redactor: false,
      });
      const result = await createCortex({
        model,
        tools: registry,
        workspace: ws.root,
        planning: 'always',
        store: createJsonlRunStore({ dir: store.root }),
        onEvent: (event) => events.push(event),
      }).run(`Use the key ${pasted} and ${envKey} to build it`);
      const journal = await journalText(store.root);
      const everything = [journal, JSON.stringify(events), JSON.stringify(result)];
      for (const text of everything) {
        for (const secret of [envKey, pasted, printed, 'hunter2hunter2', 'wJalrXUtnFEMIK7MDENG']) {
          expect(text).not.toContain(secret);
        }
      }
      expect(journal).toContain('[REDACTED');
      const started = events.find((event) => event.type === 'run-started');
      expect(started?.type === 'run-started' && started.request).toContain('[REDACTED]');
      // The model was never sent the pasted key either.
      expect(JSON.stringify(model.requests)).not.toContain(pasted);
    } finally {
      delete process.env.CLOSEDLOOP_CORTEX_TEST_TOKEN;
    }
  });
});

describe('the result', () => {
  it('shares no object with the run: changing it changes no event', async () => {
    const ws = await workspace();
    const model = scenarioModel({
      plans: [plan(2)],
      steps: { s0: writeStep('a.txt', 'A'), s1: writeStep('b.txt', 'B') },
    });
    const events: RunEvent[] = [];
    const result = await createCortex({
      model,
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: 'always',
      onEvent: (event) => events.push(event),
    }).run('Do it');
    expect(result.stopReason).toBe('completed');
    const before = JSON.stringify(events);
    const report = result.report;
    expect(report.steps.length).toBe(2);
    for (const step of report.steps) {
      step.description = 'changed';
      step.replaces.push('changed');
      for (const finding of step.findings) finding.message = 'changed';
    }
    for (const iteration of report.iterations) {
      iteration.findings.push({ check: 'changed', priority: 'P0', status: 'fail', message: 'changed' });
      for (const finding of iteration.findings) finding.message = 'changed';
    }
    for (const finding of report.findings) finding.message = 'changed';
    for (const step of result.plan?.steps ?? []) {
      step.description = 'changed';
      step.ledger.length = 0;
    }
    expect(JSON.stringify(events)).toBe(before);
  });
});

describe('bounds', () => {
  it('sends a plan over planner.maxSteps back once, then runs the smaller one', async () => {
    const ws = await workspace();
    const store = await createTempWorkspace({});
    workspaces.push(store);
    const model = scenarioModel({ plans: [plan(100_000), plan(1)], steps: { s0: writeStep('a.txt', 'A') } });
    const result = await createCortex({
      model,
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: 'always',
      planner: { maxSteps: 50 },
      store: createJsonlRunStore({ dir: store.root }),
    }).run('Do it');
    expect(result.stopReason).toBe('completed');
    expect(model.asked.planner).toBe(2);
    const repair = model.requests[1]?.messages.at(-1)?.content ?? '';
    expect(repair).toContain('more than the maximum of 50');
    expect((await journalText(store.root)).length).toBeLessThan(200_000);
  });

  it('stops with a typed plan-too-large failure when the repair is too large again, journaling no plan', async () => {
    const ws = await workspace();
    const store = await createTempWorkspace({});
    workspaces.push(store);
    const model = scenarioModel({ plans: [plan(400), plan(301)] });
    const before = process.memoryUsage().rss;
    const result = await createCortex({
      model,
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: 'always',
      store: createJsonlRunStore({ dir: store.root }),
    }).run('Do it');
    expect(result.stopReason).toBe('failed');
    expect(result.reason).toMatch(/too large/);
    expect(result.plan).toBeNull();
    const journal = await journalText(store.root);
    expect(journal).toContain('"code":"plan-too-large"');
    expect(journal).not.toContain('plan-created');
    expect(process.memoryUsage().rss - before).toBeLessThan(500 * 1024 * 1024);
  });

  it('has default run and step deadlines and a tool timeout, each configurable', async () => {
    await workspace();
    const store = await createTempWorkspace({});
    workspaces.push(store);
    const runStore = createJsonlRunStore({ dir: store.root });
    const model = scenarioModel({
      plans: [plan(1)],
      steps: {
        s0: [
          { toolCalls: [{ name: 'hang', arguments: {} }] },
          {
            toolCalls: [{ name: 'mark_step', arguments: { status: 'fail', notes: '[FAIL]: the tool hung' } }],
          },
        ],
      },
    });
    const hang = defineTool({
      name: 'hang',
      description: 'never returns',
      input: z.object({}),
      execute: () => new Promise(() => {}),
    });
    const cortex = createCortex({
      model,
      tools: [hang],
      planning: 'always',
      store: runStore,
      executor: { toolTimeoutMs: 200 },
      replanner: { maxAttempts: 1 },
    });
    const started = Date.now();
    const events: RunEvent[] = [];
    const stream = cortex.events('Do it', { runId: 'hang-run' });
    for await (const event of stream) events.push(event);
    await stream.result;
    expect(Date.now() - started).toBeLessThan(20_000);
    const finished = events.find((event) => event.type === 'tool-call-finished');
    expect(JSON.stringify(finished)).toMatch(/timeout|did not finish/);
    const meta = await runStore.readMeta('hang-run');
    expect(meta?.options.deadlines).toEqual({ runMs: defaultRunDeadlineMs, stepMs: defaultStepDeadlineMs });
    expect(() => createCortex({ model, tools: [hang], deadlines: { runMs: -1 } })).toThrow(/deadlines.runMs/);
    expect(() => createCortex({ model, tools: [hang], planner: { maxSteps: 0 } })).toThrow(
      /planner.maxSteps/,
    );
  });
});
