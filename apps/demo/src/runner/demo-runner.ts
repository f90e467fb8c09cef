import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  type ApprovalHandler,
  CortexError,
  createCortex,
  createJsonlRunStore,
  createRunId,
  isResumableStop,
  type RunEvent,
  type RunResult,
  type UncertainCallPolicy,
} from '@closedloop/cortex';
import type { ToolCallGuard } from '@closedloop/executor';
import type { ChatModel } from '@closedloop/model';
import { createCommandRunner, workspaceTools } from '@closedloop/tools';
import { DemoError } from '../demo-error';
import { createIsPrimeScenarioModel, isPrimeTask } from '../scenario/is-prime-scenario';
import {
  createStepChangeRecorder,
  readStepChanges,
  type StepChanges,
} from '../workspace-changes/step-change-recorder';
import { checkJournalOutsideWorkspace, ensureFolder } from './ensure-folder';
import {
  describeSelection,
  type ModelInfo,
  type ModelSelection,
  noModelMessage,
  resolveModel,
} from './select-model';
import { writeFileDurably } from './write-durably';

/** How a step may act: `single` = at most one successful tool round per step, `auto` = several. */
export type RunMode = 'single' | 'auto';

/** Settings of {@link createDemoRunner}. */
export interface DemoRunnerOptions {
  /** Folder of the run journals (`<runId>.jsonl`) and of the demo's notes beside them. */
  journal: string;
  /** Where runs work; default: a fresh temp folder per run. */
  workspace?: string | undefined;
  /** The model of typed tasks; `undefined`: typed tasks are refused (the demo scenario still runs). */
  model?: ModelSelection | undefined;
  concurrency?: number;
  maxIterations?: number;
  budgetTokens?: number | undefined;
  /** API keys and `CLOSEDLOOP_DEMO_LATENCY_MS` (the scripted model's pace). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Test seam: the chat model of typed tasks, instead of resolving `model`. */
  chatModel?: ChatModel;
  /** Test seam: a tool-call guard for every step (e.g. one that asks a human). */
  guard?: ToolCallGuard;
  /** What resume does with a command interrupted without a recorded result. Default `ask`. */
  onUncertain?: UncertainCallPolicy;
}

/** Input of {@link DemoRunner.startRun}. */
export interface StartRunInput {
  /** The user's task; `undefined` runs the offline isPrime scenario on its scripted model. */
  task?: string | undefined;
  mode: RunMode;
  signal: AbortSignal;
  /** Every event of the run as it happens, live-only deltas included. */
  onEvent: (event: RunEvent) => void;
  /** Answers the run's approval requests; without one every request is denied. */
  onApproval?: ApprovalHandler | undefined;
}

