import { ModelError } from '@closedloop/model';
import { ScriptedModel } from '@closedloop/model/testing';
import type { AnyTool } from '@closedloop/tools';
import { createTempWorkspace } from '@closedloop/tools/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  classifyDestructive,
  createToolCallGuard,
  parseYesNo,
  toolCallGuardSystemPrompt,
} from './tool-call-guard';

const tool = (name: string, destructive = false): AnyTool => ({
  name,
  description: name,
  input: z.object({}).passthrough(),
  destructive,
  idempotent: false,
  timeoutMs: undefined,
  execute: async () => 'ok',
});

describe('classifyDestructive', () => {
  it('classifies by flag, configuration, name, shell-likeness and arguments', () => {
    expect(classifyDestructive(tool('anything', true), {}).destructive).toBe(true);
    expect(classifyDestructive(tool('clear_dataset'), {}, { destructive: ['clear_dataset'] }).reason).toMatch(
      /configured/,
    );
    for (const name of [
      'delete_file',
      'reset_preprocessing',
      'rollback_to_stage',
      'git_push',
      'run_command',
      'bash',
      'execute_shell',
    ]) {
      expect(classifyDestructive(tool(name), {}).destructive).toBe(true);
    }
    expect(classifyDestructive(tool('git'), { args: ['push', 'origin', 'main'] }).destructive).toBe(true);
    expect(classifyDestructive(tool('task'), { script: 'rm -rf build' }).destructive).toBe(true);
    for (const name of ['read_file', 'list_dir', 'git_status', 'git_diff', 'edit_file', 'search']) {
      expect(classifyDestructive(tool(name), { path: 'a.ts' }).destructive).toBe(false);
    }
  });

  it('treats write_file as destructive only when it overwrites (with a workspace)', async () => {
    const ws = await createTempWorkspace({ files: { 'a.ts': 'a' } });
    try {
      expect(
        classifyDestructive(tool('write_file'), { path: 'a.ts' }, { workspace: ws.root }).reason,
      ).toMatch(/overwrites/);
      expect(
        classifyDestructive(tool('write_file'), { path: 'new.ts' }, { workspace: ws.root }).destructive,
      ).toBe(false);
      expect(classifyDestructive(tool('write_file'), { path: 'new.ts' }).destructive).toBe(true);
    } finally {
      await ws.cleanup();
    }
  });
});

