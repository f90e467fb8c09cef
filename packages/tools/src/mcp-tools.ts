import { z } from 'zod';
import { defineTool } from './define-tool';
import type { AnyTool, ToolContext } from './tool';
import { ToolError } from './tool-error';

/** An MCP tool as `listTools` describes it (the fields closedloop uses). */
export interface McpToolInfo {
  name: string;
  title?: string;
  description?: string;
  inputSchema: {
    type: 'object';
    properties?: Record<string, unknown>;
    required?: string[];
    [key: string]: unknown;
  };
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

/** One content block of an MCP tool result. */
export interface McpContentBlock {
  type: string;
  text?: string;
  mimeType?: string;
  data?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/** An MCP `tools/call` result (the fields closedloop uses). */
export interface McpCallToolResult {
  content?: McpContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * The part of the MCP SDK's `Client` that `mcpTools` uses. A connected
 * `Client` from `@modelcontextprotocol/sdk/client/index.js` satisfies it.
 */
export interface McpClientLike {
  listTools(
    params?: { cursor?: string },
    options?: { signal?: AbortSignal },
  ): Promise<{ tools: McpToolInfo[]; nextCursor?: string }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: {
      signal?: AbortSignal;
      timeout?: number;
      resetTimeoutOnProgress?: boolean;
      onprogress?: (progress: { progress: number; total?: number; message?: string }) => void;
    },
  ): Promise<McpCallToolResult | Record<string, unknown>>;
}

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /** Prepended to every tool name (`github_` → `github_create_issue`), to avoid clashes. */
  prefix?: string;
  /**
   * Which tools count as destructive. Default: the MCP annotations — a tool is destructive
   * unless it says `readOnlyHint: true` or `destructiveHint: false` (MCP's own defaults).
   */
  destructive?: boolean | ((tool: McpToolInfo) => boolean);
  /** Keep only the tools this returns true for (by their MCP name). */
  filter?: (tool: McpToolInfo) => boolean;
  /** Per-call timeout (the registry answers `timeout`). Default none (the SDK's own 60 s). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const validName = /^[a-zA-Z0-9_-]{1,64}$/;

function toolName(prefix: string, name: string): string {
  const cleaned = `${prefix}${name}`.replace(/[^a-zA-Z0-9_-]/g, '_');
  return cleaned.slice(0, 64);
}

function primitiveSchema(schema: unknown): z.ZodType {
  if (schema === null || typeof schema !== 'object') return z.unknown();
  const type = (schema as { type?: unknown }).type;
  switch (type) {
    case 'string':
      return z.string();
    case 'number':
      return z.number();
    case 'integer':
      return z.number().int();
    case 'boolean':
      return z.boolean();
    case 'array':
      return z.array(z.unknown());
    case 'object':
      return z.record(z.string(), z.unknown());
    case 'null':
      return z.null();
    default:
      return z.unknown();
  }
}

/** Limits on an MCP tool's input schema (a server may send anything). */
export const mcpSchemaLimits = { maxDepth: 32, maxNodes: 10_000 } as const;

/**
 * Walks a JSON Schema iteratively, following local `$ref`s (`#/$defs/…`), and tells whether it
 * is recursive, nested deeper than {@link mcpSchemaLimits}`.maxDepth` or larger than `maxNodes`.
 */
export function inspectJsonSchema(schema: unknown): { recursive: boolean; tooLarge: boolean } {
  const resolve = (ref: string): unknown => {
    if (!ref.startsWith('#')) return undefined;
    let node: unknown = schema;
    for (const raw of ref
      .slice(1)
      .split('/')
      .filter((part) => part !== '')) {
      const part = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === null || typeof node !== 'object') return undefined;
      node = (node as Record<string, unknown>)[part];
    }
    return node;
  };
  let nodes = 0;
  // Each entry carries the refs followed on its path, to see a cycle.
  const stack: { node: unknown; depth: number; refs: readonly string[] }[] = [
    { node: schema, depth: 0, refs: [] },
  ];
  while (stack.length > 0) {
    const { node, depth, refs } = stack.pop() as { node: unknown; depth: number; refs: readonly string[] };
    if (++nodes > mcpSchemaLimits.maxNodes || depth > mcpSchemaLimits.maxDepth)
      return { recursive: false, tooLarge: true };
    if (node === null || typeof node !== 'object') continue;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string') {
      if (refs.includes(ref)) return { recursive: true, tooLarge: false };
      stack.push({ node: resolve(ref), depth: depth + 1, refs: [...refs, ref] });
    }
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref' || key === '$defs' || key === 'definitions') continue;
      if (child !== null && typeof child === 'object') stack.push({ node: child, depth: depth + 1, refs });
    }
  }
  return { recursive: false, tooLarge: false };
}

