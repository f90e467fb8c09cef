import type { ScriptedResponse } from '@closedloop/model/testing';
import type { TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { plannerOutput, playScenario } from './__fixtures__/play-scenario';
import { type ScenarioOptions, writeStep } from './__fixtures__/scenario-model';

// More lies told at the plan level, end to end (see cortex-plan-lies.test.ts): the planner
// silently leaves out a file the request asks to create, delete or rename, or a declaration the
// request names without backticks. Each lie has an honest twin that must still complete.

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});

async function play(scenario: ScenarioOptions, request: string, files: Record<string, string> = {}) {
  const played = await playScenario({ scenario, request, files, workspaces });
  const requestFindings = played.events.flatMap((event) =>
    event.type === 'finding-reported' && event.scope === 'goal' && event.finding.check === 'request'
      ? [event.finding]
      : [],
  );
  return { ...played, requestFindings };
}

const plan = plannerOutput;

/** A step that runs one command (`git rm`, `git mv`), then reports success. */
const commandStep = (argv: string[]): ScriptedResponse[] => [
  { toolCalls: [{ name: 'run_command', arguments: { argv } }] },
  {
    toolCalls: [
      { name: 'mark_step', arguments: { status: 'success', notes: `[SUCCESS]: ran ${argv.join(' ')}` } },
    ],
  },
];

/** The goal repair the lies lead to gives up: the run must not end `completed`. */
const giveUp = [{ action: 'give_up' as const, reason: 'cannot' }];

const util = 'export function slugify(text) {\n  return text.toLowerCase();\n}\n';
const usage = '# Usage\n\nCall slugify.\n';
const withParseDate = 'export function parseDate(text) {\n  return new Date(text);\n}\n';
const withCache = `${withParseDate}\nexport class Cache {\n  entries = new Map();\n}\n`;

const createBoth = 'Create src/util.js and docs/usage.md: a slugify helper and a page that explains it.';
const deleteBoth = 'Delete src/old.js and src/legacy.js; nothing imports them.';
const renameOne = 'Rename src/helpers.js to src/format.js; nothing imports it yet.';
const declareBoth = 'Add a function called parseDate and a class named Cache to src/date.js.';
const oldFiles = { 'src/old.js': 'export {};\n', 'src/legacy.js': 'export {};\n' };
const helpers = { 'src/helpers.js': 'export const pad = (s) => s.padStart(2, "0");\n' };

describe('plan-level lies about files and names never end completed', { timeout: 60_000 }, () => {
  it('plans the code file and silently drops the docs file asked to be created', async () => {
    const { result, ws, requestFindings } = await play(
      {
        plans: [plan([{ id: 'util', description: 'Create src/util.js with a slugify helper' }])],
        steps: { util: writeStep('src/util.js', util) },
        replans: giveUp,
      },
      createBoth,
    );
    expect(result.stopReason).not.toMatch(/^completed/);
    expect(await ws.exists('docs/usage.md')).toBe(false);
    expect(requestFindings).toContainEqual(
      expect.objectContaining({ status: 'fail', message: expect.stringMatching(/create docs\/usage\.md/) }),
    );
  });

  it('deletes one of the two files asked to be deleted', async () => {
    const { result, requestFindings } = await play(
      {
        plans: [plan([{ id: 'old', description: 'Delete src/old.js' }])],
        steps: { old: commandStep(['git', 'rm', '-q', 'src/old.js']) },
        replans: giveUp,
      },
      deleteBoth,
      oldFiles,
    );
    expect(result.stopReason).not.toMatch(/^completed/);
    expect(requestFindings).toContainEqual(
      expect.objectContaining({ status: 'fail', message: expect.stringMatching(/delete src\/legacy\.js/) }),
    );
  });

  it('copies a file asked to be renamed and leaves the old one', async () => {
    const { result, requestFindings } = await play(
      {
        plans: [
          plan([{ id: 'copy', description: 'Create src/format.js with the content of src/helpers.js' }]),
        ],
        steps: { copy: writeStep('src/format.js', helpers['src/helpers.js']) },
        replans: giveUp,
      },
      renameOne,
      helpers,
    );
    expect(result.stopReason).not.toMatch(/^completed/);
    expect(requestFindings).toContainEqual(
      expect.objectContaining({
        status: 'fail',
        message: expect.stringMatching(/src\/helpers\.js is still there/),
      }),
    );
  });

  it('plans one of two declarations named without backticks', async () => {
    const { result, requestFindings } = await play(
      {
        plans: [plan([{ id: 'parse', description: 'Add a function called parseDate to src/date.js' }])],
        steps: { parse: writeStep('src/date.js', withParseDate) },
        replans: giveUp,
      },
      declareBoth,
      { 'src/date.js': '' },
    );
    expect(result.stopReason).not.toMatch(/^completed/);
    expect(requestFindings).toContainEqual(
      expect.objectContaining({ status: 'fail', message: expect.stringMatching(/`Cache`/) }),
    );
  });
});

describe('their honest twins still complete', { timeout: 60_000 }, () => {
  it('creates both files asked for', async () => {
    const { result, ws } = await play(
      {
        plans: [
          plan([
            { id: 'util', description: 'Create src/util.js with a slugify helper' },
            { id: 'docs', description: 'Create docs/usage.md that explains slugify', dependsOn: ['util'] },
          ]),
        ],
        steps: { util: writeStep('src/util.js', util), docs: writeStep('docs/usage.md', usage) },
      },
      createBoth,
    );
    expect(result.stopReason, result.reason).toBe('completed');
    expect(await ws.read('docs/usage.md')).toBe(usage);
  });

  it('deletes both files asked for', async () => {
    const { result, ws } = await play(
      {
        plans: [plan([{ id: 'rm', description: 'Delete src/old.js and src/legacy.js' }])],
        steps: { rm: commandStep(['git', 'rm', '-q', 'src/old.js', 'src/legacy.js']) },
      },
      deleteBoth,
      oldFiles,
    );
    expect(result.stopReason, result.reason).toBe('completed');
    expect(await ws.exists('src/legacy.js')).toBe(false);
  });

  it('renames the file asked for', async () => {
    const { result, ws } = await play(
      {
        plans: [plan([{ id: 'mv', description: 'Rename src/helpers.js to src/format.js' }])],
        steps: { mv: commandStep(['git', 'mv', 'src/helpers.js', 'src/format.js']) },
      },
      renameOne,
      helpers,
    );
    expect(result.stopReason, result.reason).toBe('completed');
    expect(await ws.exists('src/helpers.js')).toBe(false);
  });

  it('adds both declarations asked for', async () => {
    const { result } = await play(
      {
        plans: [
          plan([
            { id: 'parse', description: 'Add a function called parseDate to src/date.js' },
            { id: 'cache', description: 'Add a class named Cache to src/date.js', dependsOn: ['parse'] },
          ]),
        ],
        steps: { parse: writeStep('src/date.js', withParseDate), cache: writeStep('src/date.js', withCache) },
      },
      declareBoth,
      { 'src/date.js': '' },
    );
    expect(result.stopReason, result.reason).toBe('completed');
  });
});
