import { type GenerateRequest, ModelError, type ReasoningPart, resolveCapabilities } from '@closedloop/model';
import { describe, expect, it } from 'vitest';
import {
  type AnthropicChatSettings,
  buildAnthropicRequest,
  toAnthropicMessages,
} from './build-anthropic-request';

const sonnet = {
  ...resolveCapabilities({ provider: 'anthropic', modelId: 'claude-sonnet-4-6' }),
  structuredOutput: true,
};
const hi: GenerateRequest = { messages: [{ role: 'user', content: 'hi' }] };

function build(request: GenerateRequest, settings: AnthropicChatSettings = {}, capabilities = sonnet) {
  return buildAnthropicRequest({
    provider: 'anthropic',
    modelId: 'claude-sonnet-4-6',
    request,
    capabilities,
    settings,
    stream: false,
  });
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return ModelError.isInstance(error) ? `${error.code}: ${error.message}` : `untyped: ${String(error)}`;
  }
  return 'no error';
}

describe('toAnthropicMessages', () => {
  it('extracts every system message into one system prompt', () => {
    const { system, messages } = toAnthropicMessages([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
      { role: 'system', content: 'Answer in French.' },
    ]);
    expect(system).toBe('Be brief.\n\nAnswer in French.');
    expect(messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('merges consecutive tool results and a following user message, tool results first', () => {
    const { messages } = toAnthropicMessages([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 't1', name: 'a', arguments: { x: 1 }, rawArguments: '{"x":1}' },
          { id: 't2', name: 'b', arguments: 'not json', rawArguments: 'not json' },
        ],
      },
      { role: 'tool', toolCallId: 't1', toolName: 'a', content: 'one' },
      { role: 'tool', toolCallId: 't2', toolName: 'b', content: 'failed', isError: true },
      { role: 'user', content: 'and?' },
    ]);
    expect(messages).toEqual([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 't1', name: 'a', input: { x: 1 } },
          { type: 'tool_use', id: 't2', name: 'b', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: 'one' },
          { type: 'tool_result', tool_use_id: 't2', content: 'failed', is_error: true },
          { type: 'text', text: 'and?' },
        ],
      },
    ]);
  });

  it('sends thinking blocks back unchanged (signature, redacted data) and drops unsigned reasoning', () => {
    const { messages } = toAnthropicMessages([
      { role: 'user', content: 'q' },
      {
        role: 'assistant',
        content: 'a',
        reasoning: [
          { text: 'thought', signature: 'sig-1' },
          { text: '', signature: 'opaque-data', redacted: true },
          { text: 'from another provider' },
        ],
      },
      { role: 'user', content: 'next' },
    ]);
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'thought', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'opaque-data' },
        { type: 'text', text: 'a' },
      ],
    });
  });

  it('rejects an unknown role with a typed error', () => {
    const bad = [{ role: 'robot', content: 'x' }] as unknown as Parameters<typeof toAnthropicMessages>[0];
    expect(errorOf(() => toAnthropicMessages(bad))).toMatch(
      /^bad-request: .*messages\[0\] has unknown role "robot"/,
    );
  });
});

describe('toAnthropicMessages: where thinking goes back', () => {
  const call = (id: string, path: string) => ({
    id,
    name: 'read_file',
    arguments: { path },
    rawArguments: '',
  });
  const send = (reasoning: ReasoningPart[], content: string) =>
    toAnthropicMessages([
      { role: 'user', content: 'Go.' },
      { role: 'assistant', content, toolCalls: [call('toolu_a', 'a'), call('toolu_b', 'b')], reasoning },
    ]).messages[1]?.content as Array<{ type: string; text?: string; thinking?: string; id?: string }>;
  const shape = (blocks: ReturnType<typeof send>) =>
    blocks.map((block) => block.text ?? block.thinking ?? block.id ?? block.type);

  it('a part without a position goes first (one thinking block, or reasoning from before this release)', () => {
    expect(shape(send([{ text: 'T1', signature: 's1' }], 'Hi.'))).toEqual([
      'T1',
      'Hi.',
      'toolu_a',
      'toolu_b',
    ]);
  });

  it('a part with a position goes there: after that much text and that many calls', () => {
    const placed = (text: number, toolCalls: number) => ({
      text: 'T2',
      signature: 's2',
      providerData: { anthropicPosition: { text, toolCalls } },
    });
    expect(shape(send([{ text: 'T1', signature: 's1' }, placed(3, 1)], 'Hi. More.'))).toEqual([
      'T1',
      'Hi.',
      'toolu_a',
      'T2',
      ' More.',
      'toolu_b',
    ]);
    // Out of range (the text was edited since): clamped, nothing sent twice or lost.
    expect(shape(send([placed(99, 9)], 'Hi.'))).toEqual(['Hi.', 'toolu_a', 'toolu_b', 'T2']);
    // A whitespace-only slice is not sent (Anthropic rejects blank text blocks).
    expect(shape(send([placed(1, 0)], ' Hi.'))).toEqual(['T2', 'Hi.', 'toolu_a', 'toolu_b']);
  });
});

