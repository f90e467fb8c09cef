import { ScriptedModel } from '@closedloop/model/testing';
import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from '../__fixtures__/temp-workspaces';
import { createProtocolContext } from '../protocol';
import { runProtocols } from '../run-protocols';
import { detectArchitectureChanges, isSecuritySensitive } from './architecture-changes';
import { humanReviewProtocol } from './human-review-protocol';
import { architectProtocol, buildJudgePrompt, llmJudgeProtocol } from './judge-protocols';

const repo = useTempWorkspaces({ git: true });

const verdict = (value: 'PASS' | 'FAIL' | 'NEEDS_REVIEW', risks: string[] = []) => ({
  text: JSON.stringify({
    functionality_score: 8,
    quality_score: 7,
    risks,
    verdict: value,
    reasoning: `judged ${value}`,
  }),
});

describe('LLM_JUDGE', { timeout: 30_000 }, () => {
  it('judges the diff against the requirement and criteria, never the narrative', async () => {
    const ws = await repo({ 'src/math.mjs': 'export const isPrime = (n) => false;\n' });
    await ws.write('src/math.mjs', 'export const isPrime = (n) => n > 1;\n');
    const model = new ScriptedModel({ turns: [verdict('FAIL', ['isPrime(4) is true'])] });
    const ctx = createProtocolContext({
      workspace: ws.root,
      model,
      request: 'implement isPrime',
      acceptanceCriteria: ['isPrime(4) === false'],
      ledger: [],
    });
    const [finding] = (await runProtocols([llmJudgeProtocol], ctx)).findings;
    expect(finding).toMatchObject({
      check: 'LLM_JUDGE',
      status: 'fail',
      priority: 'P1',
      layer: 5,
      details: { verdict: 'FAIL', functionality_score: 8, risks: ['isPrime(4) is true'] },
    });
    const prompt = model.requests[0]?.messages.map((message) => message.content).join('\n') ?? '';
    expect(prompt).toContain('implement isPrime');
    expect(prompt).toContain('isPrime(4) === false');
    expect(prompt).toContain('+export const isPrime = (n) => n > 1;');
    expect(prompt).toContain('"verdict": "PASS" | "FAIL" | "NEEDS_REVIEW"');
  });

  it('maps PASS to pass and NEEDS_REVIEW to a warning; model failure is an infrastructure error', async () => {
    const ws = await repo({ 'a.ts': 'a\n' });
    await ws.write('a.ts', 'b\n');
    const model = new ScriptedModel({
      turns: [verdict('PASS'), verdict('NEEDS_REVIEW'), { text: 'no json' }, { text: 'still no json' }],
    });
    const run = async () =>
      (await runProtocols([llmJudgeProtocol], createProtocolContext({ workspace: ws.root, model })))
        .findings[0];
    expect((await run())?.status).toBe('pass');
    expect(await run()).toMatchObject({ status: 'warn', details: { verdict: 'NEEDS_REVIEW' } });
    expect((await run())?.status).toBe('error');
  });

  it('skips without a model or without changes', async () => {
    const ws = await repo({ 'a.ts': 'a\n' });
    expect(
      (await runProtocols([llmJudgeProtocol], createProtocolContext({ workspace: ws.root }))).findings[0]
        ?.status,
    ).toBe('skip');
    const model = new ScriptedModel({ turns: [] });
    expect(
      (await runProtocols([llmJudgeProtocol], createProtocolContext({ workspace: ws.root, model })))
        .findings[0],
    ).toMatchObject({
      status: 'skip',
      message: expect.stringMatching(/no changes/),
    });
  });

  it('builds the judge prompt', () => {
    expect(buildJudgePrompt({ requirement: 'R', diff: 'D', acceptanceCriteria: [] })).toMatch(
      /## Requirement\nR[\s\S]*```diff\nD\n```/,
    );
  });
});