/** The loose fallback: required keys and the top-level type of each property. */
function looseSchema(schema: McpToolInfo['inputSchema']): z.ZodType<Record<string, unknown>> {
  const required = new Set(
    Array.isArray(schema.required) ? schema.required.filter((key) => typeof key === 'string') : [],
  );
  const shape: Record<string, z.ZodType> = {};
  const properties =
    schema.properties !== null && typeof schema.properties === 'object' ? schema.properties : {};
  for (const [key, property] of Object.entries(properties)) {
    const value = primitiveSchema(property);
    shape[key] = required.has(key) ? value : value.optional();
  }
  for (const key of required) shape[key] ??= z.unknown().refine((value) => value !== undefined, 'Required');
  return z.looseObject(shape) as z.ZodType<Record<string, unknown>>;
}

/**
 * A zod schema for an MCP tool's input: `z.fromJSONSchema` when it can convert the schema,
 * else a loose object that checks required keys and the top-level type of each property. A
 * recursive (`$ref` cycle), too deep or too large schema always gets the loose object, and the
 * registry bounds the depth and size of the arguments themselves.
 */
export function mcpInputSchema(inputSchema: McpToolInfo['inputSchema']): z.ZodType<Record<string, unknown>> {
  const { $schema: _ignored, ...schema } = inputSchema;
  const inspected = inspectJsonSchema(schema);
  if (inspected.recursive || inspected.tooLarge) return looseSchema(schema as McpToolInfo['inputSchema']);
  try {
    const converted = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    // Make sure it is usable before trusting it.
    converted.safeParse({});
    return converted as z.ZodType<Record<string, unknown>>;
  } catch {
    return looseSchema(schema as McpToolInfo['inputSchema']);
  }
}

/** What the model sees: the server's schema, or a flat summary when it is too large to send. */
function modelSchema(schema: Record<string, unknown>): Record<string, unknown> {
  if (!inspectJsonSchema(schema).tooLarge) return schema;
  const properties: Record<string, unknown> = {};
  const source = schema.properties !== null && typeof schema.properties === 'object' ? schema.properties : {};
  for (const [key, property] of Object.entries(source as Record<string, unknown>).slice(0, 200)) {
    const type =
      property !== null && typeof property === 'object' ? (property as { type?: unknown }).type : undefined;
    properties[key] = typeof type === 'string' ? { type } : {};
  }
  return {
    type: 'object',
    properties,
    ...(Array.isArray(schema.required) ? { required: schema.required } : {}),
  };
}

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function blockText(block: McpContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text ?? '';
    case 'image':
    case 'audio':
      return `[${block.type}: ${block.mimeType ?? 'unknown type'}, ${base64Bytes(block.data ?? '')} bytes]`;
    case 'resource':
      if (block.resource?.text !== undefined) return block.resource.text;
      return `[resource: ${block.resource?.uri ?? 'unknown'}${block.resource?.mimeType ? ` (${block.resource.mimeType})` : ''}]`;
    case 'resource_link':
      return `[resource link: ${block.uri ?? ''}${block.name ? ` (${block.name})` : ''}]`;
    default:
      return `[${block.type} content]`;
  }
}

/** The text of an MCP result: text blocks joined with newlines, other blocks as placeholders. */
export function mcpResultText(result: McpCallToolResult): string {
  return (result.content ?? []).map(blockText).join('\n');
}

