import { Plan } from '@closedloop/plan';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { askedChange, askedNames, checkRequestCoverage } from './check-request-coverage';
import { createWorkspaceFacts } from './workspace-facts';

const workspaces: TempWorkspace[] = [];
afterEach(async () => {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
});

describe('askedChange', () => {
  it('finds the change verb of a request that asks for one', () => {
    expect(askedChange('Add `sum` to src/math.js')).toBe('Add');
    expect(askedChange('Please fix the failing parser test')).toBe('fix');
    expect(askedChange('Read the config, then update the port to 8080')).toBe('update');
  });

  it('is undefined for a request that only looks, and for quoted or negated verbs', () => {
    expect(askedChange('Read src/math.js and tell me what it exports')).toBeUndefined();
    expect(askedChange('Explain what `set` and "add" do in src/map.js')).toBeUndefined();
    expect(askedChange('Review src/api.js without changing it and do not modify anything')).toBeUndefined();
  });

  it('is undefined where a change verb is a noun or the subject of a question, not an order', () => {
    expect(askedChange('Give me an update on the failing tests')).toBeUndefined();
    expect(askedChange('Explain how to add a route to src/app.js')).toBeUndefined();
    expect(askedChange('Check whether the install works and report what you find')).toBeUndefined();
    expect(askedChange('Can you add `sum` to src/math.js?')).toBe('add');
    expect(askedChange('I need you to fix the parser')).toBe('fix');
    expect(askedChange('Read src/a.js and then refactor it')).toBe('refactor');
  });
});

describe('askedNames', () => {
  it('lists the backticked names after an add-like verb', () => {
    expect(askedNames('Add the functions `sub`, `mul` and `div()` to src/math.js')).toEqual([
      'sub',
      'mul',
      'div',
    ]);
    expect(askedNames('Implement `parse`; then write tests for it')).toEqual(['parse']);
  });

  it('leaves out names asked to go away, renamed or only mentioned', () => {
    expect(askedNames('Rename `foo` to `bar` in src/a.js')).toEqual([]);
    expect(askedNames('Add `next` and remove `old` from src/a.js')).toEqual(['next']);
    expect(askedNames('Add a guard to `parse` instead of `legacyParse`')).toEqual(['parse']);
    expect(askedNames('Explain how `parse` works')).toEqual([]);
    expect(askedNames('Create `src/util.js` with a helper')).toEqual([]);
  });

  it('lists declarations named without backticks ("a function called parseDate")', () => {
    expect(askedNames('Add a function called parseDate and a class named Cache to src/date.ts')).toEqual([
      'parseDate',
      'Cache',
    ]);
    expect(askedNames('Implement the helper function formatDate and an interface Options')).toEqual([
      'formatDate',
      'Options',
    ]);
    expect(askedNames('Create a class called `Store` in src/store.ts')).toEqual(['Store']);
  });

  it('takes no ordinary words for declarations', () => {
    expect(askedNames('Add a function to parse dates and a class that caches results')).toEqual([]);
    expect(askedNames('Write a helper named after the route, and a function for sorting')).toEqual([]);
    expect(askedNames('Add a function which returns the sum')).toEqual([]);
    expect(askedNames('Add error handling to the parse function in src/a.js')).toEqual([]);
    expect(askedNames('Add a type check and a class of tests for the parser')).toEqual([]);
    expect(askedNames('Remove the function called legacyParse')).toEqual([]);
    expect(askedNames('Explain the class named Cache')).toEqual([]);
  });
});

async function setup(files: Record<string, string>) {
  const ws = await createTempWorkspace({ files });
  workspaces.push(ws);
  return { ws, facts: createWorkspaceFacts(ws.root) };
}

/** A one-step plan, completed with the given ledger calls. */
function planWith(calls: Array<{ name: string; args: Record<string, unknown> }>): Plan {
  const plan = Plan.create({ steps: [{ id: 'a', description: 'do a' }] });
  plan.markStep('a', { status: 'in_progress' });
  for (const [index, call] of calls.entries()) {
    plan.recordToolCall('a', { callId: `c${index}`, tool: call.name, args: call.args });
    plan.recordToolResult('a', { callId: `c${index}`, tool: call.name, status: 'success', result: 'ok' });
  }
  plan.markStep('a', { status: 'completed', notes: '[SUCCESS]: done' });
  return plan;
}

