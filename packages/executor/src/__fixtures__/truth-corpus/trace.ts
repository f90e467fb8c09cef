import type { ScriptedToolCall, ScriptedTurn } from '@closedloop/model/testing';
import type { AnyTool } from '@closedloop/tools';
import type { TempWorkspace } from '@closedloop/tools/testing';
import type { VerifyStepOptions } from '@closedloop/verifier';
import type { ExecutionLimits } from '../../resolve-execute-options';

/**
 * One labelled step trace of the truth corpus, produced for real: a temp workspace (git or not),
 * a scripted model whose turns call the real workspace tools through `executeStep`, then
 * `verifyStep` against the step's baseline, exactly as cortex runs a step.
 */
export interface TruthTrace {
  /** Unique, `<class>-<n>`. */
  id: string;
  /** The class of behaviour (lying classes and their honest twins share it). */
  class: string;
  /** True when the step lies (it must be rejected); false for honest work (it must be accepted). */
  lie: boolean;
  /** The step's description, as the planner would write it. */
  description: string;
  /** Files before the step (committed when `git`). */
  files?: Record<string, string>;
  /** A git repository (default true). */
  git?: boolean;
  /** Runs after the files exist and before the step starts (earlier steps, remotes, stale outputs). */
  setup?: (ws: TempWorkspace) => Promise<void>;
  /** The model's turns: tool calls on the real tools, `mark_step`, text, or errors. */
  turns: ScriptedTurn[];
  /** Extra tools next to `workspaceTools`. */
  tools?: (root: string) => AnyTool[];
  limits?: ExecutionLimits;
  /** Verifier options (e.g. a shorter command timeout). */
  verify?: Pick<VerifyStepOptions, 'commandTimeoutMs' | 'allowCommand'>;
}

/** A trace before it gets its id. */
export type TraceInput = Omit<TruthTrace, 'id' | 'class' | 'lie'>;

/** A tool call. */
export const call = (name: string, args: Record<string, unknown> = {}): ScriptedToolCall => ({
  name,
  arguments: args,
});
/** One model response with tool calls. */
export const turn = (...calls: ScriptedToolCall[]): ScriptedTurn => ({ toolCalls: calls });
/** One model response with text only. */
export const say = (text: string): ScriptedTurn => ({ text });

export const write = (path: string, content: string) => call('write_file', { path, content });
export const edit = (path: string, old_string: string, new_string: string) =>
  call('edit_file', { path, old_string, new_string });
export const read = (path: string) => call('read_file', { path });
export const list = (path = '.') => call('list_dir', { path });
export const remove = (path: string) => call('delete_file', { path });
export const run = (...argv: string[]) => call('run_command', { argv });

/** `mark_step` with the notes' tag deciding the status. */
export const mark = (notes: string, claims?: Record<string, unknown>) =>
  call('mark_step', {
    status: /^\s*\[FAIL\]/.test(notes) ? 'fail' : 'success',
    notes,
    ...(claims ? { claims } : {}),
  });

/** Labels inputs of one class: `lie` or `honest`, ids in order. */
export function traces(
  klass: string,
  lies: readonly TraceInput[],
  honest: readonly TraceInput[],
): TruthTrace[] {
  return [
    ...lies.map((input, index) => ({ ...input, id: `${klass}-lie-${index + 1}`, class: klass, lie: true })),
    ...honest.map((input, index) => ({ ...input, id: `${klass}-ok-${index + 1}`, class: klass, lie: false })),
  ];
}

// ─── a small JavaScript project, used by many classes ──────────────────────────────────────────

export const PACKAGE_JSON = `${JSON.stringify({ name: 'demo', type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`;

export const IS_PRIME = `export function isPrime(n) {
  if (!Number.isInteger(n) || n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}
`;

export const IS_PRIME_BUGGY = `export function isPrime(n) {
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}
`;

export const IS_PRIME_TESTS = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPrime } from '../src/is-prime.js';

test('2 is prime', () => assert.equal(isPrime(2), true));
test('4 is not prime', () => assert.equal(isPrime(4), false));
test('17 is prime', () => assert.equal(isPrime(17), true));
test('1 is not prime', () => assert.equal(isPrime(1), false));
`;

/** package.json, a tested src/is-prime.js (correct or buggy) and its four tests. */
export const project = (isPrime = IS_PRIME): Record<string, string> => ({
  'package.json': PACKAGE_JSON,
  'src/is-prime.js': isPrime,
  'test/is-prime.test.js': IS_PRIME_TESTS,
});
