import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { random } from './__fixtures__/random';
import { bundleChild, runNode } from './__fixtures__/spawn-child';
import { createJsonlRunStore } from './jsonl-run-store';
import { isRunEventOf } from './run-events';

const here = dirname(fileURLToPath(import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'cortex-fanout-kills-'));
let child: string[] = [];
beforeAll(async () => {
  child = await bundleChild(join(here, '__fixtures__', 'fanout-kill-child.ts'), 'fanout-kill-child');
}, 60_000);
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  if (child.length === 1) rmSync(child[0]!, { force: true });
});

interface Answer {
  stopReason?: string;
  statuses?: Record<string, string>;
  answer?: string;
  asked?: string[];
  error?: string;
}

function world(name: string) {
  const dir = join(scratch, name);
  const root = join(dir, 'ws');
  mkdirSync(root, { recursive: true });
  return { STORE_DIR: join(dir, 'store'), ROOT: root, RUN_ID: `run-${name}` };
}

/** The lines of appends.txt, sorted (the fan-out's order is not fixed). */
function appends(root: string): string[] {
  return readFileSync(join(root, 'appends.txt'), 'utf8').trim().split('\n').sort();
}

const expected = { stopReason: 'completed', statuses: { a: 'completed', b: 'completed', c: 'completed' } };

describe('kill -9 in a fan-out of non-idempotent calls (concurrency 2, fsync journal)', () => {
  it('uninterrupted: every step appends once', async () => {
    const env = world('reference');
    const run = await runNode(child, env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout) as Answer).toMatchObject({
      ...expected,
      answer: 'appended every step',
      asked: ['c appends to appends.txt'],
    });
    expect(appends(env.ROOT)).toEqual(['a', 'b', 'c']);
  }, 30_000);

  it('killed after b appended while a was still running: a and b each append once', async () => {
    const env = world('confounded');
    const first = await runNode(child, { ...env, KILL: 'after-effect:b', APPEND_DELAY_MS: '300' });
    expect(first.signal, first.stderr).toBe('SIGKILL');
    const resumed = await runNode(child, { ...env, PHASE: 'resume' });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout) as Answer).toMatchObject(expected);
    expect(appends(env.ROOT)).toEqual(['a', 'b', 'c']);
  }, 30_000);

  it("killed after b's verification re-ran its build while a was still running: a appends once", async () => {
    const env = { ...world('verified-meanwhile'), STEP_TOOL: 'build-b' };
    const first = await runNode(child, {
      ...env,
      KILL: 'after-type:step-verified/1',
      APPEND_DELAY_MS: '1500',
    });
    expect(first.signal, first.stderr).toBe('SIGKILL');
    const resumed = await runNode(child, { ...env, PHASE: 'resume' });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout) as Answer).toMatchObject(expected);
    expect(appends(env.ROOT)).toEqual(['a', 'c']);
  }, 30_000);
});

/**
 * Kills a run with `kill`, resumes it (killed again at `resumeKill` when given) until a resume
 * finishes, and checks it against the uninterrupted run: completed, each step's append once,
 * the same answer, and every step completed in the journal verified as passed before.
 */