describe('checkRequestCoverage', () => {
  it('fails a request for a change when the completed steps only read', async () => {
    const { facts } = await setup({ 'src/math.js': 'export const add = (a, b) => a + b;\n' });
    const plan = planWith([{ name: 'read_file', args: { path: 'src/math.js' } }]);
    const findings = checkRequestCoverage(plan, 'Add `sub` to src/math.js', facts);
    expect(findings).toEqual([expect.objectContaining({ check: 'request', priority: 'P1', status: 'fail' })]);
    expect(findings[0]!.message).toMatch(/no completed step changed anything/);
  });

  it('fails a name asked to be added that no written file contains, passes the ones that are there', async () => {
    const { facts } = await setup({ 'src/math.js': 'export const sub = (a, b) => a - b;\n' });
    const plan = planWith([{ name: 'write_file', args: { path: 'src/math.js', content: '' } }]);
    const findings = checkRequestCoverage(plan, 'Add `sub` and `div` to src/math.js', facts);
    expect(findings.map((finding) => finding.status)).toEqual(['pass', 'fail']);
    expect(findings[1]!.message).toMatch(/`div`/);
  });

  it('only flags a missing name as unverified when a command may have written it', async () => {
    const { facts } = await setup({ 'src/math.js': 'export const sub = (a, b) => a - b;\n' });
    const plan = planWith([{ name: 'run_command', args: { argv: ['node', 'gen.js'] } }]);
    const findings = checkRequestCoverage(plan, 'Add `div` to src/math.js', facts);
    expect(findings).toEqual([
      expect.objectContaining({ status: 'warn', message: expect.stringMatching(/^Unverified/) }),
    ]);
  });

  it('fails a file the request asks to create that is not there at the end', async () => {
    const { facts } = await setup({ 'src/util.ts': 'export const x = 1;\n' });
    const plan = planWith([{ name: 'write_file', args: { path: 'src/util.ts', content: '' } }]);
    const findings = checkRequestCoverage(plan, 'Create src/util.ts and docs/usage.md', facts);
    expect(findings.filter((finding) => finding.status === 'fail')).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/create docs\/usage\.md.*not in the workspace/),
      }),
    ]);
  });

  it('passes files asked to be created that are there (honest twin)', async () => {
    const { facts } = await setup({ 'src/util.ts': 'export const x = 1;\n', 'docs/usage.md': '# usage\n' });
    const plan = planWith([{ name: 'write_file', args: { path: 'src/util.ts', content: '' } }]);
    const findings = checkRequestCoverage(plan, 'Create src/util.ts and docs/usage.md', facts);
    expect(findings.map((finding) => finding.status)).toEqual(['pass', 'pass']);
  });

  it('fails a file asked to be deleted that is still there, passes one that is gone', async () => {
    const { facts } = await setup({ 'legacy.js': 'x\n' });
    const plan = planWith([{ name: 'run_command', args: { argv: ['rm', 'old.js'] } }]);
    const findings = checkRequestCoverage(plan, 'Delete old.js and legacy.js', facts);
    expect(findings.map((finding) => [finding.status, finding.message])).toEqual([
      ['pass', expect.stringMatching(/old\.js/)],
      ['fail', expect.stringMatching(/delete legacy\.js.*still in the workspace/)],
    ]);
  });

  it('only flags a file asked to be deleted as unverified when a run asked for may make it again', async () => {
    const { facts } = await setup({ 'dist/index.js': 'x\n' });
    const plan = planWith([{ name: 'run_command', args: { argv: ['npm', 'run', 'build'] } }]);
    expect(checkRequestCoverage(plan, 'Delete dist/ and run `npm run build`', facts)).toEqual([
      expect.objectContaining({
        status: 'warn',
        message: expect.stringMatching(/^Unverified: .*delete dist/),
      }),
    ]);
  });

  it('fails a rename that left the old file or made no new one, passes a done rename', async () => {
    const request = 'Rename src/a.js to src/b.js';
    const copied = await setup({ 'src/a.js': 'a\n', 'src/b.js': 'a\n' });
    const plan = planWith([{ name: 'write_file', args: { path: 'src/b.js', content: 'a\n' } }]);
    expect(checkRequestCoverage(plan, request, copied.facts)).toEqual([
      expect.objectContaining({
        status: 'fail',
        message: expect.stringMatching(/src\/a\.js is still there/),
      }),
    ]);
    const moved = await setup({ 'src/b.js': 'a\n' });
    expect(checkRequestCoverage(plan, request, moved.facts)).toEqual([
      expect.objectContaining({ status: 'pass' }),
    ]);
    const shim = 'Rename src/a.js to src/b.js and create src/a.js again as a shim that re-exports it';
    expect(checkRequestCoverage(plan, shim, copied.facts).map((finding) => finding.status)).toEqual(['pass']);
  });

  it('fails a declaration named without backticks that no written file has', async () => {
    const { facts } = await setup({ 'src/date.ts': 'export function parseDate(s: string) {}\n' });
    const plan = planWith([{ name: 'write_file', args: { path: 'src/date.ts', content: '' } }]);
    const request = 'Add a function called parseDate and a class named Cache to src/date.ts';
    expect(checkRequestCoverage(plan, request, facts).map((finding) => finding.status)).toEqual([
      'pass',
      'fail',
    ]);
  });

  it('says nothing about a request that asks for no change', async () => {
    const { facts } = await setup({ 'a.txt': 'a\n' });
    const plan = planWith([{ name: 'read_file', args: { path: 'a.txt' } }]);
    expect(checkRequestCoverage(plan, 'Read a.txt and summarise it', facts)).toEqual([]);
  });
});
