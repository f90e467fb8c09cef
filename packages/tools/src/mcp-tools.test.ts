import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
// @ts-expect-error: plain JavaScript fixture without types
import { createTestServer } from './__fixtures__/mcp-server.mjs';
import { createToolRegistry, type ToolRegistry } from './create-tool-registry';
import { mcpInputSchema, mcpResultText, mcpTools } from './mcp';
import type { ToolContext, ToolProgress } from './tool';

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), '__fixtures__', 'mcp-server.mjs');
const context = (signal: AbortSignal = new AbortController().signal): ToolContext => ({
  signal,
  callId: 'c',
});

/** The same behaviour suite for every transport. */
function transportSuite(name: string, connect: () => Promise<Client>) {
  describe(`mcpTools over ${name}`, () => {
    let client: Client;
    let registry: ToolRegistry;

    beforeAll(async () => {
      client = await connect();
      registry = createToolRegistry(await mcpTools(client, { prefix: 'srv_' }), { redactor: false });
    });
    afterAll(async () => {
      await client.close();
    });

    it('lists the server tools with the prefix, a valid name and the server schema', () => {
      expect(registry.tools.map((tool) => tool.name).sort()).toEqual(
        [
          'srv_add',
          'srv_echo_lines',
          'srv_fail',
          'srv_mixed',
          'srv_slow',
          'srv_stats',
          'srv_wipe_all',
        ].sort(),
      );
      const add = registry.specs().find((spec) => spec.name === 'srv_add');
      expect(add?.description).toBe('Adds two numbers.');
      expect(add?.inputSchema).toMatchObject({
        type: 'object',
        properties: { a: { type: 'number', description: 'first' }, b: { type: 'number' } },
        required: ['a', 'b'],
      });
      expect(add?.inputSchema).not.toHaveProperty('$schema');
    });

    it('maps MCP annotations to destructive and idempotent', () => {
      expect(registry.get('srv_add')).toMatchObject({ destructive: false, idempotent: true });
      expect(registry.get('srv_stats')).toMatchObject({ destructive: false, idempotent: true });
      expect(registry.get('srv_fail')).toMatchObject({ destructive: false, idempotent: false });
      expect(registry.get('srv_wipe_all')).toMatchObject({ destructive: true, idempotent: false });
    });

    it('calls a tool and returns its text', async () => {
      expect(await registry.execute('srv_add', { a: 2, b: 40 }, context())).toMatchObject({
        status: 'success',
        output: '42',
        text: '42',
      });
    });

    it('joins text blocks and describes non-text blocks', async () => {
      expect((await registry.execute('srv_echo_lines', { lines: ['one', 'two'] }, context())).text).toBe(
        'one\ntwo',
      );
      expect((await registry.execute('srv_mixed', {}, context())).text).toBe(
        'caption\n[image: image/png, 8 bytes]',
      );
    });

    it('returns structured content when there is no text', async () => {
      expect(await registry.execute('srv_stats', {}, context())).toMatchObject({
        status: 'success',
        output: { count: 2, names: ['a', 'b'] },
        text: '{"count":2,"names":["a","b"]}',
      });
    });

    it('turns isError into execution-failed with the server message', async () => {
      const outcome = await registry.execute('srv_fail', { reason: 'disk full' }, context());
      expect(outcome).toMatchObject({ status: 'error', code: 'execution-failed' });
      expect(outcome.text).toContain('it broke: disk full');
    });

    it('validates arguments locally before calling the server', async () => {
      const outcome = await registry.execute('srv_add', { a: 'two' }, context());
      expect(outcome).toMatchObject({ status: 'error', code: 'invalid-arguments' });
      expect(outcome.text).toMatch(/expected number/i);
    });

    it('forwards progress', async () => {
      const progress: ToolProgress[] = [];
      const outcome = await registry.execute(
        'srv_slow',
        { ms: 80 },
        {
          ...context(),
          onProgress: (report) => progress.push(report),
        },
      );
      expect(outcome).toMatchObject({ status: 'success', text: 'done' });
      // The last notification may race the response; the ones before it arrive in order.
      expect(progress.length).toBeGreaterThanOrEqual(3);
      expect(progress.slice(0, 3)).toEqual([
        { message: 'step 1', fraction: 0.25 },
        { message: 'step 2', fraction: 0.5 },
        { message: 'step 3', fraction: 0.75 },
      ]);
    });

    it('aborts a running call promptly, and the connection stays usable', async () => {
      const controller = new AbortController();
      const pending = registry.execute('srv_slow', { ms: 5_000 }, context(controller.signal));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const abortedAt = Date.now();
      controller.abort();
      expect(await pending).toMatchObject({ status: 'error', code: 'aborted' });
      expect(Date.now() - abortedAt).toBeLessThan(100);
      expect(await registry.execute('srv_add', { a: 1, b: 1 }, context())).toMatchObject({ text: '2' });
    });

    it('times out with the tool timeout', async () => {
      const timed = createToolRegistry(
        await mcpTools(client, { timeoutMs: 60, filter: (tool) => tool.name === 'slow' }),
      );
      expect(timed.tools.map((tool) => tool.name)).toEqual(['slow']);
      expect(await timed.execute('slow', { ms: 2_000 }, context())).toMatchObject({
        status: 'error',
        code: 'timeout',
      });
    });

    it('lets the caller decide destructiveness', async () => {
      const all = await mcpTools(client, { destructive: true });
      expect(all.every((tool) => tool.destructive)).toBe(true);
      const byName = await mcpTools(client, { destructive: (tool) => tool.name.startsWith('wipe') });
      expect(byName.filter((tool) => tool.destructive).map((tool) => tool.name)).toEqual(['wipe_all']);
    });
  });
}

