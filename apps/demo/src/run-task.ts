import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type ApprovalHandler,
  type Cortex,
  CortexError,
  createCortex,
  createJsonlRunStore,
  createRunId,
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
  /** Answers approvals (the CLI's flags or prompt, the web UI's buttons). Default: none (denied). */
  onApproval?: ApprovalHandler;
}

/** What a journal holds, and what is wrong with it when it is damaged. */
export interface RunInspection {
  /** Whether a journal file exists for the run. */
  exists: boolean;
  /** The intact events (all of them when nothing is wrong). */
  events: RunEvent[];
  /** The typed error a resume would hit (`journal-empty`, `journal-truncated`, …). */
  problem?: CortexError;
}

/** Runs, resumes and reads demo runs; shared by the CLI and the web server. */
export interface DemoRunner {
  startRun(input: StartRunInput): Promise<StartedRun>;
  resumeRun(input: {
    runId: string;
    signal: AbortSignal;
    onEvent: (event: RunEvent) => void;
    onApproval?: ApprovalHandler;
  }): Promise<StartedRun>;
  /** Every journaled event of a run, or `undefined` when the journal has no such run. */
  readRun(runId: string): Promise<RunEvent[] | undefined>;
  /** The journal's intact events and its damage, for `report`. */
  inspectRun(runId: string): Promise<RunInspection>;
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

  async function cortexFor(
    runOptions: RunOptions,
    workspace: string,
    onEvent: (event: RunEvent) => void,
    onApproval: ApprovalHandler | undefined,
  ) {
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
      onUncertain: runOptions.onUncertain ?? 'ask',
      ...(onApproval ? { onApproval } : {}),
    }) satisfies Cortex;
  }

  return {
    async startRun(input) {
      const runOptions: RunOptions = { ...options, mode: input.mode };
      const workspace = runOptions.workspace
        ? resolve(runOptions.workspace)
        : mkdtempSync(join(tmpdir(), 'closedloop-demo-'));
      await mkdir(workspace, { recursive: true });
      const cortex = await cortexFor(runOptions, workspace, input.onEvent, input.onApproval);
      const task = input.task ?? (runOptions.provider === 'scripted' ? isPrimeTask : undefined);
      if (!task)
        throw new CliUsageError('Give a task: closedloop run "<task>" (the scripted demo has its own).');
      // What resume needs is on disk before the run journals anything: a crash at any moment
      // leaves a run that `resume` can find.
      const runId = createRunId();
      await mkdir(journal, { recursive: true });
      const meta: DemoRunMeta = { workspace, options: runOptions };
      writeFileSync(metaPath(journal, runId), `${JSON.stringify(meta, null, 2)}\n`);
      const stream = cortex.events(task, { signal: input.signal, runId });
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
      // How approvals and uncertain calls are handled is the resuming command line's choice.
      const cortex = await cortexFor(
        {
          ...meta.options,
          journal: options.journal,
          approval: options.approval,
          onUncertain: options.onUncertain,
        },
        meta.workspace,
        input.onEvent,
        input.onApproval,
      );
      if (options.repair) await store.repair(input.runId);
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

    async inspectRun(runId) {
      const { exists, events, problem } = await store.inspect(runId);
      if (!exists && (await store.readMeta(runId)) !== undefined) {
        const missing = new CortexError({
          code: 'journal-missing',
          message: `Run "${runId}" has metadata but its journal ${store.pathOf(runId)} is missing: its events are gone.`,
          details: { runId },
        });
        return { exists, events, problem: missing };
      }
      return { exists, events, ...(problem ? { problem } : {}) };
    },
  };
}
