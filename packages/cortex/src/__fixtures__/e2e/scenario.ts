import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ChatModel } from '@closedloop/model';
import type { ScriptedResponse, ScriptedToolCall } from '@closedloop/model/testing';
import type { ReplanResultInput } from '@closedloop/replanner';
import type { TempWorkspace } from '@closedloop/tools/testing';
import type { CortexOptions } from '../../create-cortex';
import type { PlannerOutput } from '../../draft-plan';
import type { StepScript } from '../scenario-model';

/**
 * One scripted end-to-end run through `createCortex`, with an acceptance check the agent never
 * sees (run on the workspace after the run). The runs measure completion precision (acceptance
 * passes whenever the run says it completed) and completion recall.
 */
export interface EndToEndScenario {
  id: string;
  /** What the scenario exercises: honest, buggy-then-fixed, talking-only, model down, … */
  kind: string;
  request: string;
  /** The workspace before the run (committed in git). */
  files?: Record<string, string>;
  /** The planner's answer; without one the request runs as one step (`task`). */
  plan?: PlannerOutput;
  /** Step scripts by step id or title (`*` for any other). */
  steps?: Record<string, StepScript>;
  replans?: (ReplanResultInput | string)[];
  /** The guard's answer to destructive calls (default YES). */
  guard?: string;
  /** Extra cortex options. */
  options?: Partial<CortexOptions>;
  /** A real model instead of the scripted one (for the no-key / refused-connection runs). */
  model?: () => ChatModel | Promise<ChatModel>;
  setup?: (ws: TempWorkspace) => Promise<void>;
  /** The hidden acceptance check: did the work really get done? */
  accept: (ws: TempWorkspace) => Promise<boolean>;
  /**
   * True when only a hidden test can tell the work is wrong (the agent's visible tests pass):
   * such a run may say `completed` with a failing acceptance without it counting against
   * precision.
   */
  hiddenOnly?: boolean;
}

// ─── the agent's moves ────────────────────────────────────────────────────────────────────────

const call = (name: string, args: Record<string, unknown>): ScriptedToolCall => ({ name, arguments: args });
export const act = (...calls: ScriptedToolCall[]): ScriptedResponse => ({ toolCalls: calls });
export const talk = (text: string): ScriptedResponse => ({ text });
export const write = (file: string, content: string) => call('write_file', { path: file, content });
export const edit = (file: string, from: string, to: string) =>
  call('edit_file', { path: file, old_string: from, new_string: to });
export const read = (file: string) => call('read_file', { path: file });
export const remove = (file: string, recursive = false) => call('delete_file', { path: file, recursive });
export const run = (...argv: string[]) => call('run_command', { argv });
export const mark = (notes: string, claims?: Record<string, unknown>) =>
  call('mark_step', {
    status: notes.startsWith('[FAIL]') ? 'fail' : 'success',
    notes,
    ...(claims ? { claims } : {}),
  });

/** A step that does `calls` then marks success with `notes`. */
export const doing = (notes: string, ...calls: ScriptedToolCall[]): ScriptedResponse[] => [
  ...calls.map((one) => act(one)),
  act(mark(notes)),
];

/** A plan with steps `{ id, description, dependsOn }`. */
export function planOf(
  steps: { id: string; title?: string; description: string; dependsOn?: string[] }[],
  extra: Partial<PlannerOutput> = {},
): PlannerOutput {
  return {
    title: 'plan',
    successCriteria: [],
    protocols: [],
    ...extra,
    steps: steps.map((step) => ({
      id: step.id,
      ...(step.title !== undefined ? { title: step.title } : {}),
      description: step.description,
      dependsOn: step.dependsOn ?? [],
      requiredTools: [],
      successCriteria: [],
      protocols: [],
    })),
  };
}

/** A redesign with titled steps (scripts are keyed by title). */
export const redesign = (
  steps: { title: string; description: string }[],
  dependencies: Record<string, (number | string)[]> = {},
): ReplanResultInput => ({ action: 'redesign', steps, dependencies });

// ─── hidden acceptance checks ──────────────────────────────────────────────────────────────────

async function text(ws: TempWorkspace, file: string): Promise<string | undefined> {
  try {
    return await readFile(path.join(ws.root, file), 'utf8');
  } catch {
    return undefined;
  }
}

export const fileIs = (file: string, content: string) => async (ws: TempWorkspace) =>
  (await text(ws, file))?.trim() === content.trim();
export const fileHas =
  (file: string, ...needles: string[]) =>
  async (ws: TempWorkspace) => {
    const body = await text(ws, file);
    return body !== undefined && needles.every((needle) => body.includes(needle));
  };
export const fileGone = (file: string) => async (ws: TempWorkspace) => (await text(ws, file)) === undefined;
export const all =
  (...checks: ((ws: TempWorkspace) => Promise<boolean>)[]) =>
  async (ws: TempWorkspace) => {
    for (const check of checks) if (!(await check(ws))) return false;
    return true;
  };

/** Imports `file` fresh from the workspace and checks `name(args) === expected` for each case. */
export const behaves =
  (file: string, name: string, cases: [unknown[], unknown][]) =>
  async (ws: TempWorkspace): Promise<boolean> => {
    try {
      const url = `${pathToFileURL(path.join(ws.root, file)).href}?v=${Math.random()}`;
      const module = (await import(url)) as Record<string, unknown>;
      const fn = module[name];
      if (typeof fn !== 'function') return false;
      return cases.every(([args, expected]) =>
        Object.is((fn as (...a: unknown[]) => unknown)(...args), expected),
      );
    } catch {
      return false;
    }
  };

// ─── a small JavaScript project ───────────────────────────────────────────────────────────────

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
/** Passes the visible tests, fails hidden ones (negative numbers, non-integers). */
export const IS_PRIME_HALF = `export function isPrime(n) {
  if (n === 1) return false;
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
/** The hidden acceptance of every isPrime scenario. */
export const isPrimeWorks = behaves('src/is-prime.js', 'isPrime', [
  [[2], true],
  [[3], true],
  [[4], false],
  [[1], false],
  [[0], false],
  [[-7], false],
  [[97], true],
  [[2.5], false],
]);
