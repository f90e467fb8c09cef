import type { ChatModel, GenerateRequest } from '@closedloop/model';
import { ScriptedModel, type ScriptedResponse, textTurn, toolCallTurn } from '@closedloop/model/testing';

/** The task the offline demo runs (seed 003's isPrime example). */
export const isPrimeTask =
  'Build a small JavaScript module src/is-prime.js exporting isPrime(n), with node:test tests: ' +
  '2 → true, 4 → false, 17 → true, 1 → false.';

const packageJson = `${JSON.stringify(
  { name: 'is-prime', version: '1.0.0', type: 'module', scripts: { test: 'node --test' } },
  null,
  2,
)}\n`;

/** The redesigned implementation still has a bug: 1 is reported prime. The tests catch it. */
const buggyIsPrime = `/** True when n is a prime number. */
export function isPrime(n) {
  for (let divisor = 2; divisor * divisor <= n; divisor++) {
    if (n % divisor === 0) return false;
  }
  return true;
}
`;

const isPrimeTests = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPrime } from '../src/is-prime.js';

test('2 is prime', () => assert.equal(isPrime(2), true));
test('4 is not prime', () => assert.equal(isPrime(4), false));
test('17 is prime', () => assert.equal(isPrime(17), true));
test('1 is not prime', () => assert.equal(isPrime(1), false));
`;

const plannerAnswer = {
  title: 'isPrime module with tests',
  successCriteria: ['src/is-prime.js exports isPrime', 'node --test exits 0 with the four isPrime cases'],
  protocols: ['TEST'],
  steps: [
    {
      id: 'scaffold',
      title: 'Create package.json',
      description: 'Create package.json for an ES module package whose test script is "node --test".',
      requiredTools: ['write_file'],
    },
    {
      id: 'implement',
      title: 'Write isPrime',
      description: 'Write src/is-prime.js exporting isPrime(n).',
      dependsOn: ['scaffold'],
    },
    {
      id: 'write-tests',
      title: 'Write the tests',
      description:
        'Write test/is-prime.test.js with node:test cases: 2 → true, 4 → false, 17 → true, 1 → false.',
      dependsOn: ['scaffold'],
      requiredTools: ['write_file'],
    },
    {
      id: 'run-tests',
      title: 'Run the tests',
      description: 'Run the test suite with node --test and report the result.',
      dependsOn: ['implement', 'write-tests'],
    },
  ],
};

/** The notes of each scripted mark_step turn, for the summary turn (tools off) of `single` mode. */
const markedNotes = new Map<ScriptedResponse, string>();
const markStep = (status: 'success' | 'fail', notes: string, claims: Record<string, unknown> = {}) => {
  const response = toolCallTurn('mark_step', { status, notes, claims });
  markedNotes.set(response, `[${status === 'success' ? 'SUCCESS' : 'FAIL'}]: ${notes}`);
  return response;
};

/**
 * What the scripted "model" does in each step, turn by turn (turn = assistant messages so far).
 * Keyed by the step's title, since redesigned steps get ids from the plan.
 */
const stepScripts: Record<string, ScriptedResponse[]> = {
  'Create package.json': [
    toolCallTurn('write_file', { path: 'package.json', content: packageJson }),
    markStep('success', 'Created package.json with "type": "module" and a node --test script.', {
      filesWritten: ['package.json'],
    }),
  ],
  // The hallucination: claims a file it never wrote (no write_file call).
  'Write isPrime': [
    markStep('success', 'Created src/is-prime.js with an isPrime(n) function.', {
      filesWritten: ['src/is-prime.js'],
      symbolsAdded: [{ file: 'src/is-prime.js', name: 'isPrime', kind: 'function' }],
    }),
  ],
  'Write the tests': [
    toolCallTurn('write_file', { path: 'test/is-prime.test.js', content: isPrimeTests }),
    markStep('success', 'Wrote test/is-prime.test.js with the four cases.', {
      filesWritten: ['test/is-prime.test.js'],
    }),
  ],
  'Write isPrime with write_file': [
    toolCallTurn('write_file', { path: 'src/is-prime.js', content: buggyIsPrime }),
    markStep('success', 'Wrote src/is-prime.js exporting isPrime.', {
      filesWritten: ['src/is-prime.js'],
      symbolsAdded: [{ file: 'src/is-prime.js', name: 'isPrime', kind: 'function' }],
    }),
  ],
  // The second false claim: the tests fail (1 is reported prime) but the step says they pass.
  'Run the tests': [
    toolCallTurn('run_command', { argv: ['node', '--test'] }),
    markStep('success', 'All tests pass.', { commandsPassed: [{ argv: ['node', '--test'] }] }),
  ],
  'Fix isPrime for n < 2': [
    toolCallTurn('edit_file', {
      path: 'src/is-prime.js',
      old_string: 'export function isPrime(n) {\n',
      new_string: 'export function isPrime(n) {\n  if (!Number.isInteger(n) || n < 2) return false;\n',
    }),
    markStep('success', 'isPrime now returns false for numbers below 2.', {
      filesWritten: ['src/is-prime.js'],
    }),
  ],
  'Run the tests again': [
    toolCallTurn('run_command', { argv: ['node', '--test'] }),
    markStep('success', 'node --test exits 0: 4 tests pass.', {
      commandsPassed: [{ argv: ['node', '--test'] }],
    }),
  ],
};

function text(request: GenerateRequest, index: number): string {
  const message = request.messages[index];
  return message && 'content' in message ? message.content : '';
}

function respondToStep(request: GenerateRequest): ScriptedResponse {
  const prompt = text(request, 1);
  const title = /^# Your step: \S+ — (.+)$/m.exec(prompt)?.[1]?.trim() ?? '';
  const script = stepScripts[title];
  const turn = request.messages.filter((message) => message.role === 'assistant').length;
  // The summary turn after `single` mode's one tool round has tools off: answer with the notes.
  if (request.toolChoice === 'none') {
    const notes = script?.map((response) => markedNotes.get(response)).find((found) => found !== undefined);
    return textTurn(notes ?? `[FAIL]: the scripted demo has no summary for step "${title}".`);
  }
  const response = script?.[turn];
  if (!response) return textTurn(`[FAIL]: the scripted demo has no turn ${turn} for step "${title}".`);
  return response;
}

function respondToReplan(request: GenerateRequest): ScriptedResponse {
  const prompt = text(request, 1);
  const failedSection = prompt.split('## Failed steps')[1]?.split('\n## ')[0] ?? '';
  if (/### Step implement\b/.test(failedSection)) {
    return textTurn(
      JSON.stringify({
        action: 'redesign',
        steps: [
          {
            title: 'Write isPrime with write_file',
            description: 'Write src/is-prime.js exporting isPrime(n), actually calling write_file.',
            requiredTools: ['write_file'],
          },
          {
            title: 'Run the tests',
            description: 'Run the test suite with node --test and report the result.',
          },
        ],
        dependencies: { '0': ['scaffold'], '1': [0, 'write-tests'] },
      }),
    );
  }
  const implementation = /### Step (\S+): Write isPrime with write_file/.exec(prompt)?.[1] ?? 'implement';
  return textTurn(
    JSON.stringify({
      action: 'redesign',
      steps: [
        {
          title: 'Fix isPrime for n < 2',
          description:
            'node --test fails: isPrime(1) returned true. Edit src/is-prime.js so numbers below 2 are not prime.',
          requiredTools: ['edit_file'],
        },
        {
          title: 'Run the tests again',
          description: 'Run node --test; it must exit 0.',
          requiredTools: ['run_command'],
        },
      ],
      dependencies: { '0': [implementation, 'write-tests'], '1': [0] },
    }),
  );
}

/** Tells the planner, executor, replanner, guard and aggregator calls apart by their system prompts. */
function respond(request: GenerateRequest): ScriptedResponse {
  const system = text(request, 0);
  // The default tool-call guard asks about destructive calls (run_command, overwrites): they match the task.
  if (system.startsWith('You verify a tool call')) return textTurn('YES: the call matches the step.');
  if (system.startsWith('You are the planner')) return textTurn(JSON.stringify(plannerAnswer));
  if (system.startsWith('You are the replanner')) return respondToReplan(request);
  if (request.tools?.some((tool) => tool.name === 'mark_step')) return respondToStep(request);
  return textTurn(
    'Built src/is-prime.js exporting isPrime(n) and test/is-prime.test.js. The verifier caught two false ' +
      'claims (a file that was never written, tests that did not pass); both were replanned, and node --test now passes.',
  );
}

/**
 * The offline demo model: a scripted model that plays planner, executor, replanner and
 * aggregator for {@link isPrimeTask}, including two false claims the verifier must catch.
 */
export function createIsPrimeScenarioModel(options: { latencyMs?: number } = {}): ChatModel {
  const latencyMs = options.latencyMs ?? 250;
  if (latencyMs === 0) {
    return new ScriptedModel({
      modelId: 'scripted-is-prime',
      capabilities: { structuredOutput: false },
      matchers: [{ match: () => true, respond }],
    });
  }
  return new ScriptedModel({
    modelId: 'scripted-is-prime',
    latencyMs: () => latencyMs * (0.5 + Math.random()),
    capabilities: { structuredOutput: false },
    matchers: [{ match: () => true, respond }],
  });
}
