// A small MCP server used by mcp-tools.test.ts, over stdio (run directly) or imported for HTTP.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

/** Builds the test server with its tools. */
export function createTestServer() {
  const server = new McpServer({ name: 'closedloop-test-server', version: '1.0.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: { a: z.number().describe('first'), b: z.number() },
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'echo_lines',
    { description: 'Returns each line as its own text block.', inputSchema: { lines: z.array(z.string()) } },
    async ({ lines }) => ({ content: lines.map((text) => ({ type: 'text', text })) }),
  );
  server.registerTool(
    'fail',
    {
      description: 'Always reports an error.',
      inputSchema: { reason: z.string() },
      annotations: { destructiveHint: false },
    },
    async ({ reason }) => ({ isError: true, content: [{ type: 'text', text: `it broke: ${reason}` }] }),
  );
  server.registerTool(
    'stats',
    {
      description: 'Structured result only.',
      inputSchema: {},
      outputSchema: { count: z.number(), names: z.array(z.string()) },
      annotations: { idempotentHint: true, destructiveHint: false },
    },
    async () => ({ content: [], structuredContent: { count: 2, names: ['a', 'b'] } }),
  );
  server.registerTool('mixed', { description: 'Text and an image.', inputSchema: {} }, async () => ({
    content: [
      { type: 'text', text: 'caption' },
      { type: 'image', mimeType: 'image/png', data: Buffer.from('12345678').toString('base64') },
    ],
  }));
  server.registerTool(
    'slow',
    { description: 'Waits, reporting progress; stops when cancelled.', inputSchema: { ms: z.number() } },
    async ({ ms }, extra) => {
      const token = extra._meta?.progressToken;
      const steps = 4;
      for (let i = 1; i <= steps; i++) {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, ms / steps);
          extra.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(new Error('cancelled'));
          });
        });
        if (token !== undefined) {
          await extra.sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
          });
        }
      }
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  server.registerTool(
    'wipe.all',
    { description: 'Pretends to delete everything.', inputSchema: { confirm: z.boolean() } },
    async () => ({ content: [{ type: 'text', text: 'wiped' }] }),
  );
  return server;
}

if (process.argv[2] === '--stdio') {
  const server = createTestServer();
  await server.connect(new StdioServerTransport());
}
