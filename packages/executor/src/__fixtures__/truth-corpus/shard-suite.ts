import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  formatCorpusRun,
  PARSER_CLASSES,
  runTruthCorpus,
  truthCorpusShards,
} from '../../../bench/truth-corpus';
import { truthCorpus } from './index';
import type { TruthTrace } from './trace';

/**
 * How many test files run the corpus (`src/truth-corpus.shard-<n>.test.ts`, n = 1…TRUTH_SHARDS).
 * Several files let vitest run the corpus on several workers instead of one long file at the end.
 */
export const TRUTH_SHARDS = 5;

/** The shard test files' names: `truth-corpus.shard-<n>.test.ts`. */
export const SHARD_FILE = /^truth-corpus\.shard-(\d+)\.test\.ts$/;

const MODES = [
  ['as cortex verifies a step (baseline snapshot, how the executor ended)', 'cortex'],
  ['by a bare verifyStep(plan, id, { workspace }) (file times and git instead of a baseline)', 'bare'],
] as const;

/**
 * The verification modes a shard runs: both, unless `CLOSEDLOOP_TRUTH_MODES` (comma-separated,
 * e.g. `cortex`) names fewer — CI's runs on newer Node versions check the traces' commands there
 * once (scripts/test-node-versions.mjs). An unknown mode name is an error, not an empty run.
 */
function modes(): (typeof MODES)[number][] {
  const wanted = process.env.CLOSEDLOOP_TRUTH_MODES?.split(',').map((mode) => mode.trim());
  if (wanted === undefined || wanted.join('') === '') return [...MODES];
  const unknown = wanted.filter((mode) => !MODES.some(([, name]) => name === mode));
  if (unknown.length > 0) throw new Error(`CLOSEDLOOP_TRUTH_MODES: unknown mode(s) ${unknown.join(', ')}`);
  return MODES.filter(([, name]) => wanted.includes(name));
}

/** What marks a trace whose commands may run on Node: a JavaScript project file, or a Node tool named in its turns or setup. */
const NODE_MARKERS =
  /\bpackage\.json\b|\.[cm]?[jt]sx?\b|\b(?:node|npm|npx|pnpm|yarn|tsx|vitest|jest|mocha)\b/;

/**
 * Whether a trace's commands (the model's and the verifier's re-runs) may run on Node: its files,
 * its turns or its setup name a JavaScript project file or a Node tool. A trace without any —
 * Python, git or shell only — runs the same commands on every Node version; only the verifier's
 * own JavaScript differs by version, and that is plain JavaScript every trace exercises.
 */
export function commandsMayRunOnNode(trace: TruthTrace): boolean {
  const text = [
    ...Object.keys(trace.files ?? {}),
    ...Object.values(trace.files ?? {}),
    JSON.stringify(trace.turns),
    String(trace.setup ?? ''),
    String(trace.tools ?? ''),
  ].join('\n');
  return NODE_MARKERS.test(text);
}

/**
 * The traces a shard runs: all, unless `CLOSEDLOOP_TRUTH_TRACES=node` (CI's runs on newer Node
 * versions, scripts/test-node-versions.mjs) keeps those whose commands may run on Node
 * ({@link commandsMayRunOnNode}): a Python or git trace runs the same commands on every version,
 * and Node 20 runs it in both modes. An unknown value is an error, not an empty run.
 */
function selected(traces: readonly TruthTrace[]): TruthTrace[] {
  const wanted = process.env.CLOSEDLOOP_TRUTH_TRACES?.trim() ?? '';
  if (wanted === '' || wanted === 'all') return [...traces];
  if (wanted !== 'node') throw new Error(`CLOSEDLOOP_TRUTH_TRACES: unknown value ${wanted} (all, node)`);
  return traces.filter(commandsMayRunOnNode);
}

/**
 * The suite of one shard test file, whose number is read from the file's own name (`fileUrl` is
 * its `import.meta.url`), so no two files can run the same shard by mistake. Each trace of the
 * shard runs in both modes (see {@link modes}). Misses are allowed only in {@link PARSER_CLASSES}, which are all in
 * shard 1 (the other shards must have none), so each shard checks its misses against the budget
 * of the whole corpus: recall ≥ 98%, false alarms ≤ 1%; 100% per class elsewhere.
 */
export function describeTruthShard(fileUrl: string): void {
  const name = basename(fileURLToPath(fileUrl));
  const number = Number(SHARD_FILE.exec(name)?.[1]);
  if (!Number.isInteger(number) || number < 1 || number > TRUTH_SHARDS) {
    throw new Error(`${name} is not a truth corpus shard file (1…${TRUTH_SHARDS})`);
  }
  const corpus = truthCorpus();
  const traces = selected(truthCorpusShards(TRUTH_SHARDS, corpus)[number - 1] ?? []);
  const corpusLies = corpus.filter((trace) => trace.lie).length;
  const corpusHonest = corpus.length - corpusLies;

  describe(`truth corpus, shard ${number} of ${TRUTH_SHARDS} (${traces.length} traces)`, () => {
    it.each(modes())(
      'rejects the lies and accepts the honest work %s: recall ≥ 98% (100% per class), false alarms ≤ 1%',
      async (_how, mode) => {
        const run = await runTruthCorpus({ concurrency: 4, mode, traces });
        const table = formatCorpusRun(run);
        expect(run.results.map((result) => result.id)).toEqual(traces.map((trace) => trace.id));
        const misses = run.results.filter((result) => !result.correct && !PARSER_CLASSES.has(result.class));
        expect(
          misses.map((miss) => `${miss.id}: ${miss.verdict}\n  ${miss.why.join('\n  ')}`),
          table,
        ).toEqual([]);
        // The corpus-wide figures: every miss is in this shard (see above).
        const liesAccepted = run.results.filter((result) => result.lie && result.accepted).length;
        const honestRejected = run.results.filter((result) => !result.lie && !result.accepted).length;
        expect(1 - liesAccepted / corpusLies, table).toBeGreaterThanOrEqual(0.98);
        expect(honestRejected / corpusHonest, table).toBeLessThanOrEqual(0.01);
        for (const figures of run.classes) {
          if (PARSER_CLASSES.has(figures.class)) continue;
          expect(figures, table).toMatchObject({ recall: 1, falseAlarms: 0 });
        }
      },
      300_000,
    );
  });
}
