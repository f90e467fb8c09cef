import type { ChatMessage } from '@closedloop/model';
import { replayFixtures, streamResult } from '@closedloop/model/conformance';
import { describe, expect, it } from 'vitest';
import { toResponsesInput } from './build-responses-request';
import { createOpenAI } from './openai-provider';

const { server, sse } = replayFixtures(new URL('./__fixtures__/responses/', import.meta.url));

const call = (id: string, path: string) => ({
  id,
  name: 'read_file',
  arguments: { path },
  rawArguments: JSON.stringify({ path }),
});
// A Codex/MCP id longer than the Responses API's 64 characters (a 400 `string_above_max_length`).
const codexId = `codex_mcp__hermes-tools__kanban_complete_exec-${'7f3c9a2e-1b4d-4c8e-9f0a-3d5e6b7c8d9e'}`;
const history: ChatMessage[] = [
  { role: 'user', content: 'Read the files.' },
  // llama.cpp and Ollama restart at `call_0` every turn.
  { role: 'assistant', content: '', toolCalls: [call('call_0', 'a')] },
  { role: 'tool', toolCallId: 'call_0', toolName: 'read_file', content: 'A' },
  { role: 'assistant', content: '', toolCalls: [call('call_0', 'b')] },
  { role: 'tool', toolCallId: 'call_0', toolName: 'read_file', content: 'B' },
  // Two over-long ids with one 64-character prefix, an empty id and one with a space.
  {
    role: 'assistant',
    content: '',
    toolCalls: [call(`${codexId}-1`, 'c'), call(`${codexId}-2`, 'd'), call('', 'e'), call('tool 1', 'f')],
  },
  { role: 'tool', toolCallId: `${codexId}-2`, toolName: 'read_file', content: 'D' },
  { role: 'tool', toolCallId: `${codexId}-1`, toolName: 'read_file', content: 'C' },
  { role: 'tool', toolCallId: '', toolName: 'read_file', content: 'E' },
  { role: 'tool', toolCallId: 'tool 1', toolName: 'read_file', content: 'F' },
];

type Item = { type?: string; call_id?: string; output?: string; arguments?: string };

describe('Responses API tool-call ids from other providers', () => {
  it('are sent valid (1–64 characters) and unique, each function_call_output after its call', async () => {
    server.script(sse('text-stream'));
    const model = createOpenAI({ name: 'openai', apiKey: 'sk-loopback-000000', baseURL: `${server.url}/v1` });
    await streamResult(
      model.responses('gpt-4.1').doStream({
        messages: history,
        tools: [{ name: 'read_file', description: 'd', inputSchema: { type: 'object', properties: {} } }],
      }),
    );
    const input = (server.requests[0]?.json as { input: Item[] } | undefined)?.input ?? [];
    const calls = input.filter((item) => item.type === 'function_call');
    const outputs = input.filter((item) => item.type === 'function_call_output');
    const callIds = calls.map((item) => item.call_id ?? '');
    expect(callIds).toHaveLength(6);
    expect(new Set(callIds).size).toBe(6);
    for (const id of callIds) expect(id).toMatch(/^[^\s]{1,64}$/);
    // Valid, new ids pass unchanged.
    expect(callIds[0]).toBe('call_0');
    // Each output names the call that produced it (by the arguments the call carried).
    const pathOf = new Map(calls.map((item) => [item.call_id, JSON.parse(item.arguments ?? '{}').path]));
    expect(outputs.map((item) => `${pathOf.get(item.call_id)}=${item.output}`)).toEqual([
      'a=A',
      'b=B',
      'd=D',
      'c=C',
      'e=E',
      'f=F',
    ]);
  });

  it('an over-long id keeps its readable start and is the same on every request (stable pairing)', () => {
    const first = toResponsesInput(history) as Item[];
    const second = toResponsesInput(history) as Item[];
    expect(first).toEqual(second);
    const long = first.find(
      (item) => item.type === 'function_call' && item.call_id?.startsWith('codex_mcp__'),
    );
    expect(long?.call_id).toHaveLength(64);
    expect(long?.call_id?.startsWith(codexId.slice(0, 40))).toBe(true);
  });
});
