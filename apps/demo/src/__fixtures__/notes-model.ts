import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolCallGuard } from '@closedloop/executor';
import type { ChatModel, GenerateRequest } from '@closedloop/model';
import { ScriptedModel, type ScriptedResponse } from '@closedloop/model/testing';

/** What the notes scenario's step says while it works (streamed as text deltas). */
export const notesNarration = 'I will write notes.txt with a greeting, then check that it is there.';

function systemOf(request: GenerateRequest): string {
  const first = request.messages[0];
  return first && 'content' in first && typeof first.content === 'string' ? first.content : '';
}

/**
 * A one-step scripted scenario for the server and browser tests: the planner drafts "Write
 * notes.txt"; the step narrates (streamed text), calls `write_file` and claims the file. When
 * the write is denied, the claim fails verification and the replanner gives up. `chunkDelayMs`
 * spaces the streamed text deltas like a real model's tokens.
 */
export function createNotesModel(options: { latencyMs?: number; chunkDelayMs?: number } = {}): ChatModel {
  const respond = (request: GenerateRequest): ScriptedResponse => {
    const system = systemOf(request);
    if (system.startsWith('You are the planner')) {
      return {
        text: JSON.stringify({
          title: 'Notes',
          successCriteria: [],
          protocols: [],
          steps: [
            {
              id: 'notes',
              title: 'Write notes.txt',
              description: 'Write notes.txt containing a greeting.',
              requiredTools: ['write_file'],
            },
          ],
        }),
      };
    }
    if (system.startsWith('You are the replanner')) {
      return {
        text: JSON.stringify({
          action: 'give_up',
          reason: 'The write was denied; nothing else can produce the file.',
        }),
      };
    }
    if (request.tools?.some((tool) => tool.name === 'mark_step')) {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      if (turn === 0) {
        return {
          text: notesNarration,
          toolCalls: [
            { name: 'write_file', arguments: { path: 'notes.txt', content: 'hello\nfrom the notes step\n' } },
          ],
        };
      }
      return {
        toolCalls: [
          {
            name: 'mark_step',
            arguments: {
              status: 'success',
              notes: 'Wrote notes.txt.',
              claims: { filesWritten: ['notes.txt'] },
            },
          },
        ],
      };
    }
    return { text: 'notes.txt holds a greeting.' };
  };
  const model = new ScriptedModel({
    modelId: 'scripted-notes',
    capabilities: { structuredOutput: false },
    streamChunkSize: 6,
    ...(options.latencyMs !== undefined ? { latencyMs: options.latencyMs } : {}),
    matchers: [{ match: () => true, respond }],
  });
  const chunkDelayMs = options.chunkDelayMs ?? 0;
  if (chunkDelayMs === 0) return model;
  return {
    specificationVersion: model.specificationVersion,
    provider: model.provider,
    modelId: model.modelId,
    capabilities: model.capabilities,
    doGenerate: (request, callOptions) => model.doGenerate(request, callOptions),
    async *doStream(request, callOptions) {
      for await (const part of model.doStream(request, callOptions)) {
        if (part.type === 'text-delta') await sleep(chunkDelayMs, undefined, { signal: callOptions?.signal });
        yield part;
      }
    },
  };
}

/** A guard that asks a human before every `write_file` call (and allows everything else). */
export const askBeforeWrites: ToolCallGuard = {
  async check({ tool }) {
    return tool.name === 'write_file'
      ? { action: 'ask-human', reason: 'write_file changes the workspace' }
      : { action: 'allow' };
  },
};
