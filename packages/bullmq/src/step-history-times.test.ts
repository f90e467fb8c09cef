import { rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCortex, type RunEvent, type StepTask } from '@closedloop/cortex';
import { afterEach, describe, expect, it } from 'vitest';
import { scenarioSpec } from './__fixtures__/final-state';
import { effectFile, scenarioCortex } from './__fixtures__/scenario';
import type { RunSpec } from './step-jobs';

type PlanSnapshot = ReturnType<StepTask['snapshot']>;

const workspaces: string[] = [];
afterEach(() => {
  for (const workspace of workspaces.splice(0)) rmSync(workspace, { recursive: true, force: true });
});

const settings = { steps: 1, shape: 'wide', turnMs: 0 };
const gapMs = 5000;

/** The coordinator's snapshot of the run's one step, as it dispatches it (in_progress). */
async function dispatchSnapshot(spec: RunSpec): Promise<PlanSnapshot> {
  let snapshot: PlanSnapshot | undefined;
  const controller = new AbortController();
  await createCortex({
    ...scenarioCortex(spec),
    store: false,
    stepRunner: async (task) => {
      snapshot = JSON.parse(JSON.stringify(task.snapshot())) as PlanSnapshot;
      controller.abort(new Error('snapshot taken'));
      return { status: 'failed', notes: '[FAIL]: snapshot taken' };
    },
  }).run(spec.request, { signal: controller.signal });
  return snapshot!;
}

/**
 * A first attempt of step-1 that dies right after its edit is on record (its journal breaks at
 * the next event, as a SIGKILLed worker's would), its events moved `gapMs` into the past: the
 * attempt ran then, and the worker that continues it takes over now.
 */
async function killedAttempt(spec: RunSpec, plan: PlanSnapshot): Promise<RunEvent[]> {
  const history: RunEvent[] = [];
  let editDone = false;
  await expect(
    createCortex({ ...scenarioCortex(spec), store: false }).runStep({
      runId: 'run-1',
      request: spec.request,
      stepId: 'step-1',
      plan,
      journal: (event) => {
        if (editDone) throw new Error('killed');
        history.push(JSON.parse(JSON.stringify(event)) as RunEvent);
        const edit = history.find(
          (entry) => entry.type === 'tool-call-started' && entry.tool === 'edit_file',
        );
        if (
          edit !== undefined &&
          event.type === 'tool-call-finished' &&
          event.callId === (edit as { callId: string }).callId
        )
          editDone = true;
      },
    }),
  ).rejects.toMatchObject({ code: 'store-failed' });
  expect(editDone).toBe(true);
  return history.map((event) => ({ ...event, at: event.at - gapMs }));
}

/** Sets a workspace file's times to `atMs` (epoch ms). */
const touchAt = (workspace: string, file: string, atMs: number) =>
  utimesSync(join(workspace, file), atMs / 1000, atMs / 1000);

describe('a step continued from the history of a killed attempt (cortex.runStep with history)', () => {
  it("judges file times from the first attempt's calls: the killed attempt's edit is the step's effect", async () => {
    const spec = scenarioSpec(settings, 'closedloop-history-');
    workspaces.push(spec.workspace!);
    const plan = await dispatchSnapshot(spec);
    const history = await killedAttempt(spec, plan);
    const edit = history.find((event) => event.type === 'tool-call-started' && event.tool === 'edit_file')!;
    // The files were written when the (moved) first attempt ran.
    touchAt(spec.workspace!, 'out/step-1.txt', history[0]!.at + 1);
    touchAt(spec.workspace!, effectFile('step-1'), edit.at + 1);

    const { outcome, events } = await createCortex({ ...scenarioCortex(spec), store: false }).runStep({
      runId: 'run-1',
      request: spec.request,
      stepId: 'step-1',
      plan,
      history,
      journal: () => {},
    });
    expect(outcome.status, JSON.stringify(events.filter((event) => event.type === 'step-verified'))).toBe(
      'completed',
    );
  });

  it("a file none of the step's attempts changed is still not its effect, whatever its times say", async () => {
    const spec = scenarioSpec(settings, 'closedloop-history-');
    workspaces.push(spec.workspace!);
    const plan = await dispatchSnapshot(spec);
    const history = await killedAttempt(spec, plan);
    const edit = history.find((event) => event.type === 'tool-call-started' && event.tool === 'edit_file')!;
    // The effect file holds again what it held before the step's edit (the journal's dispatch
    // snapshot says what that was), though its times fall inside the killed attempt's edit.
    writeFileSync(join(spec.workspace!, effectFile('step-1')), '# step-1\n');
    touchAt(spec.workspace!, 'out/step-1.txt', history[0]!.at + 1);
    touchAt(spec.workspace!, effectFile('step-1'), edit.at + 1);

    // The resume sees that the file no longer holds what the recorded edit left and asks; the
    // human lets the step go on with the file as it is, and verification judges it by content.
    const asked: string[] = [];
    const { outcome, events } = await createCortex({
      ...scenarioCortex(spec),
      store: false,
      onApproval: (request) => {
        asked.push(request.reason);
        return { approved: true };
      },
    }).runStep({
      runId: 'run-1',
      request: spec.request,
      stepId: 'step-1',
      plan,
      history,
      journal: () => {},
    });
    expect(asked).toEqual([expect.stringMatching(/effects\/step-1\.txt was changed after edit_file/)]);
    expect(outcome.status).toBe('failed');
    const verified = events.filter((event) => event.type === 'step-verified');
    expect(JSON.stringify(verified)).toMatch(
      /effects\/step-1\.txt exists but did not change since the step started/,
    );
  });
});