async function listAll(client: McpClientLike, signal: AbortSignal | undefined): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const response = await client.listTools(
      cursor === undefined ? undefined : { cursor },
      signal ? { signal } : undefined,
    );
    tools.push(...response.tools);
    cursor = response.nextCursor;
    if (cursor === undefined || cursor === '') break;
  }
  return tools;
}

/**
 * Turns the tools of a connected MCP client into closedloop tools. Arguments are validated
 * against a zod schema built from each tool's JSON Schema (the model still sees the server's
 * own schema); a call's text content is joined into the result (structured content when there
 * is no text); an `isError` result throws, so the registry answers `execution-failed`.
 * Abort, timeout and progress are forwarded to the server.
 *
 * Import it from `@closedloop/tools/mcp`, so users without MCP never load it.
 *
 * @example
 * ```ts
 * const client = new Client({ name: 'closedloop', version: '1.0.0' });
 * await client.connect(new StdioClientTransport({ command: 'node', args: ['server.js'] }));
 * const registry = createToolRegistry([...workspaceTools({ root }), ...(await mcpTools(client, { prefix: 'srv_' }))]);
 * ```
 */
export async function mcpTools(client: McpClientLike, options: McpToolsOptions = {}): Promise<AnyTool[]> {
  const prefix = options.prefix ?? '';
  if (prefix !== '' && !/^[a-zA-Z0-9_-]{1,32}$/.test(prefix)) {
    throw new ToolError({
      code: 'invalid-definition',
      message: `MCP tool prefix ${JSON.stringify(prefix)} is invalid: use up to 32 characters from a-z, A-Z, 0-9, "_" and "-".`,
    });
  }
  const listed = await listAll(client, options.signal);
  const seen = new Map<string, string>();
  const tools: AnyTool[] = [];
  for (const info of listed) {
    if (options.filter && !options.filter(info)) continue;
    const name = toolName(prefix, info.name);
    if (!validName.test(name)) {
      throw new ToolError({
        code: 'invalid-definition',
        message: `MCP tool ${JSON.stringify(info.name)} cannot be given a valid closedloop name.`,
      });
    }
    const clash = seen.get(name);
    if (clash !== undefined) {
      throw new ToolError({
        code: 'invalid-definition',
        message: `MCP tools ${JSON.stringify(clash)} and ${JSON.stringify(info.name)} both map to "${name}". Use a filter.`,
      });
    }
    seen.set(name, info.name);
    const annotations = info.annotations ?? {};
    const destructive =
      typeof options.destructive === 'function'
        ? options.destructive(info)
        : (options.destructive ??
          (annotations.readOnlyHint !== true && annotations.destructiveHint !== false));
    const { $schema: _ignored, ...jsonSchema } = info.inputSchema;
    tools.push(
      defineTool({
        name,
        description: info.description?.trim() || info.title || annotations.title || `MCP tool ${info.name}`,
        input: mcpInputSchema(info.inputSchema),
        inputJsonSchema: modelSchema(jsonSchema),
        destructive,
        idempotent: annotations.readOnlyHint === true || annotations.idempotentHint === true,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        async execute(input: Record<string, unknown>, context: ToolContext) {
          const result = (await client.callTool({ name: info.name, arguments: input }, undefined, {
            signal: context.signal,
            ...(options.timeoutMs !== undefined
              ? { timeout: options.timeoutMs, resetTimeoutOnProgress: true }
              : {}),
            ...(context.onProgress
              ? {
                  onprogress: (progress: { progress: number; total?: number; message?: string }) => {
                    const report: { message: string; fraction?: number } = {
                      message:
                        progress.message ??
                        `${progress.progress}${progress.total !== undefined ? ` / ${progress.total}` : ''}`,
                    };
                    if (progress.total !== undefined && progress.total > 0)
                      report.fraction = progress.progress / progress.total;
                    context.onProgress?.(report);
                  },
                }
              : {}),
          })) as McpCallToolResult;
          const text = mcpResultText(result);
          if (result.isError === true) {
            throw new Error(text.trim() || `MCP tool "${info.name}" reported an error without a message.`);
          }
          if (text === '' && result.structuredContent !== undefined) return result.structuredContent;
          return text;
        },
      }),
    );
  }
  return tools;
}
