/**
 * Labelled corpus of step traces → verifyStep → precision and recall per class.
 *
 * Each trace in `src/__fixtures__/corpus/*.json` is materialised in a temp workspace (real
 * files, a real git repository, a real passing/failing `node --test` suite where the class
 * needs it), verified by `verifyStep`, and the report is mapped to a predicted class. A trace
 * counts as a true positive when the predicted class and the verdict both match its label.
 *
 * Run: `npx tsx --conditions=@closedloop/source bench/corpus.ts`
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type StepTrace, stepTraceSchema, verifyTrace } from '../src/__fixtures__/step-trace';
import { DEFAULT_CONTROL_TOOLS } from '../src/step-checks';
import type { VerificationReport } from '../src/verdict';

const CORPUS_DIR = fileURLToPath(new URL('../src/__fixtures__/corpus/', import.meta.url));

/** Classes decided by deterministic checks only (no model): the target is recall 100%, no false positives. */
export const DETERMINISTIC_CLASSES = [
  'clean',
  'pending-call',
  'honest-fail',
  'tool-error',
  'recovered-error',
  'missing-file',
  'unchanged-file',
  'missing-symbol',
  'tests-claimed-but-fail',
  'missing-required-tool',
  'out-of-order-tool',
  'tool-output-says-success',
  'chinese-claim',
  'text-only-effect',
  'false-delete',
] as const;

const CJK = /[\u3400-\u9fff]/;

/** Maps a report (and the trace's ledger, for the adversarial class) to a predicted class. */
export function predictClass(report: VerificationReport, trace: StepTrace): string {
  if (report.verdict === 'success') return 'clean';
  if (report.verdict === 'success-with-warnings') {
    return report.findings.some((f) => f.check === 'ledger' && f.status === 'warn')
      ? 'recovered-error'
      : 'warning';
  }
  const failing = report.findings.filter((finding) => finding.status === 'fail');
  const has = (check: string, pattern?: RegExp, priority?: string) =>
    failing.some(
      (finding) =>
        finding.check === check &&
        (!pattern || pattern.test(finding.message)) &&
        (!priority || finding.priority === priority),
    );
  // The adversarial input of this class: a (non-control) tool printed "[SUCCESS]". The executor's
  // `mark_step` echoes the step's own notes, which is not tool output.
  const control = new Set(DEFAULT_CONTROL_TOOLS);
  if (
    trace.ledger.some(
      (call) => !control.has(call.tool) && `${call.result ?? ''}${call.error ?? ''}`.includes('[SUCCESS]'),
    )
  )
    return 'tool-output-says-success';
  // Root causes first: an unanswered call, then effects with no successful call at all.
  if (has('ledger', undefined, 'P0')) return 'pending-call';
  if (has('effects')) return 'text-only-effect';
  if (failing.some((finding) => finding.check === 'claims' && CJK.test(finding.evidence?.claim ?? '')))
    return 'chinese-claim';
  if (has('notes', /^The step reported failure/)) return 'honest-fail';
  if (has('required-tools', /never called|never succeeded/)) return 'missing-required-tool';
  if (has('required-tools', /order|dependency|followed/)) return 'out-of-order-tool';
  if (failing.some((finding) => finding.check === 'claims' && finding.evidence?.command !== undefined))
    return 'tests-claimed-but-fail';
  if (has('claims', /still exists|shows no deletion/)) return 'false-delete';
  if (has('claims', /does not exist/)) return 'missing-file';
  if (has('claims', /git shows no change|shows the file unchanged/)) return 'unchanged-file';
  if (has('claims', /\(syntax tree\)/)) return 'missing-symbol';
  if (has('ledger', undefined, 'P1')) return 'tool-error';
  return 'other';
}

/** The outcome of one trace. */
export interface TraceOutcome {
  id: string;
  label: string;
  predicted: string;
  expectedVerdict: string;
  verdict: string;
  correct: boolean;
  ms: number;
}

/** Per-class figures. */
export interface ClassScore {
  label: string;
  traces: number;
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
}

