import type { ChatMessage, ChatModel, GenerateRequest, ToolSpec, Usage } from './chat-model';
import { addUsage, emptyUsage } from './usage';

const rules = [
  'Work only inside the workspace; never touch files outside it.',
  'Read a file before you change it, and change only what the step asks for.',
  'Prefer small, reviewable edits; keep the code style of the file you edit.',
  'Run the tests that cover your change and report their exact outcome.',
  'When a command fails, read its output and fix the cause instead of retrying blindly.',
  'Finish with mark_step: [SUCCESS] or [FAIL] and the claims you can prove.',
];

/** A long, stable agent system prompt (≈ 1,900 tokens), like the executor's. */
function systemPrompt(): string {
  const sections: string[] = ['You are the executor of one step of a verified plan.'];
  for (let section = 1; section <= 12; section++) {
    sections.push(
      `## Rules, part ${section}\n${rules.map((rule, index) => `${section}.${index + 1} ${rule}`).join('\n')}\n` +
        'Every claim you make is checked against the workspace, the git diff and the commands you ran; ' +
        'a claim that cannot be checked counts as unverified, and unverified work is not success.',
    );
  }
  return sections.join('\n\n');
}

function tool(name: string, description: string, properties: Record<string, string>): ToolSpec {
  return {
    name,
    description: `${description} Paths are relative to the workspace root. ${rules[0]}`,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries(
        Object.entries(properties).map(([key, about]) => [key, { type: 'string', description: about }]),
      ),
      required: Object.keys(properties),
      additionalProperties: false,
    },
  };
}

/** The tools of the scripted loop (the workspace tools' shapes). */
const loopTools: ToolSpec[] = [
  tool('read_file', 'Read a UTF-8 text file.', { path: 'File to read.' }),
  tool('write_file', 'Write a UTF-8 text file, creating folders as needed.', {
    path: 'File to write.',
    content: 'The complete new content.',
  }),
  tool('edit_file', 'Replace one exact occurrence of a string in a file.', {
    path: 'File to edit.',
    find: 'Exact text to replace.',
    replace: 'Replacement text.',
  }),
  tool('list_dir', 'List a folder.', { path: 'Folder to list.' }),
  tool('run_command', 'Run a program with arguments (no shell).', {
    program: 'Program name.',
    args: 'Arguments, JSON array of strings.',
  }),
  tool('git_diff', 'Show the diff of the workspace against the step baseline.', {
    path: 'Limit to this path.',
  }),
];

/** The content of the file read at step `step` (≈ 350 tokens, deterministic). */
export function toolLoopFile(step: number): string {
  const lines = [`// src/module-${step}.ts`, `export interface Record${step} { id: string; value: number }`];
  for (let index = 0; index < 24; index++) {
    lines.push(`export const value${step}_${index} = compute(${index}, 'module-${step}'); // keep in sync`);
  }
  return lines.join('\n');
}

/** Options of {@link runToolLoop}. */
export interface RunToolLoopOptions {
  /** Tool-calling steps before the final answer. Default 9 (10 model calls in all). */
  toolSteps?: number;
  /** Extra request fields for every call (e.g. `{ promptCache: false }`). */
  request?: Partial<GenerateRequest>;
  signal?: AbortSignal;
}

/** What {@link runToolLoop} measured. */
export interface ToolLoopOutcome {
  calls: number;
  /** Usage of every call, in order. */
  usages: Usage[];
  total: Usage;
}

/**
 * Drives a scripted agent loop through `model`: a long system prompt, six tools and a task; each
 * answer's tool calls get a file's content as their result, appended to the conversation, until
 * the model answers without a tool call. The model (a real adapter against a simulator on the
 * loopback server) decides the steps; the loop only grows the transcript the way the executor
 * does. For prompt-caching benchmarks: every call re-sends the whole, growing transcript.
 */
export async function runToolLoop(
  model: ChatModel,
  options: RunToolLoopOptions = {},
): Promise<ToolLoopOutcome> {
  const { toolSteps = 9, request = {}, signal } = options;
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt() },
    {
      role: 'user',
      content: 'Step "audit": read the modules of src/ one by one and summarise what each exports.',
    },
  ];
  const usages: Usage[] = [];
  let total = emptyUsage();
  for (let step = 0; step <= toolSteps + 1; step++) {
    const result = await model.doGenerate(
      { ...request, messages: [...messages], tools: loopTools },
      { signal },
    );
    usages.push(result.usage);
    total = addUsage(total, result.usage);
    if (result.toolCalls.length === 0) break;
    messages.push({
      role: 'assistant',
      content: result.text,
      toolCalls: result.toolCalls,
      ...(result.reasoning ? { reasoning: result.reasoning } : {}),
    });
    for (const call of result.toolCalls) {
      messages.push({
        role: 'tool',
        toolCallId: call.id,
        toolName: call.name,
        content: toolLoopFile(step + 1),
      });
    }
  }
  return { calls: usages.length, usages, total };
}
