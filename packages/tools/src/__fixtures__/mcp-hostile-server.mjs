// An MCP server whose tool schemas are hostile: a recursive $ref, a schema nested 400 deep, and
// a huge one. Used by mcp-limits.test.ts over stdio.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

let deep = { type: 'string' };
for (let i = 0; i < 400; i++) deep = { type: 'object', properties: { next: deep } };
const huge = { type: 'object', properties: {} };
for (let i = 0; i < 20000; i++) huge.properties[`p${i}`] = { type: 'string' };

const tools = [
  {
    name: 'tree',
    description: 'Takes a recursive tree.',
    inputSchema: {
      type: 'object',
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
      $defs: {
        node: {
          type: 'object',
          properties: { children: { type: 'array', items: { $ref: '#/$defs/node' } } },
        },
      },
    },
  },
  {
    name: 'deep',
    description: 'A schema nested 400 levels deep.',
    inputSchema: { type: 'object', properties: { value: deep } },
  },
  { name: 'huge', description: 'A schema with 20000 properties.', inputSchema: huge },
];

const server = new Server(
  { name: 'closedloop-hostile-server', version: '1.0.0' },
  { capabilities: { tools: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [
    {
      type: 'text',
      text: `${request.params.name} got ${JSON.stringify(request.params.arguments).length} bytes`,
    },
  ],
}));
await server.connect(new StdioServerTransport());