transportSuite('stdio', async () => {
  const client = new Client({ name: 'closedloop-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [fixture, '--stdio'], stderr: 'pipe' }),
  );
  return client;
});

let httpServer: Server | undefined;
transportSuite('streamable HTTP', async () => {
  httpServer = createServer((request, response) => {
    // Stateless: one server and transport per request.
    const server = createTestServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(request, response))
      .catch((error: unknown) => {
        response.statusCode = 500;
        response.end(String(error));
      });
  });
  await new Promise<void>((resolve) => httpServer?.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  const client = new Client({ name: 'closedloop-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
  return client;
});
afterAll(async () => {
  await new Promise<void>((resolve) => (httpServer ? httpServer.close(() => resolve()) : resolve()));
});

describe('mcpInputSchema', () => {
  it('converts a JSON Schema with z.fromJSONSchema', () => {
    const schema = mcpInputSchema({
      type: 'object',
      properties: { q: { type: 'integer', minimum: 1 }, mode: { enum: ['a', 'b'] } },
      required: ['q'],
      $schema: 'http://json-schema.org/draft-07/schema#',
    });
    expect(schema.safeParse({ q: 2, mode: 'a' }).success).toBe(true);
    expect(schema.safeParse({ q: 0 }).success).toBe(false);
    expect(schema.safeParse({ q: 1, mode: 'c' }).success).toBe(false);
    expect(schema.safeParse({}).success).toBe(false);
  });

  it('falls back to required keys and top-level types when conversion fails', () => {
    const schema = mcpInputSchema({
      type: 'object',
      properties: { ref: { $ref: '#/definitions/Missing' }, n: { type: 'number' }, tags: { type: 'array' } },
      required: ['ref', 'n', 'absent'],
    });
    expect(schema.safeParse({ ref: 'anything', n: 1, absent: true, extra: 'kept' })).toMatchObject({
      success: true,
      data: { extra: 'kept' },
    });
    expect(schema.safeParse({ ref: 1, n: 'x', absent: 1 }).success).toBe(false);
    expect(schema.safeParse({ n: 1, absent: 1 }).success).toBe(false);
    expect(schema.safeParse({ ref: 1, n: 1 }).success).toBe(false);
    expect(schema.safeParse({ ref: 1, n: 1, absent: 1, tags: 'no' }).success).toBe(false);
  });
});

describe('mcpTools edge cases', () => {
  it('pages through listTools, rejects clashes and bad prefixes', async () => {
    const pages = [
      { tools: [{ name: 'a.b', inputSchema: { type: 'object' as const } }], nextCursor: 'p2' },
      {
        tools: [{ name: 'c', description: '  ', title: 'Title C', inputSchema: { type: 'object' as const } }],
      },
    ];
    const cursors: (string | undefined)[] = [];
    const client = {
      listTools: async (params?: { cursor?: string }) => {
        cursors.push(params?.cursor);
        return params?.cursor === 'p2' ? (pages[1] ?? { tools: [] }) : (pages[0] ?? { tools: [] });
      },
      callTool: async () => ({ content: [] }),
    };
    const tools = await mcpTools(client);
    expect(cursors).toEqual([undefined, 'p2']);
    expect(tools.map((tool) => [tool.name, tool.description])).toEqual([
      ['a_b', 'MCP tool a.b'],
      ['c', 'Title C'],
    ]);
    const clashing = {
      ...client,
      listTools: async () => ({
        tools: [
          { name: 'x.y', inputSchema: { type: 'object' as const } },
          { name: 'x_y', inputSchema: { type: 'object' as const } },
        ],
      }),
    };
    await expect(mcpTools(clashing)).rejects.toMatchObject({ code: 'invalid-definition' });
    await expect(mcpTools(client, { prefix: 'bad prefix' })).rejects.toMatchObject({
      code: 'invalid-definition',
    });
  });

  it('renders resources and unknown blocks as text', () => {
    expect(
      mcpResultText({
        content: [
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline text' } },
          {
            type: 'resource',
            resource: { uri: 'file:///b.bin', mimeType: 'application/octet-stream', blob: 'AA==' },
          },
          { type: 'resource_link', uri: 'file:///c', name: 'c' },
          { type: 'hologram' },
        ],
      }),
    ).toBe(
      'inline text\n[resource: file:///b.bin (application/octet-stream)]\n[resource link: file:///c (c)]\n[hologram content]',
    );
    expect(z.string().safeParse(mcpResultText({})).success).toBe(true);
  });
});