describe('createToolCallGuard', () => {
  const request = 'Fix the typo in README.md';

  it('self-verifies with the YES/NO question: YES allows, NO denies with the reason', async () => {
    const model = new ScriptedModel({
      turns: [{ text: 'YES, it matches.' }, { text: 'NO - the user did not ask to delete anything.' }],
    });
    const guard = createToolCallGuard({ model });
    expect(await guard.check({ tool: tool('read_file'), args: { path: 'README.md' }, request })).toEqual({
      action: 'allow',
    });
    const denied = await guard.check({ tool: tool('delete_file'), args: { path: 'src' }, request });
    expect(denied).toEqual({
      action: 'deny',
      reason: 'Self-verification rejected delete_file: the user did not ask to delete anything.',
    });
    const prompt = model.requests[1]?.messages.at(-1)?.content ?? '';
    expect(prompt).toContain(`The user asked: ${request}`);
    expect(prompt).toContain('You are about to run: delete_file({"path":"src"})');
    expect(prompt).toContain('Warning: this call is destructive');
    expect(prompt).toMatch(/Answer YES or NO/);
  });

  it('skips verification for confident calls of logprob models, but never for destructive ones', async () => {
    const model = new ScriptedModel({
      capabilities: { logprobs: true },
      turns: [{ text: 'YES' }, { text: 'NO' }],
    });
    const guard = createToolCallGuard({ model });
    expect(await guard.check({ tool: tool('read_file'), args: {}, request, confidence: 0.95 })).toEqual({
      action: 'allow',
    });
    expect(model.requests).toHaveLength(0);
    expect(await guard.check({ tool: tool('read_file'), args: {}, request, confidence: 0.5 })).toEqual({
      action: 'allow',
    });
    expect(
      (await guard.check({ tool: tool('delete_file'), args: {}, request, confidence: 0.99 })).action,
    ).toBe('deny');
    expect(model.requests).toHaveLength(2);
  });

  it('verifies every call without a confidence signal, and in always mode; off allows all', async () => {
    const model = new ScriptedModel({ turns: [{ text: 'YES' }, { text: 'YES' }] });
    await createToolCallGuard({ model }).check({
      tool: tool('read_file'),
      args: {},
      request,
      confidence: 0.99,
    });
    await createToolCallGuard({ model, capabilities: { logprobs: true }, mode: 'always' }).check({
      tool: tool('read_file'),
      args: {},
      request,
      confidence: 0.99,
    });
    expect(model.requests).toHaveLength(2);
    expect(
      await createToolCallGuard({ model, mode: 'off' }).check({
        tool: tool('delete_file'),
        args: {},
        request,
      }),
    ).toEqual({ action: 'allow' });
  });

  it('in destructive mode verifies destructive calls only (the default cortex guard)', async () => {
    const model = new ScriptedModel({ turns: [{ text: 'NO, not asked.' }] });
    const guard = createToolCallGuard({ model, mode: 'destructive' });
    expect(await guard.check({ tool: tool('read_file'), args: {}, request })).toEqual({ action: 'allow' });
    expect(await guard.check({ tool: tool('write_file'), args: { path: 'new.txt' }, request })).toMatchObject(
      {
        action: 'deny',
      },
    );
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.messages[0]?.content).toBe(toolCallGuardSystemPrompt);
  });

  it('fails closed on an unparseable answer or a model error: ask-human by default, deny on request', async () => {
    const model = new ScriptedModel({
      turns: [
        { text: 'Maybe, it depends.' },
        { text: 'It is YES' },
        { error: new ModelError({ code: 'auth', message: 'bad key' }) },
      ],
    });
    const guard = createToolCallGuard({ model });
    expect(await guard.check({ tool: tool('delete_file'), args: {}, request })).toEqual({
      action: 'ask-human',
      reason: expect.stringMatching(/no YES\/NO answer/),
    });
    const strict = createToolCallGuard({ model, onUnparseable: 'deny' });
    expect((await strict.check({ tool: tool('delete_file'), args: {}, request })).action).toBe('deny');
    expect(await guard.check({ tool: tool('delete_file'), args: {}, request })).toEqual({
      action: 'ask-human',
      reason: expect.stringMatching(/failed: bad key/),
    });
  });

  it('resolves ask-human through onAskHuman', async () => {
    const model = new ScriptedModel({ turns: [{ text: '???' }, { text: '???' }] });
    const answers: Array<'approve' | 'reject'> = ['approve', 'reject'];
    const guard = createToolCallGuard({ model, onAskHuman: async () => answers.shift() ?? 'reject' });
    expect(await guard.check({ tool: tool('delete_file'), args: {}, request })).toEqual({ action: 'allow' });
    expect((await guard.check({ tool: tool('delete_file'), args: {}, request })).action).toBe('deny');
  });

  it('validates options and honours abort', async () => {
    const model = new ScriptedModel({ latencyMs: 1000, turns: [{ text: 'YES' }] });
    expect(() => createToolCallGuard({ model, mode: 'sometimes' as never })).toThrow(
      expect.objectContaining({ code: 'invalid-options' }),
    );
    expect(() => createToolCallGuard({ model, confidenceThreshold: 2 })).toThrow(
      expect.objectContaining({ code: 'invalid-options' }),
    );
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    await expect(
      createToolCallGuard({ model }).check(
        { tool: tool('read_file'), args: {}, request },
        { signal: controller.signal },
      ),
    ).rejects.toMatchObject({
      code: 'aborted',
    });
  });

  it('parses YES/NO strictly', () => {
    expect(parseYesNo('**YES** because')).toBe('YES');
    expect(parseYesNo('no.')).toBe('NO');
    expect(parseYesNo('Yesterday')).toBeUndefined();
    expect(parseYesNo('I think YES')).toBeUndefined();
    expect(parseYesNo('是')).toBeUndefined();
  });
});