describe('ARCHITECT', { timeout: 30_000 }, () => {
  it('applies only to structural changes and reports new files, dependencies and removed exports', async () => {
    const ws = await repo({
      'package.json': JSON.stringify({ dependencies: { zod: '^4' } }),
      'src/api.ts': 'export function get() {}\nexport function remove() {}\n',
    });
    const none = await runProtocols([architectProtocol], createProtocolContext({ workspace: ws.root }));
    expect(none.findings[0]?.status).toBe('skip');

    await ws.write('package.json', JSON.stringify({ dependencies: { zod: '^4', lodash: '^4' } }));
    await ws.write('src/api.ts', 'export function get() {}\n');
    await ws.write('src/cache.ts', 'export const cache = new Map();\n');
    const ctx = createProtocolContext({ workspace: ws.root });
    expect(await detectArchitectureChanges(ctx)).toEqual({
      newFiles: ['src/cache.ts'],
      dependencyChanges: [{ file: 'package.json', added: ['lodash'], removed: [] }],
      removedExports: [{ file: 'src/api.ts', name: 'remove' }],
      addedExports: [],
      securitySensitive: [],
    });
    const withoutModel = await runProtocols([architectProtocol], ctx);
    expect(withoutModel.findings.map((f) => f.status)).toEqual(['warn', 'skip']);

    const model = new ScriptedModel({ turns: [verdict('NEEDS_REVIEW', ['lodash is heavy'])] });
    const reviewed = await runProtocols(
      [architectProtocol],
      createProtocolContext({ workspace: ws.root, model }),
    );
    expect(reviewed.findings.map((f) => f.status)).toEqual(['warn', 'warn']);
    expect(model.requests[0]?.messages.at(-1)?.content).toMatch(/added lodash/);
  });
});

describe('HUMAN_REVIEW', { timeout: 30_000 }, () => {
  it('is triggered by security-sensitive files and maps approve/modify/reject', async () => {
    const ws = await repo({ 'src/auth/login.ts': 'export const a = 1;\n' });
    await ws.write('src/auth/login.ts', 'export const a = 2;\n');
    const requests: unknown[] = [];
    const decide = (decision: 'approve' | 'modify' | 'reject') =>
      createProtocolContext({
        workspace: ws.root,
        request: 'tweak login',
        onHumanReview: async (request) => {
          requests.push(request);
          return { decision, comment: 'see notes' };
        },
      });
    expect((await runProtocols([humanReviewProtocol], decide('approve'))).findings[0]).toMatchObject({
      status: 'pass',
      layer: 6,
    });
    expect((await runProtocols([humanReviewProtocol], decide('modify'))).findings[0]).toMatchObject({
      status: 'fail',
      priority: 'P1',
    });
    expect((await runProtocols([humanReviewProtocol], decide('reject'))).findings[0]).toMatchObject({
      status: 'fail',
      priority: 'P0',
    });
    expect(requests[0]).toMatchObject({
      request: 'tweak login',
      reasons: ['security-sensitive files changed: src/auth/login.ts'],
      changedFiles: ['src/auth/login.ts'],
      diff: expect.stringContaining('+export const a = 2;'),
    });
  });

  it('is triggered by a judge NEEDS_REVIEW, warns without a reviewer, and skips when nothing calls for it', async () => {
    const ws = await repo({ 'a.ts': 'a\n' });
    await ws.write('a.ts', 'b\n');
    const model = new ScriptedModel({ turns: [verdict('NEEDS_REVIEW', ['unclear'])] });
    const { findings } = await runProtocols(
      [llmJudgeProtocol, humanReviewProtocol],
      createProtocolContext({ workspace: ws.root, model }),
    );
    expect(findings[1]).toMatchObject({
      check: 'HUMAN_REVIEW',
      status: 'warn',
      priority: 'P2',
      message: expect.stringMatching(/LLM_JUDGE verdict NEEDS_REVIEW/),
    });
    const quiet = await runProtocols([humanReviewProtocol], createProtocolContext({ workspace: ws.root }));
    expect(quiet.findings[0]?.status).toBe('skip');
  });

  it('classifies security-sensitive paths', () => {
    expect(
      [
        'src/auth.ts',
        '.env',
        'config/.env.local',
        'keys/server.pem',
        '.github/workflows/ci.yml',
        'lib/jwt-utils.js',
      ].every(isSecuritySensitive),
    ).toBe(true);
    expect(['src/math.ts', 'README.md', 'docs/author.md'].some(isSecuritySensitive)).toBe(false);
  });
});
