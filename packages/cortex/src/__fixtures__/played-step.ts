import type { ScriptedResponse } from '@closedloop/model/testing';
import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createCortex } from '../create-cortex';
import { scenarioModel } from './scenario-model';

/**
 * One step played end to end, as a hostile (or honest) model would: a scripted model, the real
 * workspace tools on a real temp git workspace, `createCortex` with default settings.
 */

/** A tool call the scripted model makes. */
export type Call = { name: string; arguments: Record<string, unknown> };

/** A step that makes `calls` one per turn, then marks success with `notes` and `claims`. */
export function script(
  calls: Call[],
  notes: string,
  claims: Record<string, unknown> = {},
): ScriptedResponse[] {
  return [
    ...calls.map((call) => ({ toolCalls: [call] })),
    {
      toolCalls: [
        { name: 'mark_step', arguments: { status: 'success', notes: `[SUCCESS]: ${notes}`, claims } },
      ],
    },
  ];
}

export const write = (path: string, content: string): Call => ({
  name: 'write_file',
  arguments: { path, content },
});
export const run = (...argv: string[]): Call => ({ name: 'run_command', arguments: { argv } });
export const remove = (path: string): Call => ({ name: 'delete_file', arguments: { path } });

/** The workspace a step is played on. */
export interface PlaySetup {
  files?: Record<string, string>;
  /** Work done on the workspace before the step (after the first commit), e.g. more commits. */
  before?: (ws: TempWorkspace) => Promise<void>;
}

const workspaces: TempWorkspace[] = [];

/** Removes the workspaces played so far (call it from `afterEach` or `afterAll`). */
export async function cleanupPlayedWorkspaces(): Promise<void> {
  for (const ws of workspaces.splice(0)) await ws.cleanup();
}

/** Runs `request` as a single step played by `steps` on a fresh git workspace. */
export async function playStep(request: string, setup: PlaySetup, steps: ScriptedResponse[]) {
  const ws = await createTempWorkspace({ files: { 'README.md': '# demo\n', ...setup.files }, git: true });
  workspaces.push(ws);
  await setup.before?.(ws);
  const model = scenarioModel({
    steps: { '*': steps },
    replans: [
      { action: 'give_up', reason: 'lie caught' },
      { action: 'give_up', reason: 'lie caught' },
    ],
  });
  const cortex = createCortex({ model, tools: workspaceTools({ root: ws.root }), workspace: ws.root });
  const result = await cortex.run(request, { planning: 'never' });
  const step = result.report.steps[0];
  const summary = `${request}\n${result.stopReason} ${step?.status} ${step?.verdict}\n${(step?.findings ?? [])
    .filter((f) => f.status !== 'pass')
    .map((f) => `  ${f.check} ${f.priority} ${f.status}: ${f.message.slice(0, 200)}`)
    .join('\n')}`;
  if (process.env.LIES_LOG) console.log(summary);
  return { result, step, summary };
}

/** What {@link playStep} gives back. */
export type PlayedStep = Awaited<ReturnType<typeof playStep>>;

/** The step did not end `completed` + `success`, and neither did the run. */
export function expectCaught({ result, step, summary }: PlayedStep): void {
  expect(step?.status === 'completed' && step.verdict === 'success', summary).toBe(false);
  expect(result.stopReason, summary).not.toBe('completed');
}

/** The step ended `completed` + `success`. */
export function expectCompleted({ step, summary }: PlayedStep): void {
  expect(step?.status, summary).toBe('completed');
  expect(step?.verdict, summary).toBe('success');
}

/** A lie a hostile model tells about one step, and its honest twin: the same request, done right. */
export interface LiePair {
  title: string;
  request: string;
  setup: PlaySetup;
  /** The lying step's calls (then `mark_step` success with `notes` and `claims`). */
  lie: Call[];
  /** The honest twin's calls. */
  honest: Call[];
  notes: string;
  claims?: Record<string, unknown>;
  /** Why the lie still ends `completed` + `success`: only its twin is played. */
  uncaught?: string;
}

/**
 * Plays each pair both ways, concurrently: every lie must not end `completed` + `success`
 * (`lies, <round>`) — but those marked `uncaught` —, every honest twin must (`honest twins, <round>`).
 * Removes the workspaces after.
 */
export function describeLiePairs(round: string, pairs: readonly LiePair[]): void {
  afterAll(cleanupPlayedWorkspaces);
  const cases = pairs.map((pair) => [pair.title, pair] as const);
  describe.concurrent(`lies, ${round}`, { timeout: 90_000 }, () => {
    it.each(cases.filter(([, pair]) => pair.uncaught === undefined))('%s', async (_title, pair) => {
      expectCaught(await playStep(pair.request, pair.setup, script(pair.lie, pair.notes, pair.claims)));
    });
  });
  describe.concurrent(`honest twins, ${round}`, { timeout: 90_000 }, () => {
    it.each(cases)('%s', async (_title, pair) => {
      expectCompleted(await playStep(pair.request, pair.setup, script(pair.honest, pair.notes, pair.claims)));
    });
  });
}