/** Input of {@link DemoRunner.resumeRun}. */
export interface ResumeRunInput {
  runId: string;
  signal: AbortSignal;
  onEvent: (event: RunEvent) => void;
  onApproval?: ApprovalHandler | undefined;
  /** Drop a torn last journal line first (`--repair`). */
  repair?: boolean | undefined;
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

/** A started run: its id at once, its result when it stops. */
export interface StartedRun {
  runId: string;
  workspace: string;
  model: ModelInfo;
  result: Promise<RunResult>;
}

/** What the demo knows about a journaled run besides its events. */
export interface RunInfo {
  runId: string;
  workspace: string;
  model: ModelInfo;
  /** The offline scenario (scripted model) rather than a typed task. */
  demo: boolean;
}

/** Runs, resumes and reads demo runs; shared by the CLI and the web server. */
export interface DemoRunner {
  /** The journal folder (absolute). */
  readonly journal: string;
  /** The model typed tasks run on, `null` when none is configured. */
  readonly model: ModelInfo | null;
  startRun(input: StartRunInput): Promise<StartedRun>;
  /** Continues an interrupted run (cancelled, deadline, budget, crash) from its journal. */
  resumeRun(input: ResumeRunInput): Promise<StartedRun>;
  /** Every journaled event of a run, or `undefined` when the journal has no such run. */
  readRun(runId: string): Promise<RunEvent[] | undefined>;
  /** The journal's intact events and its damage, for `report`. */
  inspectRun(runId: string): Promise<RunInspection>;
  describeRun(runId: string): Promise<RunInfo | undefined>;
  /** The recorded workspace changes of a step, one entry per run of the step. */
  readStepChanges(runId: string, stepId: string): Promise<StepChanges[]>;
}

/** What the demo keeps beside a run's journal so `resume` can rebuild the same cortex. */
interface DemoRunMeta {
  workspace: string;
  demo: boolean;
  model: ModelInfo;
  /** For typed tasks: the selection (never a key), resolved again on resume. */
  selection?: ModelSelection;
  settings: { mode: RunMode; concurrency: number; maxIterations: number; budgetTokens?: number };
}

const scriptedModelInfo = (model: ChatModel): ModelInfo => ({
  provider: model.provider,
  modelId: model.modelId,
});

/**
 * Creates the runner: the model of the selection (or the offline isPrime scenario for
 * `task: undefined`), workspace tools confined to the workspace, a JSONL journal, streamed model
 * text, and a recorder of each step's workspace changes.
 */
export function createDemoRunner(options: DemoRunnerOptions): DemoRunner {
  const env = options.env ?? process.env;
  const latency = env.CLOSEDLOOP_DEMO_LATENCY_MS;
  const scriptedLatencyMs =
    latency === undefined || Number.isNaN(Number(latency)) ? undefined : Number(latency);
  const journal = resolve(options.journal);
  const store = createJsonlRunStore({ dir: journal });
  const metaPath = (runId: string) => join(journal, `${runId}.demo.json`);
  const changesDir = (runId: string) => join(journal, `${runId}.changes`);
  const typedModel: ModelInfo | null = options.chatModel
    ? scriptedModelInfo(options.chatModel)
    : options.model
      ? describeSelection(options.model)
      : null;

  const readMeta = (runId: string): DemoRunMeta | undefined => {
    try {
      return JSON.parse(readFileSync(metaPath(runId), 'utf8')) as DemoRunMeta;
    } catch {
      return undefined;
    }
  };

  function cortexFor(input: {
    model: ChatModel;
    meta: DemoRunMeta;
    onEvent: (event: RunEvent) => void;
    onApproval?: ApprovalHandler | undefined;
  }) {
    const { settings, workspace } = input.meta;
    let recorder: ReturnType<typeof createStepChangeRecorder> | undefined;
    // One runner for the tools and the verifier: one command policy, one sandbox. A journal kept
    // in the workspace is read-only to commands (a forged one would be trusted on resume).
    const runner = createCommandRunner({ root: workspace, sandbox: { readOnly: [journal] } });
    return createCortex({
      model: input.model,
      tools: workspaceTools({ root: workspace, runner }),
      workspace,
      runner,
      planning: 'always',
      executor: { mode: settings.mode, stream: true, ...(options.guard ? { guard: options.guard } : {}) },
      concurrency: settings.concurrency,
      maxIterations: settings.maxIterations,
      ...(settings.budgetTokens === undefined ? {} : { budget: { maxTokens: settings.budgetTokens } }),
      store,
      onUncertain: options.onUncertain ?? 'ask',
      onEvent: (event) => {
        recorder ??= createStepChangeRecorder({ workspace, dir: changesDir(event.runId) });
        recorder.observe(event);
        input.onEvent(event);
      },
      ...(input.onApproval ? { onApproval: input.onApproval } : {}),
    });
  }

  async function modelFor(meta: Pick<DemoRunMeta, 'demo' | 'selection'>): Promise<ChatModel> {
    if (meta.demo) return createIsPrimeScenarioModel({ latencyMs: scriptedLatencyMs });
    if (options.chatModel) return options.chatModel;
    if (!meta.selection) throw new DemoError('no-model', noModelMessage());
    return resolveModel(meta.selection, env);
  }

  return {
    journal,
    model: typedModel,

    async startRun(input) {
      const demo = input.task === undefined;
      if (!demo && typedModel === null) throw new DemoError('no-model', noModelMessage());
      const model = await modelFor({ demo, ...(options.model ? { selection: options.model } : {}) });
      const workspace = options.workspace
        ? ensureFolder(options.workspace, '--workspace')
        : mkdtempSync(join(tmpdir(), 'closedloop-demo-'));
      ensureFolder(journal, '--journal');
      checkJournalOutsideWorkspace(journal, workspace);
      const meta: DemoRunMeta = {
        workspace,
        demo,
        model: scriptedModelInfo(model),
        ...(!demo && options.model ? { selection: options.model } : {}),
        settings: {
          mode: input.mode,
          concurrency: options.concurrency ?? 4,
          maxIterations: options.maxIterations ?? 3,
          ...(options.budgetTokens === undefined ? {} : { budgetTokens: options.budgetTokens }),
        },
      };
      const cortex = cortexFor({ model, meta, onEvent: input.onEvent, onApproval: input.onApproval });
      // What resume needs is on disk before the run journals anything: a crash at any moment
      // leaves a run that `resume` can find.
      const runId = createRunId();
      writeFileDurably(metaPath(runId), `${JSON.stringify(meta, null, 2)}\n`);
      const stream = cortex.events(input.task ?? isPrimeTask, { signal: input.signal, runId });
      // Drain the stream so events flow; `onEvent` already receives them.
      void (async () => {
        for await (const _ of stream);
      })().catch(() => undefined);
      return { runId: stream.runId, workspace, model: meta.model, result: stream.result };
    },

    async resumeRun(input) {
      const meta = readMeta(input.runId);
      if (!meta) {
        const runs = await store.list().catch(() => []);
        throw new DemoError(
          'unknown-run',
          `No run "${input.runId}" in ${journal}. Runs there: ${runs.join(', ') || 'none'}.`,
        );
      }
      checkJournalOutsideWorkspace(journal, meta.workspace);
      if (input.repair) await store.repair(input.runId);
      // Leniently: a damaged journal is for cortex.resume to judge (it may repair a torn tail
      // left by a crashed owner, or refuse with a typed error).
      const { events } = await store.inspect(input.runId);
      const finished = events.findLast((event) => event.type === 'run-finished');
      if (finished && !isResumableStop(finished.stopReason)) {
        throw new DemoError(
          'not-resumable',
          `Run "${input.runId}" stopped for good (${finished.stopReason}); only cancelled, deadline, budget-exhausted or crashed runs resume.`,
        );
      }
      const model = await modelFor(meta);
      const cortex = cortexFor({ model, meta, onEvent: input.onEvent, onApproval: input.onApproval });
      return {
        runId: input.runId,
        workspace: meta.workspace,
        model: meta.model,
        result: cortex.resume(input.runId, { signal: input.signal }),
      };
    },

    async readRun(runId) {
      const events = await store.read(runId).catch(() => []);
      return events.length > 0 ? events : undefined;
    },

    async inspectRun(runId) {
      const { exists, events, problem } = await store.inspect(runId);
      if (!exists && readMeta(runId) !== undefined) {
        const missing = new CortexError({
          code: 'journal-missing',
          message: `Run "${runId}" has metadata but its journal ${store.pathOf(runId)} is missing: its events are gone.`,
          details: { runId },
        });
        return { exists, events, problem: missing };
      }
      return { exists, events, ...(problem ? { problem } : {}) };
    },

    async describeRun(runId) {
      const meta = readMeta(runId);
      return meta ? { runId, workspace: meta.workspace, model: meta.model, demo: meta.demo } : undefined;
    },

    async readStepChanges(runId, stepId) {
      return readStepChanges(changesDir(runId), stepId);
    },
  };
}