describe('buildAnthropicRequest', () => {
  it('defaults max_tokens to min(8192, the model limit), 4096 for unknown models', () => {
    expect(build(hi).body.max_tokens).toBe(8192);
    const opus3 = resolveCapabilities({ provider: 'anthropic', modelId: 'claude-3-opus-20240229' });
    expect(build(hi, {}, opus3).body.max_tokens).toBe(4096);
    const unknown = resolveCapabilities({
      provider: 'anthropic',
      modelId: 'claude-next-preview',
      onWarning: () => {},
    });
    expect(build(hi, {}, unknown).body.max_tokens).toBe(4096);
    expect(build({ ...hi, maxOutputTokens: 300 }).body.max_tokens).toBe(300);
    expect(build(hi, { defaultMaxTokens: 1000 }).body.max_tokens).toBe(1000);
  });

  it('enables thinking: budget plus the default output, no temperature', () => {
    const { body } = build({ ...hi, temperature: 0.5 }, { thinking: { budgetTokens: 2048 } });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body.max_tokens).toBe(2048 + 8192);
    expect(body).not.toHaveProperty('temperature');
    expect(build(hi, { thinking: { type: 'adaptive' } }).body.thinking).toEqual({ type: 'adaptive' });
    expect(errorOf(() => build(hi, { thinking: { budgetTokens: 100 } }))).toMatch(/^bad-request: .*>= 1024/);
  });

  it('maps tool choices and parallelToolCalls: false', () => {
    const tools = [{ name: 'f', description: 'd', inputSchema: { type: 'object', properties: {} } }];
    expect(build({ ...hi, tools, toolChoice: 'required' }).body.tool_choice).toEqual({ type: 'any' });
    expect(build({ ...hi, tools, toolChoice: 'none' }).body.tool_choice).toEqual({ type: 'none' });
    expect(build({ ...hi, tools, toolChoice: { type: 'tool', name: 'f' } }).body.tool_choice).toEqual({
      type: 'tool',
      name: 'f',
    });
    expect(build({ ...hi, tools, parallelToolCalls: false }).body.tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    expect(build({ ...hi, tools }).body).not.toHaveProperty('tool_choice');
    expect(build({ ...hi, tools }).body.tools).toEqual([
      {
        name: 'f',
        description: 'd',
        input_schema: { type: 'object', properties: {} },
        cache_control: { type: 'ephemeral' },
      },
    ]);
    expect(errorOf(() => build({ ...hi, toolChoice: 'required' }))).toMatch(/needs at least one tool/);
  });

  it('asks for structured output with a forced tool; wraps non-object schemas; avoids name clashes', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    const forced = build({ ...hi, responseFormat: { type: 'json', schema, name: 'answer' } });
    expect(forced.responseTool).toEqual({ name: 'answer', wrapped: false });
    expect(forced.body.tool_choice).toEqual({ type: 'tool', name: 'answer' });
    expect(forced.body.tools?.[0]).toMatchObject({ name: 'answer', input_schema: schema });

    const list = build({
      ...hi,
      responseFormat: { type: 'json', schema: { type: 'array', items: { type: 'string' } } },
    });
    expect(list.responseTool).toEqual({ name: 'json_response', wrapped: true });
    expect(list.body.tools?.[0]).toMatchObject({
      input_schema: { type: 'object', properties: { value: { type: 'array' } }, required: ['value'] },
    });

    const clash = build({
      ...hi,
      tools: [{ name: 'answer', description: 'user tool', inputSchema: { type: 'object' } }],
      responseFormat: { type: 'json', schema, name: 'answer' },
    });
    expect(clash.responseTool?.name).toBe('answer_2');

    const thinking = build(
      { ...hi, responseFormat: { type: 'json', schema } },
      { thinking: { budgetTokens: 1024 } },
    );
    expect(thinking.body.tool_choice).toEqual({ type: 'auto' });
  });

  it('does not use a tool for structured output when the capability is turned off', () => {
    const { body, responseTool } = build(
      { ...hi, responseFormat: { type: 'json', schema: { type: 'object' } } },
      {},
      { ...sonnet, structuredOutput: false },
    );
    expect(responseTool).toBeUndefined();
    expect(body).not.toHaveProperty('tools');
  });

  it('rejects requests without a user or assistant message', () => {
    expect(errorOf(() => build({ messages: [] }))).toMatch(/^bad-request: .*non-empty array/);
    expect(errorOf(() => build({ messages: [{ role: 'system', content: 'only a system prompt' }] }))).toMatch(
      /^bad-request: .*no user or assistant message/,
    );
  });

  it('maps the typed providerOptions.anthropic, merges extraBody last and streams when asked', () => {
    const { body } = buildAnthropicRequest({
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-6',
      request: { ...hi, providerOptions: { anthropic: { topK: 5, userId: 'u1', extraBody: { top_k: 6 } } } },
      capabilities: sonnet,
      settings: {},
      stream: true,
    });
    expect(body).toMatchObject({ stream: true, top_k: 6, metadata: { user_id: 'u1' } });
    expect(errorOf(() => build({ ...hi, providerOptions: { anthropic: { top_k: 5 } } }))).toMatch(
      /^bad-request: .*providerOptions\.anthropic: unknown option "top_k"\. Known options: topK, /,
    );
  });

  it('places at most four cache breakpoints: last tool, system, the last two user turns', () => {
    const tools = [
      { name: 'a', description: 'd', inputSchema: { type: 'object', properties: {} } },
      { name: 'b', description: 'd', inputSchema: { type: 'object', properties: {} } },
    ];
    const call = { id: 't1', name: 'a', arguments: {}, rawArguments: '{}' };
    const { body } = build({
      tools,
      messages: [
        { role: 'system', content: 'You are an agent.' },
        { role: 'user', content: 'Do the task.' },
        { role: 'assistant', content: '', toolCalls: [call] },
        { role: 'tool', toolCallId: 't1', toolName: 'a', content: 'one' },
        { role: 'assistant', content: '', toolCalls: [{ ...call, id: 't2' }] },
        { role: 'tool', toolCallId: 't2', toolName: 'a', content: 'two' },
      ],
    });
    const marked = JSON.stringify(body).split('"cache_control"').length - 1;
    expect(marked).toBe(4);
    expect(body.tools?.[0]).not.toHaveProperty('cache_control');
    expect(body.tools?.[1]).toHaveProperty('cache_control', { type: 'ephemeral' });
    expect(body.system).toEqual([
      { type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } },
    ]);
    expect(body.messages[0]).toEqual({ role: 'user', content: 'Do the task.' });
    expect(body.messages[2]).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', cache_control: { type: 'ephemeral' } }],
    });
    expect(body.messages[4]).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't2', cache_control: { type: 'ephemeral' } }],
    });
    // One hour TTL, and off.
    expect(build({ ...hi, promptCache: { ttl: '1h' } }).body.messages[0]).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral', ttl: '1h' } }],
    });
    expect(JSON.stringify(build({ ...hi, tools, promptCache: false }).body)).not.toContain('cache_control');
  });

  it('marks tools strict where the schema and model allow it', () => {
    const closed = {
      type: 'object',
      properties: { a: { type: 'string' } },
      required: ['a'],
      additionalProperties: false,
    };
    const tools = [
      { name: 'strict_ok', description: 'd', inputSchema: closed },
      { name: 'loose', description: 'd', inputSchema: { type: 'object', properties: { a: {} } } },
    ];
    const { body } = build({ ...hi, tools, promptCache: false });
    expect(body.tools?.map((tool) => ('strict' in tool ? tool.strict : undefined))).toEqual([
      true,
      undefined,
    ]);
    const old = buildAnthropicRequest({
      provider: 'anthropic',
      modelId: 'claude-3-7-sonnet-20250219',
      request: { ...hi, tools },
      capabilities: sonnet,
      settings: {},
      stream: false,
    });
    expect(old.body.tools?.[0]).not.toHaveProperty('strict');
  });

  it('maps images and PDFs to image and document blocks', () => {
    const { body } = build({
      promptCache: false,
      messages: [
        {
          role: 'user',
          content: 'Look.',
          parts: [
            { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
            { type: 'image', url: 'https://example.com/cat.jpg' },
            { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=', filename: 'report.pdf' },
            { type: 'file', mediaType: 'text/plain', data: btoa('plain notes') },
          ],
        },
      ],
    });
    expect(body.messages[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Look.' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        {
          type: 'document',
          source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
          title: 'report.pdf',
        },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain notes' } },
      ],
    });
  });

  it('maps the typed per-call options and warns about what Anthropic cannot do', () => {
    const warnings: string[] = [];
    const { body } = buildAnthropicRequest({
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-6',
      request: {
        ...hi,
        stopSequences: ['END'],
        seed: 1,
        serviceTier: 'default',
        reasoningEffort: 'high',
        verbosity: 'low',
      },
      capabilities: sonnet,
      settings: {},
      stream: false,
      warnings,
    });
    expect(body).toMatchObject({
      stop_sequences: ['END'],
      service_tier: 'standard_only',
      thinking: { type: 'adaptive' },
      output_config: { effort: 'high' },
    });
    expect(warnings).toEqual([
      'seed is not supported by Anthropic and was left out',
      'verbosity is not supported by Anthropic and was left out',
    ]);
    const older = buildAnthropicRequest({
      provider: 'anthropic',
      modelId: 'claude-sonnet-4-5',
      request: { ...hi, reasoningEffort: 'low' },
      capabilities: sonnet,
      settings: {},
      stream: false,
    });
    expect(older.body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(
      build({ ...hi, reasoningEffort: 'none' }, { thinking: { budgetTokens: 2048 } }).body,
    ).not.toHaveProperty('thinking');
  });
});
