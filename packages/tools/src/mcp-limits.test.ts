import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createToolRegistry, type ToolRegistry } from './create-tool-registry';
import { defineTool } from './define-tool';
import { inspectJsonSchema, mcpTools } from './mcp-tools';
import type { ToolContext } from './tool';

const fixture = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  '__fixtures__',
  'mcp-hostile-server.mjs',
);
const context = (): ToolContext => ({ signal: new AbortController().signal, callId: 'c' });

/** `{ children: [{ children: [ … ] }] }`, `levels` deep. */
function nestedTree(levels: number): unknown {
  let node: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) node = { children: [node] };
  return node;
}

describe('an MCP server with hostile schemas (stdio)', () => {
  let client: Client;
  let registry: ToolRegistry;
  beforeAll(async () => {
    client = new Client({ name: 'closedloop-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [fixture] }));
    registry = createToolRegistry(await mcpTools(client), { redactor: false });
  });
  afterAll(async () => {
    await client.close();
  });

  it('lists every tool and gives the model a bounded schema', () => {
    const specs = registry.specs();
    expect(specs.map((spec) => spec.name)).toEqual(['tree', 'deep', 'huge']);
    const huge = specs.find((spec) => spec.name === 'huge');
    expect(JSON.stringify(huge?.inputSchema).length).toBeLessThan(20_000);
  });

  it('never throws for a recursive $ref schema with deeply nested arguments', async () => {
    const shallow = await registry.execute('tree', { root: nestedTree(5) }, context());
    expect(shallow).toMatchObject({ status: 'success' });
    for (const levels of [100, 10_000, 100_000]) {
      const outcome = await registry.execute('tree', { root: nestedTree(levels) }, context());
      expect(outcome, `${levels} levels`).toMatchObject({ status: 'error', code: 'invalid-arguments' });
      expect(outcome.text).toContain('nested deeper');
    }
    const levels = 50_000;
    const text = `{"root":${'{"children":['.repeat(levels)}{}${']}'.repeat(levels)}}`;
    const asText = await registry.execute('tree', text, context());
    expect(asText).toMatchObject({ status: 'error', code: 'invalid-arguments' });
  });

  it('never throws for schemas nested hundreds of levels deep or thousands of keys wide', async () => {
    expect(await registry.execute('deep', { value: { next: {} } }, context())).toMatchObject({
      status: 'success',
    });
    expect(await registry.execute('deep', { value: 'not an object' }, context())).toMatchObject({
      status: 'error',
      code: 'invalid-arguments',
    });
    expect(await registry.execute('huge', { p1: 'x' }, context())).toMatchObject({ status: 'success' });
    const wide = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, i]));
    expect(await registry.execute('huge', wide, context())).toMatchObject({
      status: 'error',
      code: 'invalid-arguments',
    });
  });
});

describe('inspectJsonSchema', () => {
  it('finds $ref cycles, direct and indirect, and excessive depth', () => {
    expect(inspectJsonSchema({ $ref: '#', type: 'object' })).toEqual({ recursive: true, tooLarge: false });
    expect(
      inspectJsonSchema({
        $defs: { a: { $ref: '#/$defs/b' }, b: { items: { $ref: '#/$defs/a' } } },
        properties: { x: { $ref: '#/$defs/a' } },
      }),
    ).toEqual({ recursive: true, tooLarge: false });
    expect(
      inspectJsonSchema({
        $defs: { a: { type: 'string' } },
        properties: { x: { $ref: '#/$defs/a' }, y: { $ref: '#/$defs/a' } },
      }),
    ).toEqual({
      recursive: false,
      tooLarge: false,
    });
  });
});

describe('registry.execute never throws', () => {
  it('answers an outcome for a throwing schema, a deep result, a broken context and odd names', async () => {
    const registry = createToolRegistry(
      [
        defineTool({
          name: 'refine_throws',
          description: 'x',
          input: z.object({ a: z.string() }).refine(() => {
            throw new RangeError('Maximum call stack size exceeded');
          }),
          execute: () => 'never',
        }),
        defineTool({
          name: 'deep_result',
          description: 'x',
          input: z.object({}),
          execute: () => nestedTree(200_000),
        }),
        defineTool({ name: 'ok', description: 'x', input: z.object({}), execute: () => 'ok' }),
      ],
      { redactor: false },
    );
    const throwing = await registry.execute('refine_throws', { a: 'x' }, context());
    expect(throwing).toMatchObject({ status: 'error', code: 'invalid-arguments' });
    const deep = await registry.execute('deep_result', {}, context());
    expect(deep.status).toBe('error');
    const broken = await registry.execute('ok', {}, undefined as unknown as ToolContext);
    expect(broken).toMatchObject({ status: 'error', code: 'execution-failed' });
    const odd = await registry.execute({ toString: () => 'x' } as unknown as string, {}, context());
    expect(odd).toMatchObject({ status: 'error', code: 'unknown-tool' });
  });

  it('times out a tool that never returns, by default', async () => {
    const registry = createToolRegistry(
      [
        defineTool({
          name: 'hang',
          description: 'x',
          input: z.object({}),
          execute: () => new Promise(() => {}),
        }),
      ],
      { redactor: false, defaultTimeoutMs: 200 },
    );
    const started = Date.now();
    expect(await registry.execute('hang', {}, context())).toMatchObject({ status: 'error', code: 'timeout' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(() => createToolRegistry([], { defaultTimeoutMs: 0 })).toThrow(/defaultTimeoutMs/);
  });
});
