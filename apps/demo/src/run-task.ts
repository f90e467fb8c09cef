import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type Cortex,
  createCortex,
  createJsonlRunStore,
  type RunEvent,
  type RunResult,
} from '@closedloop/cortex';
import { workspaceTools } from '@closedloop/tools';
import { CliUsageError, type RunOptions } from './cli-options';
import { resolveModel } from './resolve-model';
import { createIsPrimeScenarioModel, isPrimeTask } from './scenario/is-prime-scenario';

/** What the demo keeps beside a run's journal so `resume` can rebuild the same cortex. */
interface DemoRunMeta {
  workspace: string;
  options: RunOptions;
}

/** A started run: its id at once, its result when it stops. */
export interface StartedRun {
  runId: string;
  workspace: string;
  result: Promise<RunResult>;
}

/** Input of {@link DemoRunner.startRun}. */
export interface StartRunInput {
  task?: string;
  mode: 'single' | 'auto';
  signal: AbortSignal;
  onEvent: (event: RunEvent) => void;
}

/** Runs, resumes and reads demo runs; shared by the CLI and the web server. */
export interface DemoRunner {
  startRun(input: StartRunInput): Promise<StartedRun>;
  resumeRun(input: {
    runId: string;
    signal: AbortSignal;
    onEvent: (event: RunEvent) => void;
  }): Promise<StartedRun>;
  /** Every journaled event of a run, or `undefined` when the journal has no such run. */
  readRun(runId: string): Promise<RunEvent[] | undefined>;
}

function metaPath(journal: string, runId: string): string {
  return join(journal, `${runId}.demo.json`);
}

/**
 * Creates the runner for the given CLI options: the model from `--provider` (the offline
 * isPrime scenario by default), workspace tools confined to a fresh temp folder (or
 * `--workspace`), and a JSONL journal under `--journal`.
 */
export function createDemoRunner(options: RunOptions, env: NodeJS.ProcessEnv = process.env): DemoRunner {
  const latency = env.CLOSEDLOOP_DEMO_LATENCY_MS;
  const scriptedLatencyMs =
    latency === undefined || Number.isNaN(Number(latency)) ? undefined : Number(latency);
  const journal = resolve(options.journal);
  const store = createJsonlRunStore({ dir: journal });

  async function cortexFor(runOptions: RunOptions, workspace: string, onEvent: (event: RunEvent) => void) {
    const model =
      (await resolveModel(runOptions, env)) ?? createIsPrimeScenarioModel({ latencyMs: scriptedLatencyMs });
    return createCortex({
      model,
      tools: workspaceTools({ root: workspace }),
      workspace,
      planning: 'always',
      executor: { mode: runOptions.mode },
      concurrency: runOptions.concurrency,
      maxIterations: runOptions.maxIterations,
      ...(runOptions.budgetTokens === undefined ? {} : { budget: { maxTokens: runOptions.budgetTokens } }),
      store,
      onEvent,
    }) satisfies Cortex;
  }

  return {
    async startRun(input) {
      const runOptions: RunOptions = { ...options, mode: input.mode };
      const workspace = runOptions.workspace
        ? resolve(runOptions.workspace)
        : mkdtempSync(join(tmpdir(), 'closedloop-demo-'));
      await mkdir(workspace, { recursive: true });
      const cortex = await cortexFor(runOptions, workspace, input.onEvent);
      const task = input.task ?? (runOptions.provider === 'scripted' ? isPrimeTask : undefined);
      if (!task)
        throw new CliUsageError('Give a task: closedloop run "<task>" (the scripted demo has its own).');
      const stream = cortex.events(task, { signal: input.signal });
      await mkdir(journal, { recursive: true });
      const meta: DemoRunMeta = { workspace, options: runOptions };
      writeFileSync(metaPath(journal, stream.runId), `${JSON.stringify(meta, null, 2)}\n`);
      // Drain the stream so events flow; `onEvent` already receives them.
      void (async () => {
        for await (const _ of stream);
      })().catch(() => undefined);
      return { runId: stream.runId, workspace, result: stream.result };
    },

    async resumeRun(input) {
      let meta: DemoRunMeta;
      try {
        meta = JSON.parse(readFileSync(metaPath(journal, input.runId), 'utf8')) as DemoRunMeta;
      } catch {
        throw new CliUsageError(
          `No run "${input.runId}" in ${journal}. Runs there: ${(await store.list()).join(', ') || 'none'}.`,
        );
      }
      const cortex = await cortexFor(
        { ...meta.options, journal: options.journal },
        meta.workspace,
        input.onEvent,
      );
      return {
        runId: input.runId,
        workspace: meta.workspace,
        result: cortex.resume(input.runId, { signal: input.signal }),
      };
    },

    async readRun(runId) {
      const events = await store.read(runId).catch(() => []);
      return events.length > 0 ? events : undefined;
    },
  };
}