/** The result of a corpus run. */
export interface CorpusResult {
  outcomes: TraceOutcome[];
  scores: ClassScore[];
  /** True when every deterministic class has recall 1 and no false positive. */
  pass: boolean;
  ms: number;
}

/** Loads the labelled traces. */
export async function loadCorpus(dir = CORPUS_DIR): Promise<StepTrace[]> {
  const files = (await readdir(dir)).filter((file) => file.endsWith('.json')).sort();
  return Promise.all(
    files.map(async (file) =>
      stepTraceSchema.parse(JSON.parse(await readFile(path.join(dir, file), 'utf8'))),
    ),
  );
}

async function runTrace(trace: StepTrace): Promise<TraceOutcome> {
  const started = performance.now();
  const report = await verifyTrace(trace, { commandTimeoutMs: 60_000 });
  const predicted = predictClass(report, trace);
  return {
    id: trace.id,
    label: trace.class,
    predicted,
    expectedVerdict: trace.expected.verdict,
    verdict: report.verdict,
    correct: predicted === trace.class && report.verdict === trace.expected.verdict,
    ms: performance.now() - started,
  };
}

/** Scores outcomes per class: a true positive needs the right class and the right verdict. */
export function scoreOutcomes(outcomes: readonly TraceOutcome[]): ClassScore[] {
  const labels = [...new Set(outcomes.map((outcome) => outcome.label))];
  return labels.map((label) => {
    const traces = outcomes.filter((outcome) => outcome.label === label).length;
    const truePositives = outcomes.filter((outcome) => outcome.label === label && outcome.correct).length;
    const falsePositives = outcomes.filter(
      (outcome) => outcome.predicted === label && !(outcome.label === label && outcome.correct),
    ).length;
    const falseNegatives = traces - truePositives;
    return {
      label,
      traces,
      truePositives,
      falsePositives,
      falseNegatives,
      precision: truePositives + falsePositives === 0 ? 1 : truePositives / (truePositives + falsePositives),
      recall: traces === 0 ? 1 : truePositives / traces,
    };
  });
}

/** Runs the whole corpus with limited concurrency. */
export async function runCorpus(options: { dir?: string; concurrency?: number } = {}): Promise<CorpusResult> {
  const started = performance.now();
  const traces = await loadCorpus(options.dir);
  const outcomes: TraceOutcome[] = new Array(traces.length);
  let next = 0;
  const worker = async () => {
    while (next < traces.length) {
      const index = next++;
      const trace = traces[index];
      if (trace) outcomes[index] = await runTrace(trace);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  const scores = scoreOutcomes(outcomes);
  const deterministic = new Set<string>(DETERMINISTIC_CLASSES);
  const pass = scores
    .filter((score) => deterministic.has(score.label))
    .every((score) => score.recall === 1 && score.falsePositives === 0);
  return { outcomes, scores, pass, ms: performance.now() - started };
}

/** A Markdown table of the scores. */
export function formatScores(result: CorpusResult): string {
  const rows = result.scores.map(
    (score) =>
      `| ${score.label} | ${score.traces} | ${score.truePositives} | ${score.falsePositives} | ${score.falseNegatives} | ${(score.precision * 100).toFixed(0)}% | ${(score.recall * 100).toFixed(0)}% |`,
  );
  const total = result.outcomes.length;
  const correct = result.outcomes.filter((outcome) => outcome.correct).length;
  return [
    '| class | traces | TP | FP | FN | precision | recall |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
    `| **all** | ${total} | ${correct} | | ${total - correct} | | ${((correct / total) * 100).toFixed(0)}% |`,
  ].join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await runCorpus();
  console.log(formatScores(result));
  for (const outcome of result.outcomes.filter((o) => !o.correct)) {
    console.log(
      `MISS ${outcome.id}: label ${outcome.label}/${outcome.expectedVerdict}, predicted ${outcome.predicted}/${outcome.verdict}`,
    );
  }
  console.log(`\n${result.outcomes.length} traces in ${(result.ms / 1000).toFixed(1)} s`);
  console.log(
    `Target: recall 100% and no false positives on the deterministic classes → ${result.pass ? 'PASS' : 'FAIL'}`,
  );
  process.exitCode = result.pass ? 0 : 1;
}