async function trial(
  name: string,
  kill: string,
  resumeKill?: string,
  extra: Record<string, string> = {},
): Promise<{ killed: boolean; asked: number }> {
  const env = { ...world(name), ...extra };
  const context = `${name}: KILL=${kill}${resumeKill === undefined ? '' : `, then ${resumeKill} in the resume`}`;
  const first = await runNode(child, { ...env, KILL: kill, APPEND_DELAY_MS: '50' });
  expect(first.signal === 'SIGKILL' || first.code === 0, `${context}: ${first.stderr}`).toBe(true);
  let last = first;
  let asked = 0;
  if (first.signal === 'SIGKILL') {
    if (resumeKill !== undefined) {
      const resumed = await runNode(child, { ...env, PHASE: 'resume', KILL: resumeKill });
      expect(resumed.signal === 'SIGKILL' || resumed.code === 0, `${context}: ${resumed.stderr}`).toBe(true);
      if (resumed.code === 0) asked += (JSON.parse(resumed.stdout) as Answer).asked?.length ?? 0;
    }
    last = await runNode(child, { ...env, PHASE: 'resume' });
  }
  expect(last.code, `${context}: ${last.stderr}`).toBe(0);
  const answer = JSON.parse(last.stdout) as Answer;
  asked += answer.asked?.length ?? 0;
  expect(answer, context).toMatchObject({ ...expected, answer: 'appended every step' });
  expect(appends(env.ROOT), `${context}: an append was lost or repeated`).toEqual(['a', 'b', 'c']);
  const store = createJsonlRunStore({ dir: env.STORE_DIR });
  const events = await store.read(env.RUN_ID);
  await store.close();
  const verified = new Set<string>();
  for (const event of events) {
    if (
      event.type === 'step-verified' &&
      ['success', 'success-with-warnings'].includes(event.verification.verdict)
    )
      verified.add(event.stepId);
    if (event.type === 'step-marked' && event.status === 'completed') {
      expect(
        verified.has(event.stepId),
        `${context}: ${event.stepId} completed without a passed verification`,
      ).toBe(true);
    }
  }
  expect(events.filter(isRunEventOf('run-finished')).length, context).toBe(1);
  return { killed: first.signal === 'SIGKILL', asked };
}

describe("kill -9 at the fan-out's kill points, resumed to the uninterrupted end", () => {
  it('between an append and its record, during the final answer, while a human is asked, in a torn or unsynced group commit', async () => {
    const points = [
      'after-effect:a',
      'after-effect:b',
      'after-effect:c',
      'on-aggregate',
      'on-approval',
      'torn-journal:2',
      'torn-journal:4',
      'torn-journal:7',
      'in-fsync:4',
      'in-fsync:6',
    ];
    let killed = 0;
    for (let index = 0; index < points.length; index += 2) {
      const outcomes = await Promise.all(
        points.slice(index, index + 2).map(async (kill) => {
          const outcome = await trial(`point-${kill.replace(':', '-')}`, kill);
          if (!outcome.killed) console.log(`not killed: ${kill}`);
          return outcome;
        }),
      );
      killed += outcomes.filter((outcome) => outcome.killed).length;
    }
    expect(killed, `killed in ${killed} of ${points.length}`).toBe(points.length);
  }, 60_000);

  it('after any journaled event, and a second time in the resume (8 seeded trials)', async () => {
    const seed = Number(process.env.CRASH_SEED ?? 20_261_128);
    const next = random(seed);
    let killed = 0;
    for (let index = 0; index < 8; index += 2) {
      const outcomes = await Promise.all(
        [index, index + 1].map((number) => {
          const at = 1 + Math.floor(next() * 60);
          const again = 1 + Math.floor(next() * 12);
          return trial(
            `random-${number}`,
            `after-event:${at}`,
            number % 2 === 0 ? `after-event:${again}` : undefined,
          );
        }),
      );
      killed += outcomes.filter((outcome) => outcome.killed).length;
    }
    expect(killed, `seed ${seed}`).toBeGreaterThanOrEqual(6);
  }, 90_000);

  it('with real run_command appends (sandbox off), killed after any journaled event (4 seeded trials)', async () => {
    const seed = Number(process.env.CRASH_SEED ?? 20_261_129);
    const next = random(seed);
    let killed = 0;
    for (let index = 0; index < 4; index += 2) {
      const outcomes = await Promise.all(
        [index, index + 1].map((number) =>
          trial(`command-${number}`, `after-event:${1 + Math.floor(next() * 60)}`, undefined, {
            STEP_TOOL: 'command',
          }),
        ),
      );
      killed += outcomes.filter((outcome) => outcome.killed).length;
    }
    expect(killed, `seed ${seed}`).toBeGreaterThanOrEqual(3);
  }, 90_000);
});
