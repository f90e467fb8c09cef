import type { ToolSpec } from '@closedloop/model';
import { Plan, type StepId, type VerificationRecordInput } from '@closedloop/plan';
import { z } from 'zod';

/** A clock that ticks one millisecond per call (deterministic events and ledgers). */
export function tickingClock(start = 1_000): () => number {
  let now = start;
  return () => now++;
}

/**
 * The example DAG `{1:[0], 2:[0], 3:[1], 4:[2], 5:[3,4], 6:[5], 7:[5]}`, ids as strings:
 *
 * ```
 * 0 → 1 → 3 ─┐
 *   ↘ 2 → 4 ─┴→ 5 → 6
 *              ↘ 7
 * ```
 */
export const exampleSteps = [
  { id: '0', description: 'Analyze the requirements' },
  { id: '1', description: 'Create the project structure', dependsOn: ['0'] },
  { id: '2', description: 'Write the configuration', dependsOn: ['0'] },
  { id: '3', description: 'Write the data models', dependsOn: ['1'] },
  { id: '4', description: 'Set up the database connection', dependsOn: ['2'] },
  {
    id: '5',
    title: 'Write API endpoints',
    description: 'Write the API endpoints in src/api.py',
    dependsOn: ['3', '4'],
    requiredTools: ['write_file'],
    successCriteria: ['src/api.py exists and defines GET /todos and POST /todos'],
  },
  { id: '6', description: 'Write the tests', dependsOn: ['5'] },
  { id: '7', description: 'Run the tests', dependsOn: ['5'] },
];

/** One tool call of a fixture step: `result` answers it, `error` fails it, neither leaves it pending. */
export interface FixtureCall {
  tool: string;
  args: Record<string, unknown>;
  result?: string;
  error?: string;
}

/** The tool history of the completed steps 0–4. */
export const exampleHistory: Record<string, FixtureCall[]> = {
  '0': [
    {
      tool: 'read_file',
      args: { path: 'requirements.md' },
      result: 'Build a REST API for todos: GET /todos, POST /todos, SQLite storage, pytest tests.',
    },
  ],
  '1': [
    { tool: 'create_directory', args: { path: 'src/' }, result: 'Directory created' },
    { tool: 'create_directory', args: { path: 'tests/' }, result: 'Directory created' },
  ],
  '2': [
    {
      tool: 'write_file',
      args: { path: 'config.toml', content: 'db = "todos.db"\n' },
      result: 'File written',
    },
  ],
  '3': [
    {
      tool: 'write_file',
      args: { path: 'src/models.py', content: 'class Todo:\n    ...\n' },
      result: 'File written',
    },
  ],
  '4': [
    {
      tool: 'write_file',
      args: { path: 'src/database.py', content: 'import sqlalchemy\n' },
      result: 'File written',
    },
    { tool: 'run_command', args: { command: "python -c 'import sqlalchemy'" }, result: 'OK' },
  ],
};

/** Runs a step to `completed` with its tool calls in the ledger. */
export function completeStep(
  plan: Plan,
  id: StepId,
  calls: readonly FixtureCall[] = [],
  output?: string,
): void {
  plan.markStep(id, { status: 'in_progress' });
  for (const call of calls) {
    const record = plan.recordToolCall(id, { tool: call.tool, args: call.args });
    if (call.result !== undefined) {
      plan.recordToolResult(id, {
        callId: record.callId,
        tool: call.tool,
        status: 'success',
        result: call.result,
      });
    } else if (call.error !== undefined) {
      plan.recordToolResult(id, {
        callId: record.callId,
        tool: call.tool,
        status: 'error',
        error: call.error,
      });
    }
  }
  plan.finalizeStep(id);
  plan.recordVerification(id, { verdict: 'success' });
  plan.markStep(id, {
    status: 'completed',
    notes: '[SUCCESS]: done',
    ...(output === undefined ? {} : { output }),
  });
}

/** Runs a step to `failed`: its calls, `[FAIL]` notes, a failed verification with findings. */
export function failStep(
  plan: Plan,
  id: StepId,
  options: {
    calls?: readonly FixtureCall[];
    notes?: string;
    findings?: VerificationRecordInput['findings'];
  } = {},
): void {
  plan.markStep(id, { status: 'in_progress' });
  for (const call of options.calls ?? []) {
    const record = plan.recordToolCall(id, { tool: call.tool, args: call.args });
    if (call.result !== undefined) {
      plan.recordToolResult(id, {
        callId: record.callId,
        tool: call.tool,
        status: 'success',
        result: call.result,
      });
    } else if (call.error !== undefined) {
      plan.recordToolResult(id, {
        callId: record.callId,
        tool: call.tool,
        status: 'error',
        error: call.error,
      });
    }
  }
  const pending = plan.finalizeStep(id);
  plan.recordVerification(id, {
    verdict: 'failed',
    findings: options.findings ?? [
      ...pending.map((call) => ({
        check: 'ledger.pending',
        priority: 'P0' as const,
        status: 'fail' as const,
        message: `${call.tool} call ${call.callId} was never answered`,
      })),
    ],
  });
  plan.markStep(id, { status: 'failed', notes: options.notes ?? '[FAIL]: the tool call did not complete' });
}

/**
 * The example scenario: steps 0–4 completed with their tool history, step 5 failed with a
 * `write_file` call left `pending`, steps 6 and 7 not started.
 */
export function examplePlan(options: { fail?: boolean } = {}): Plan {
  const plan = Plan.create(
    { title: 'REST API', goal: 'Build a REST API for todos with passing tests', steps: exampleSteps },
    { id: 'example-plan', clock: tickingClock() },
  );
  for (const id of ['0', '1', '2', '3', '4']) completeStep(plan, id, exampleHistory[id]);
  if (options.fail ?? true) {
    failStep(plan, '5', {
      calls: [{ tool: 'write_file', args: { path: 'src/api.py', content: 'from flask import Flask\n' } }],
      notes: '[FAIL]: write_file never returned; src/api.py may not exist',
    });
  }
  return plan;
}

/** The tools of the example scenario, as model-facing specs. */
export const exampleTools: ToolSpec[] = [
  {
    name: 'read_file',
    description: 'Read a UTF-8 file of the workspace.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'write_file',
    description: 'Write a UTF-8 file of the workspace (creates parent folders).',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  {
    name: 'create_directory',
    description: 'Create a folder of the workspace.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
      additionalProperties: false,
    },
  },
];

/** A closedloop-style tool (zod input), to check that such tools are converted for the prompt. */
export const runCommandTool = {
  name: 'run_command',
  description: 'Run a command in the workspace and return its exit code and output.',
  input: z.object({
    command: z.string().describe('The command line'),
    timeoutMs: z.number().int().optional(),
  }),
};

/** The example redesign of steps 5, 6, 7 into three new steps. */
export const exampleRedesign = {
  action: 'redesign',
  steps: [
    {
      title: 'API skeleton',
      description: 'Create the API skeleton and routing in src/api.py',
      requiredTools: ['write_file'],
    },
    { description: 'Implement the business logic of each endpoint', requiredTools: ['write_file'] },
    {
      description: 'Write unit tests and run them',
      requiredTools: ['write_file', 'run_command'],
      successCriteria: ['pytest exits 0'],
    },
  ],
  dependencies: { '0': ['3', '4'], '1': [0], '2': [1] },
} as const;

/** The JSON text a model would answer with. */
export const answer = (value: unknown) => ({ text: JSON.stringify(value) });
