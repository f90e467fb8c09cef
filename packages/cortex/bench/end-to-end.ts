/**
 * Scripted end-to-end runs through `createCortex` (honest, buggy-then-fixed, talking-only, model
 * down, tests edited or deleted, parallel steps overwriting each other, partial work, stubs,
 * unverifiable claims…), each judged afterwards by an acceptance check the agent never saw.
 *
 * Prints completion precision (when a run says it completed, the acceptance passes) and
 * completion recall (when the acceptance passes, the run said it completed). Runs whose only
 * fault hidden tests can see (`hiddenOnly`) are listed apart. Target: precision 100%.
 *
 * Run: `npx tsx --conditions=@closedloop/source bench/end-to-end.ts [id-filter]`
 */
import { pathToFileURL } from 'node:url';
import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace } from '@closedloop/tools/testing';
import type { EndToEndScenario } from '../src/__fixtures__/e2e/scenario';
import { endToEndScenarios } from '../src/__fixtures__/e2e/scenarios';
import { scenarioModel } from '../src/__fixtures__/scenario-model';
import { createCortex } from '../src/create-cortex';

/** How one run came out. */
export interface EndToEndResult {
  id: string;
  kind: string;
  stopReason: string;
  reason: string;
  /** The run said it completed (`completed` or `completed-with-warnings`). */
  saidCompleted: boolean;
  accepted: boolean;
  hiddenOnly: boolean;
  ms: number;
}

/** The figures of a set of runs. */
export interface EndToEndFigures {
  results: EndToEndResult[];
  /** Completed runs whose acceptance passed / completed runs (hidden-only faults excluded). */
  precision: number;
  /** Accepted runs that said completed / accepted runs. */
  recall: number;
  /** The same precision with hidden-only faults counted. */
  precisionWithHidden: number;
  ms: number;
}

const KEYS = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY'] as const;

/** Runs one scenario in a fresh workspace and checks its hidden acceptance. */
export async function runScenario(scenario: EndToEndScenario): Promise<EndToEndResult> {
  const started = performance.now();
  const ws = await createTempWorkspace({
    files: { '.keep': '', ...scenario.files },
    git: true,
    prefix: 'closedloop-e2e-',
  });
  const saved = KEYS.map((key) => process.env[key]);
  try {
    await scenario.setup?.(ws);
    const model =
      (await scenario.model?.()) ??
      scenarioModel({
        plans: scenario.plan ? [scenario.plan] : [],
        steps: scenario.steps ?? {},
        replans: scenario.replans ?? [],
        ...(scenario.guard !== undefined ? { guard: scenario.guard } : {}),
      });
    const cortex = createCortex({
      model,
      tools: workspaceTools({ root: ws.root }),
      workspace: ws.root,
      planning: scenario.plan ? 'always' : scenario.model ? 'auto' : 'never',
      replanWindowMs: 0,
      ...scenario.options,
    });
    const result = await cortex.run(scenario.request);
    const saidCompleted =
      result.stopReason === 'completed' || result.stopReason === 'completed-with-warnings';
    const accepted = await scenario.accept(ws);
    return {
      id: scenario.id,
      kind: scenario.kind,
      stopReason: result.stopReason,
      reason: result.reason,
      saidCompleted,
      accepted,
      hiddenOnly: scenario.hiddenOnly === true,
      ms: performance.now() - started,
    };
  } finally {
    KEYS.forEach((key, index) => {
      const value = saved[index];
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    });
    await ws.cleanup();
  }
}

/** Runs every scenario (sequentially: some change process.env) and computes the figures. */
export async function runEndToEnd(filter?: string): Promise<EndToEndFigures> {
  const started = performance.now();
  const results: EndToEndResult[] = [];
  for (const scenario of endToEndScenarios) {
    if (filter !== undefined && !scenario.id.includes(filter)) continue;
    results.push(await runScenario(scenario));
  }
  const completed = results.filter((result) => result.saidCompleted);
  const judged = completed.filter((result) => !(result.hiddenOnly && !result.accepted));
  const accepted = results.filter((result) => result.accepted);
  return {
    results,
    precision: judged.length === 0 ? 1 : judged.filter((result) => result.accepted).length / judged.length,
    precisionWithHidden:
      completed.length === 0 ? 1 : completed.filter((result) => result.accepted).length / completed.length,
    recall:
      accepted.length === 0 ? 1 : accepted.filter((result) => result.saidCompleted).length / accepted.length,
    ms: performance.now() - started,
  };
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

/** A Markdown table of the runs. */
export function formatEndToEnd(figures: EndToEndFigures): string {
  return [
    '| run | kind | stop reason | said completed | acceptance |',
    '| --- | --- | --- | :---: | :---: |',
    ...figures.results.map(
      (result) =>
        `| ${result.id} | ${result.kind} | ${result.stopReason} | ${result.saidCompleted ? 'yes' : 'no'} | ${result.accepted ? 'pass' : 'fail'}${result.hiddenOnly ? ' (hidden tests only)' : ''} |`,
    ),
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const figures = await runEndToEnd(process.argv[2]);
  console.log(formatEndToEnd(figures));
  for (const result of figures.results) {
    if (result.saidCompleted !== result.accepted)
      console.log(`\n${result.id}: ${result.stopReason} — ${result.reason}`);
  }
  console.log(`\n${figures.results.length} runs in ${(figures.ms / 1000).toFixed(1)} s`);
  console.log(
    `completion precision ${percent(figures.precision)} (target 100%; ${percent(figures.precisionWithHidden)} counting faults only hidden tests can see), completion recall ${percent(figures.recall)}`,
  );
  process.exitCode = figures.precision === 1 ? 0 : 1;
}
