import { createRedactor } from '@closedloop/model';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry } from './create-tool-registry';
import { defineTool } from './define-tool';
import type { ToolContext, ToolProgress } from './tool';
import { ToolError } from './tool-error';

const context = (signal: AbortSignal = new AbortController().signal): ToolContext => ({
  signal,
  callId: 'call_1',
});

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number().describe('first'), b: z.number() }),
  output: z.number(),
  execute: ({ a, b }) => a + b,
});

const echo = defineTool({
  name: 'echo',
  description: 'Echoes text.',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text,
});

describe('createToolRegistry', () => {
  it('looks tools up by name', () => {
    const registry = createToolRegistry([add, echo], { redactor: false });
    expect(registry.tools.map((t) => t.name)).toEqual(['add', 'echo']);
    expect(registry.has('add')).toBe(true);
    expect(registry.get('echo')).toBe(echo);
    expect(registry.has('nope')).toBe(false);
    expect(registry.get('nope')).toBeUndefined();
  });

  it('refuses duplicate names and a bad maxResultChars', () => {
    expect(() => createToolRegistry([add, add])).toThrow(/unique/);
    expect(() => createToolRegistry([add], { maxResultChars: 0 })).toThrow(/maxResultChars/);
  });

  it('gives specs with JSON Schema of the input and no $schema', () => {
    const [spec] = createToolRegistry([add]).specs();
    expect(spec).toEqual({
      name: 'add',
      description: 'Adds two numbers.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number', description: 'first' }, b: { type: 'number' } },
        required: ['a', 'b'],
      },
    });
  });

  it('describes the input side: fields with defaults are optional', () => {
    const tool = defineTool({
      name: 'list',
      description: 'x',
      input: z.object({ path: z.string().default('.'), deep: z.boolean() }),
      execute: () => 1,
    });
    const [spec] = createToolRegistry([tool]).specs();
    expect(spec?.inputSchema.required).toEqual(['deep']);
    expect(spec?.inputSchema).not.toHaveProperty('$schema');
  });

  it('returns specs callers cannot corrupt', () => {
    const registry = createToolRegistry([add]);
    const first = registry.specs();
    (first[0]?.inputSchema as Record<string, unknown>).type = 'string';
    expect(registry.specs()[0]?.inputSchema.type).toBe('object');
  });

  it('runs a tool: JSON text for values, strings as is', async () => {
    const registry = createToolRegistry([add, echo], { redactor: false });
    expect(await registry.execute('add', { a: 2, b: 3 }, context())).toEqual({
      status: 'success',
      output: 5,
      text: '5',
    });
    expect(await registry.execute('echo', { text: 'hi "there"' }, context())).toEqual({
      status: 'success',
      output: 'hi "there"',
      text: 'hi "there"',
    });
  });

  it('parses arguments given as a JSON string', async () => {
    const registry = createToolRegistry([add]);
    const outcome = await registry.execute('add', '{"a":1,"b":1}', context());
    expect(outcome).toMatchObject({ status: 'success', output: 2 });
  });

  it('answers unknown-tool with the available names', async () => {
    const outcome = await createToolRegistry([add, echo]).execute('ad', {}, context());
    expect(outcome).toMatchObject({ status: 'error', code: 'unknown-tool' });
    expect(outcome.text).toContain('add, echo');
    expect(outcome.text).toContain('"ad"');
  });

  it('answers invalid-arguments with zod issues the model can act on', async () => {
    const registry = createToolRegistry([add]);
    const outcome = await registry.execute('add', { a: 'one' }, context());
    expect(outcome.status).toBe('error');
    if (outcome.status !== 'error') return;
    expect(outcome.code).toBe('invalid-arguments');
    expect(outcome.text).toMatch(/expected number/i);
    expect(outcome.text).toContain('a');
    expect(outcome.text).toContain('b');
    expect(outcome.details?.issues).toHaveLength(2);
    const garbled = await registry.execute('add', '{"a":1,', context());
    expect(garbled).toMatchObject({ status: 'error', code: 'invalid-arguments' });
  });

  it('turns a throw into execution-failed with the message', async () => {
    const boom = defineTool({
      name: 'boom',
      description: 'fails',
      input: z.object({}),
      execute: () => {
        throw new Error('disk on fire');
      },
    });
    const outcome = await createToolRegistry([boom]).execute('boom', {}, context());
    expect(outcome).toMatchObject({ status: 'error', code: 'execution-failed' });
    expect(outcome.text).toContain('disk on fire');
  });

  it('keeps the code of a thrown ToolError', async () => {
    const denied = defineTool({
      name: 'denied',
      description: 'x',
      input: z.object({}),
      execute: async () => {
        throw new ToolError({
          code: 'command-denied',
          message: 'rm is not allowed',
          details: { program: 'rm' },
        });
      },
    });
    const outcome = await createToolRegistry([denied]).execute('denied', undefined, context());
    expect(outcome).toMatchObject({
      status: 'error',
      code: 'command-denied',
      message: 'rm is not allowed',
      details: { program: 'rm' },
    });
  });

  it('times out a slow tool and aborts its signal', async () => {
    let seen: AbortSignal | undefined;
    const slow = defineTool({
      name: 'slow',
      description: 'x',
      input: z.object({}),
      timeoutMs: 30,
      execute: (_input, { signal }) => {
        seen = signal;
        return new Promise(() => {});
      },
    });
    const started = Date.now();
    const outcome = await createToolRegistry([slow]).execute('slow', {}, context());
    expect(outcome).toMatchObject({ status: 'error', code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(seen?.aborted).toBe(true);
  });

  it('answers aborted within 100 ms even when the tool ignores its signal', async () => {
    const stubborn = defineTool({
      name: 'stubborn',
      description: 'x',
      input: z.object({}),
      execute: () => new Promise((resolve) => setTimeout(() => resolve('late'), 2_000)),
    });
    const controller = new AbortController();
    const pending = createToolRegistry([stubborn]).execute('stubborn', {}, context(controller.signal));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const abortedAt = Date.now();
    controller.abort();
    const outcome = await pending;
    expect(Date.now() - abortedAt).toBeLessThan(100);
    expect(outcome).toMatchObject({ status: 'error', code: 'aborted' });
  });

  it('does not start a tool when the signal is already aborted', async () => {
    let ran = false;
    const tool = defineTool({
      name: 't',
      description: 'x',
      input: z.object({}),
      execute: () => {
        ran = true;
      },
    });
    const controller = new AbortController();
    controller.abort();
    const outcome = await createToolRegistry([tool]).execute('t', {}, context(controller.signal));
    expect(outcome).toMatchObject({ status: 'error', code: 'aborted' });
    expect(ran).toBe(false);
  });

  it('answers output-invalid when the result breaks the output schema or is not serialisable', async () => {
    const liar = defineTool({
      name: 'liar',
      description: 'x',
      input: z.object({}),
      output: z.object({ ok: z.boolean() }),
      execute: () => ({ ok: 'yes' }) as unknown as { ok: boolean },
    });
    const cyclic = defineTool({
      name: 'cyclic',
      description: 'x',
      input: z.object({}),
      execute: () => {
        const value: Record<string, unknown> = {};
        value.self = value;
        return value;
      },
    });
    const registry = createToolRegistry([liar, cyclic]);
    expect(await registry.execute('liar', {}, context())).toMatchObject({
      status: 'error',
      code: 'output-invalid',
    });
    expect(await registry.execute('cyclic', {}, context())).toMatchObject({
      status: 'error',
      code: 'output-invalid',
    });
  });

  it('truncates long results with a marker and stays within maxResultChars', async () => {
    const registry = createToolRegistry([echo], { maxResultChars: 200 });
    const long = `HEAD${'x'.repeat(1000)}TAIL`;
    const outcome = await registry.execute('echo', { text: long }, context());
    expect(outcome.status).toBe('success');
    expect(outcome.text.length).toBeLessThanOrEqual(200);
    expect(outcome.text.startsWith('HEAD')).toBe(true);
    expect(outcome.text.endsWith('TAIL')).toBe(true);
    expect(outcome.text).toMatch(/truncated: \d+ of 1008 characters omitted/);
    if (outcome.status === 'success') expect(outcome.output).toBe(long);
  });

  it('redacts secrets in results, outputs and error messages', async () => {
    const secret = 'canary-secret-value-123456';
    const redactor = createRedactor({ env: { MY_API_TOKEN: secret } });
    const leak = defineTool({
      name: 'leak',
      description: 'x',
      input: z.object({ fail: z.boolean() }),
      execute: ({ fail }) => {
        if (fail) throw new Error(`connect failed with token ${secret}`);
        return { nested: [`value=${secret}`] };
      },
    });
    const registry = createToolRegistry([leak], { redactor });
    const ok = await registry.execute('leak', { fail: false }, context());
    expect(ok.text).not.toContain(secret);
    expect(ok.text).toContain('[REDACTED:MY_API_TOKEN]');
    expect(JSON.stringify(ok)).not.toContain(secret);
    const failed = await registry.execute('leak', { fail: true }, context());
    expect(failed.text).not.toContain(secret);
    expect(JSON.stringify(failed)).not.toContain(secret);
  });
});

