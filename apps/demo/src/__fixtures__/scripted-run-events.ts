import type { RunEvent } from '@closedloop/cortex';
import type { Step, StepDraft } from '@closedloop/plan';

type StepDraftOut = Required<Pick<StepDraft, 'id' | 'title' | 'description'>> & {
  dependsOn: string[];
  requiredTools: string[];
  successCriteria: string[];
  protocols: string[];
};

const usage = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  totalTokens: inputTokens + outputTokens,
});

function draft(id: string, title: string, description: string, dependsOn: string[]): StepDraftOut {
  return { id, title, description, dependsOn, requiredTools: [], successCriteria: [], protocols: [] };
}

/**
 * A recorded-style event sequence of the offline isPrime scenario, shaped like cortex's real
 * stream: a 4-step plan; `write-impl` claims `src/is-prime.ts` without writing it, the verifier's
 * file-exists check fails it, and the replanner replaces it and its downstream `run-tests` with
 * two new steps; `write-tests` completes unverified, so the run ends `completed-with-warnings`.
 * `at` is filled in when the event is emitted.
 */
export function scriptedRunEvents(options: { runId: string; request: string }): RunEvent[] {
  const { runId, request } = options;
  const planId = `plan-${runId}`;
  let seq = 0;
  const events: RunEvent[] = [];
  const at = 0;
  const plan = <T extends object>(event: T) => {
    events.push({ ...event, planId, seq: seq++, at, runId } as unknown as RunEvent);
  };
  const emit = <T extends object>(event: T) => {
    events.push({ ...event, runId, at } as unknown as RunEvent);
  };
  let calls = 0;
  const modelTurn = (stepId: string, iteration: number, toolCalls: number) => {
    emit({ type: 'model-call-started', stepId, iteration, purpose: 'turn', streaming: false });
    emit({
      type: 'model-call-finished',
      stepId,
      iteration,
      purpose: 'turn',
      usage: usage(900 + iteration * 130, 60 + toolCalls * 40),
      finishReason: toolCalls ? 'tool-calls' : 'stop',
      toolCalls,
      durationMs: 420,
    });
    emit({
      type: 'usage-recorded',
      purpose: 'step',
      stepId,
      usage: usage(900 + iteration * 130, 60),
      costUsd: 0.0011,
    });
  };
  const toolCall = (
    stepId: string,
    tool: string,
    args: unknown,
    outcome: { status: 'success'; result: string } | { status: 'error'; error: string },
  ) => {
    const callId = `call_${++calls}`;
    plan({ type: 'tool-call-started', stepId, callId, generatedId: false, tool, args });
    plan({ type: 'tool-call-finished', stepId, callId, ...outcome });
  };
  const finishStep = (
    stepId: string,
    verdict: 'success' | 'failed' | 'unverified',
    findings: Array<{
      check: string;
      priority: 'P0' | 'P1' | 'P2';
      status: 'pass' | 'fail' | 'warn';
      message: string;
    }>,
  ) => {
    plan({ type: 'step-finalized', stepId, pendingCallIds: [] });
    const unverified = verdict === 'unverified';
    plan({ type: 'step-verified', stepId, verification: { verdict, unverified, findings } });
    for (const finding of findings) {
      if (finding.status !== 'pass') emit({ type: 'finding-reported', scope: 'step', stepId, finding });
    }
    const status = verdict === 'failed' ? 'failed' : 'completed';
    plan({ type: 'step-marked', stepId, status, previousStatus: 'in_progress' });
    emit({ type: 'step-finished', stepId, status, verdict, unverified, durationMs: 1800 });
  };
  const startStep = (stepId: string) => {
    emit({ type: 'step-started', stepId, attempt: 1 });
    plan({ type: 'step-marked', stepId, status: 'in_progress', previousStatus: 'not_started' });
  };
  const markStep = (stepId: string, notes: string, filesWritten: string[]) => {
    const claims = { filesWritten, filesDeleted: [], symbolsAdded: [], commandsPassed: [] };
    toolCall(
      stepId,
      'mark_step',
      { notes, claims: { filesWritten } },
      { status: 'success', result: 'recorded' },
    );
    plan({ type: 'step-marked', stepId, notes, claims, files: filesWritten });
  };

  const steps = [
    draft('inspect', 'Inspect the workspace', 'List the project files and read package.json.', []),
    draft('write-impl', 'Write isPrime', 'Create src/is-prime.ts exporting isPrime(n).', ['inspect']),
    draft('write-tests', 'Write the tests', 'Create test/is-prime.test.ts with edge cases.', ['inspect']),
    draft('run-tests', 'Run the tests', 'Run the test suite and make it pass.', [
      'write-impl',
      'write-tests',
    ]),
  ];

  emit({ type: 'run-started', request, resumed: false });
  plan({ type: 'plan-created', title: 'isPrime with tests', goal: request, steps });
  emit({
    type: 'plan-drafted',
    planId,
    source: 'planner',
    successCriteria: ['src/is-prime.ts exports isPrime', 'the tests pass'],
    protocols: ['TEST'],
    attempts: 1,
  });
  emit({ type: 'usage-recorded', purpose: 'planner', usage: usage(1200, 310), costUsd: 0.0024 });

  startStep('inspect');
  modelTurn('inspect', 1, 1);
  toolCall(
    'inspect',
    'list_dir',
    { path: '.' },
    { status: 'success', result: 'package.json\nsrc/\ntest/\ntsconfig.json' },
  );
  modelTurn('inspect', 2, 1);
  toolCall(
    'inspect',
    'read_file',
    { path: 'package.json' },
    {
      status: 'success',
      result: '{\n  "name": "workspace",\n  "type": "module",\n  "scripts": { "test": "node --test" }\n}',
    },
  );
  modelTurn('inspect', 3, 1);
  markStep('inspect', '[SUCCESS]: an ESM package with src/ and test/; tests run with node --test.', []);
  finishStep('inspect', 'success', [
    { check: 'ledger.pending', priority: 'P0', status: 'pass', message: 'every tool call was answered' },
    { check: 'notes.status', priority: 'P0', status: 'pass', message: 'notes start with [SUCCESS]' },
  ]);

  startStep('write-impl');
  startStep('write-tests');
  modelTurn('write-impl', 1, 1);
  toolCall(
    'write-impl',
    'read_file',
    { path: 'src/index.ts' },
    { status: 'error', error: 'ENOENT: src/index.ts does not exist' },
  );
  modelTurn('write-tests', 1, 1);
  toolCall(
    'write-tests',
    'write_file',
    {
      path: 'test/is-prime.test.ts',
      content: "import { isPrime } from '../src/is-prime.ts';\n// 0, 1, 2, 17, 18, 7919 …",
    },
    { status: 'success', result: 'wrote 412 bytes to test/is-prime.test.ts' },
  );
  modelTurn('write-impl', 2, 1);
  markStep('write-impl', '[SUCCESS]: wrote src/is-prime.ts with isPrime(n).', ['src/is-prime.ts']);
  finishStep('write-impl', 'failed', [
    { check: 'ledger.pending', priority: 'P0', status: 'pass', message: 'every tool call was answered' },
    {
      check: 'claims.file-exists',
      priority: 'P0',
      status: 'fail',
      message: 'claimed file src/is-prime.ts does not exist in the workspace',
    },
    { check: 'ledger.tool-errors', priority: 'P1', status: 'warn', message: 'read_file failed: ENOENT' },
  ]);
  modelTurn('write-tests', 2, 1);
  markStep('write-tests', '[SUCCESS]: wrote test/is-prime.test.ts.', ['test/is-prime.test.ts']);
  finishStep('write-tests', 'unverified', [
    { check: 'claims.file-exists', priority: 'P0', status: 'pass', message: 'test/is-prime.test.ts exists' },
    {
      check: 'ast.typecheck',
      priority: 'P2',
      status: 'warn',
      message: 'could not typecheck: the import ../src/is-prime.ts does not resolve yet',
    },
  ]);

  emit({ type: 'replan-requested', failed: ['write-impl'], reason: 'step-failed', batch: 1 });
  emit({ type: 'usage-recorded', purpose: 'replanner', usage: usage(1500, 260), costUsd: 0.0027 });
  const added: Step[] = [
    {
      ...draft(
        'write-impl-2',
        'Write isPrime (write_file)',
        'Write src/is-prime.ts with write_file, then read it back.',
        ['inspect'],
      ),
      requiredTools: ['write_file'],
      status: 'not_started',
      notes: '',
      files: [],
      ledger: [],
      previousAttempts: [],
      replanAttempts: 1,
      replaces: ['write-impl'],
    },
    {
      ...draft('run-tests-2', 'Run the tests', 'Run node --test and make it pass.', [
        'write-impl-2',
        'write-tests',
      ]),
      status: 'not_started',
      notes: '',
      files: [],
      ledger: [],
      previousAttempts: [],
      replanAttempts: 1,
      replaces: ['run-tests'],
    },
  ];
  plan({
    type: 'replan-applied',
    failed: ['write-impl'],
    removed: ['write-impl', 'run-tests'],
    added,
    insertAt: 1,
  });
  emit({
    type: 'replan-finished',
    failed: ['write-impl'],
    reason: 'step-failed',
    batch: 1,
    action: 'redesign',
    added: ['write-impl-2', 'run-tests-2'],
    removed: ['write-impl', 'run-tests'],
  });

  startStep('write-impl-2');
  modelTurn('write-impl-2', 1, 1);
  toolCall(
    'write-impl-2',
    'write_file',
    {
      path: 'src/is-prime.ts',
      content:
        'export function isPrime(n: number): boolean {\n  if (n < 2) return false;\n  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;\n  return true;\n}\n',
    },
    { status: 'success', result: 'wrote 164 bytes to src/is-prime.ts' },
  );
  modelTurn('write-impl-2', 2, 1);
  markStep('write-impl-2', '[SUCCESS]: src/is-prime.ts now exists and exports isPrime.', ['src/is-prime.ts']);
  finishStep('write-impl-2', 'success', [
    { check: 'claims.file-exists', priority: 'P0', status: 'pass', message: 'src/is-prime.ts exists' },
    {
      check: 'ast.symbol',
      priority: 'P1',
      status: 'pass',
      message: 'src/is-prime.ts exports function isPrime',
    },
    { check: 'required-tools', priority: 'P0', status: 'pass', message: 'write_file succeeded' },
  ]);

  startStep('run-tests-2');
  modelTurn('run-tests-2', 1, 1);
  toolCall(
    'run-tests-2',
    'run_command',
    { argv: ['node', '--test'] },
    { status: 'success', result: 'exit 0\n# tests 6\n# pass 6\n# fail 0' },
  );
  modelTurn('run-tests-2', 2, 1);
  markStep('run-tests-2', '[SUCCESS]: node --test passes (6 tests).', []);
  finishStep('run-tests-2', 'success', [
    { check: 'protocol.TEST', priority: 'P0', status: 'pass', message: 'node --test exited 0' },
  ]);

  emit({
    type: 'goal-verified',
    iteration: 1,
    assessment: 'warnings-only',
    verdict: 'success-with-warnings',
    findings: [
      { check: 'protocol.TEST', priority: 'P0', status: 'pass', message: 'node --test exited 0' },
      {
        check: 'step.unverified',
        priority: 'P2',
        status: 'warn',
        message: 'write-tests was not typechecked',
      },
    ],
  });
  emit({
    type: 'iteration-finished',
    iteration: 1,
    maxIterations: 3,
    decision: 'stop',
    stopReason: 'completed-with-warnings',
    progressed: true,
    reason: 'goal checks pass; one step output is unverified',
  });
  emit({ type: 'usage-recorded', purpose: 'aggregate', usage: usage(800, 120), costUsd: 0.0013 });
  emit({
    type: 'run-finished',
    stopReason: 'completed-with-warnings',
    reason: 'Every step completed and the tests pass; write-tests is unverified (P2).',
    answer:
      'Added src/is-prime.ts exporting isPrime(n) and test/is-prime.test.ts (6 cases). node --test passes. The first attempt claimed the file without writing it; the verifier caught that and the step was redesigned.',
    answerSource: 'model',
  });
  return events;
}