describe('createToolRegistry: validate, executeValidated, redact', () => {
  it('validate answers unknown-tool and invalid-arguments like execute, or the parsed input', async () => {
    const registry = createToolRegistry([add, echo], { redactor: false });
    const unknown = registry.validate('nope', {});
    expect(unknown).toMatchObject({ status: 'error', code: 'unknown-tool' });
    expect(unknown).toEqual(await registry.execute('nope', {}, context()));
    const invalid = registry.validate('add', { a: 'one' });
    expect(invalid).toMatchObject({ status: 'error', code: 'invalid-arguments' });
    expect(invalid).toEqual(await registry.execute('add', { a: 'one' }, context()));
    expect(registry.validate('add', '{"a":1,"b":2}')).toEqual({
      status: 'valid',
      tool: add,
      input: { a: 1, b: 2 },
    });
  });

  it('executeValidated runs exactly the validated input, once', async () => {
    const seen: unknown[] = [];
    const spy = defineTool({
      name: 'spy',
      description: 'x',
      input: z.object({ n: z.number().default(7) }),
      execute: (input) => {
        seen.push(input);
        return 'ok';
      },
    });
    const registry = createToolRegistry([spy], { redactor: false });
    const valid = registry.validate('spy', {});
    if (valid.status !== 'valid') throw new Error('expected a valid call');
    expect(await registry.executeValidated(valid, context())).toMatchObject({
      status: 'success',
      text: 'ok',
    });
    expect(seen).toEqual([{ n: 7 }]);
  });

  it('executeValidated refuses a tool that is not registered', async () => {
    const registry = createToolRegistry([add], { redactor: false });
    const outcome = await registry.executeValidated(
      { status: 'valid', tool: echo, input: { text: 'x' } },
      context(),
    );
    expect(outcome).toMatchObject({ status: 'error', code: 'unknown-tool' });
  });

  it('applies the call timeout to a tool without its own, and the tool timeout wins', async () => {
    const hang = (timeoutMs?: number) =>
      defineTool({
        name: timeoutMs === undefined ? 'hang' : 'hang_own',
        description: 'x',
        input: z.object({}),
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        execute: () => new Promise(() => {}),
      });
    const registry = createToolRegistry([hang(), hang(40)], { redactor: false });
    const started = Date.now();
    const outcome = await registry.execute('hang', {}, { ...context(), timeoutMs: 30 });
    expect(outcome).toMatchObject({ status: 'error', code: 'timeout', details: { timeoutMs: 30 } });
    expect(outcome.text).toContain('within 30 ms');
    expect(Date.now() - started).toBeLessThan(1000);
    const own = await registry.execute('hang_own', {}, { ...context(), timeoutMs: 10_000 });
    expect(own).toMatchObject({ status: 'error', code: 'timeout', details: { timeoutMs: 40 } });
  });

  it('redact applies the registry redactor, and is the identity without one', () => {
    const secret = 'canary-secret-value-777777';
    const redactor = createRedactor({ env: { MY_API_TOKEN: secret } });
    expect(createToolRegistry([], { redactor }).redact(`x ${secret}`)).toBe('x [REDACTED:MY_API_TOKEN]');
    expect(createToolRegistry([], { redactor: false }).redact(`x ${secret}`)).toBe(`x ${secret}`);
  });

  it('redacts progress messages before they reach the caller', async () => {
    const secret = 'canary-progress-secret-42';
    const chatty = defineTool({
      name: 'chatty',
      description: 'x',
      input: z.object({}),
      execute: (_input, { onProgress }) => {
        onProgress?.({ message: `connecting with ${secret}`, fraction: 0.5 });
        return 'done';
      },
    });
    const registry = createToolRegistry([chatty], {
      redactor: createRedactor({ env: { SERVICE_TOKEN: secret } }),
    });
    const progress: ToolProgress[] = [];
    await registry.execute('chatty', {}, { ...context(), onProgress: (report) => progress.push(report) });
    expect(progress).toEqual([{ message: 'connecting with [REDACTED:SERVICE_TOKEN]', fraction: 0.5 }]);
  });
});
