import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { binCommand } from '../detect-tooling';
import { excerpt, type Finding } from '../finding';
import type { Protocol, ProtocolContext } from '../protocol';
import { coverageTampering } from '../rigged-runner';
import { commandProblem } from '../run-command';
import { readInside, realRootOf } from '../workspace-facts';
import { snapshotWorkspace } from '../workspace-snapshot';
import { isMissingProgram } from './command-protocols';

/** A coverage tool the workspace has configured. */
export type CoverageTool = 'vitest' | 'jest' | 'c8' | 'nyc' | 'node' | 'coverage.py';

/** How to measure coverage in a workspace: the commands and where their report lands. */
export interface CoveragePlan {
  tool: CoverageTool;
  /** Why this tool (`package.json devDependencies.@vitest/coverage-v8`…). */
  source: string;
  /** Commands to run in order; `{dir}` is replaced by the report folder. */
  commands: string[][];
  report: 'json-summary' | 'lcov' | 'coverage.py-json';
}

function packageJson(ctx: ProtocolContext): Record<string, unknown> | undefined {
  const text = ctx.facts.read('package.json');
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function record(value: unknown): Record<string, string> {
  return typeof value === 'object' && value !== null ? (value as Record<string, string>) : {};
}

const words = (script: string) => script.trim().split(/\s+/).filter(Boolean);

/**
 * Finds the coverage tool a workspace configured: `c8`/`nyc` (dependency or test script),
 * vitest with a `@vitest/coverage-*` provider, jest with coverage switched on (`--coverage`,
 * `collectCoverage`), node's runner with `--experimental-test-coverage` in the test script, or
 * pytest with coverage.py configured (`.coveragerc`, `[tool.coverage…]`, `pytest-cov`). None →
 * undefined (coverage cannot be measured; never a pass).
 */
export async function detectCoverage(ctx: ProtocolContext): Promise<CoveragePlan | undefined> {
  const root = ctx.workspace;
  const json = packageJson(ctx);
  const scripts = record(json?.scripts);
  const dependencies = { ...record(json?.dependencies), ...record(json?.devDependencies) };
  const testScript = scripts.test ?? '';
  const tooling = await ctx.tooling();
  const testArgv = tooling.commands.test?.argv;
  for (const wrapper of ['c8', 'nyc'] as const) {
    const inScript = new RegExp(`^\\s*${wrapper}\\s`).test(testScript);
    if (!inScript && dependencies[wrapper] === undefined) continue;
    const inner = inScript
      ? words(testScript)
          .slice(1)
          .filter((word) => !word.startsWith('--reporter'))
      : testArgv;
    if (!inner || inner.length === 0) continue;
    const flags =
      wrapper === 'c8'
        ? ['--reporter=json-summary', '--reports-dir={dir}', '--temp-directory={dir}/raw']
        : ['--reporter=json-summary', '--report-dir={dir}', '--temp-dir={dir}/raw'];
    return {
      tool: wrapper,
      source: inScript ? 'package.json scripts.test' : `package.json dependency ${wrapper}`,
      commands: [binCommand(root, wrapper, [...flags, ...inner])],
      report: 'json-summary',
    };
  }
  const vitestProvider = ['@vitest/coverage-v8', '@vitest/coverage-istanbul'].find(
    (name) => dependencies[name] !== undefined,
  );
  if (tooling.testRunner === 'vitest' && vitestProvider) {
    return {
      tool: 'vitest',
      source: `package.json dependency ${vitestProvider}`,
      commands: [
        binCommand(root, 'vitest', [
          'run',
          '--coverage.enabled',
          '--coverage.reporter=json-summary',
          '--coverage.reportsDirectory={dir}',
        ]),
      ],
      report: 'json-summary',
    };
  }
  const jestConfig = ['jest.config.js', 'jest.config.ts', 'jest.config.mjs', 'jest.config.cjs']
    .map((file) => ctx.facts.read(file) ?? '')
    .join('\n');
  if (
    tooling.testRunner === 'jest' &&
    (/--coverage\b/.test(testScript) ||
      /collectCoverage\s*:\s*true/.test(jestConfig) ||
      record(json?.jest).collectCoverage !== undefined)
  ) {
    return {
      tool: 'jest',
      source: 'jest coverage configuration',
      commands: [
        binCommand(root, 'jest', [
          '--ci',
          '--coverage',
          '--coverageReporters=json-summary',
          '--coverageDirectory={dir}',
        ]),
      ],
      report: 'json-summary',
    };
  }
  if (/^\s*node\s/.test(testScript) && /--experimental-test-coverage\b/.test(testScript)) {
    const args = words(testScript)
      .slice(1)
      .filter((word) => !word.startsWith('--test-reporter'));
    return {
      tool: 'node',
      source: 'package.json scripts.test (--experimental-test-coverage)',
      commands: [['node', ...args, '--test-reporter=lcov', '--test-reporter-destination={dir}/lcov.info']],
      report: 'lcov',
    };
  }
  if (tooling.testRunner === 'pytest') {
    const pyproject = ctx.facts.read('pyproject.toml') ?? '';
    const requirements = ['requirements.txt', 'requirements-dev.txt', 'dev-requirements.txt']
      .map((file) => ctx.facts.read(file) ?? '')
      .join('\n');
    const configured =
      existsSync(path.join(root, '.coveragerc')) ||
      /\[tool\.coverage|pytest-cov|\bcoverage\b/.test(pyproject) ||
      /^(?:pytest-cov|coverage)\b/m.test(requirements);
    if (configured) {
      return {
        tool: 'coverage.py',
        source: existsSync(path.join(root, '.coveragerc')) ? '.coveragerc' : 'coverage in the Python project',
        commands: [
          ['python3', '-m', 'coverage', 'run', '--data-file={dir}/.coverage', '-m', 'pytest', '-q'],
          ['python3', '-m', 'coverage', 'json', '--data-file={dir}/.coverage', '-o', '{dir}/coverage.json'],
        ],
        report: 'coverage.py-json',
      };
    }
  }
  return undefined;
}

const TEST_SOURCE = /(?:^|\/)(?:tests?|__tests__|spec)\/|\.(?:test|spec)\.[cm]?[jt]sx?$/;

/** Coverage reports of big projects (lcov) run to tens of megabytes. */
const REPORT_MAX_BYTES = 256 * 1024 * 1024;

/**
 * Line coverage in percent from a report folder, or undefined when the report is missing. The
 * report is read only when its real path is inside `workspace` (default: the folder's parent):
 * the test run wrote it, and a link out of the workspace or a FIFO in its place is not followed.
 */
export function readCoverage(
  dir: string,
  report: CoveragePlan['report'],
  workspace: string = path.dirname(dir),
): number | undefined {
  const root = realRootOf(workspace);
  const read = (name: string) => readInside(root, path.join(dir, name), REPORT_MAX_BYTES);
  try {
    if (report === 'json-summary') {
      const json = JSON.parse(read('coverage-summary.json') ?? 'null') as {
        total?: { lines?: { pct?: unknown } };
      } | null;
      const pct = json?.total?.lines?.pct;
      return typeof pct === 'number' ? pct : undefined;
    }
    if (report === 'coverage.py-json') {
      const json = JSON.parse(read('coverage.json') ?? 'null') as {
        totals?: { percent_covered?: unknown };
      } | null;
      const pct = json?.totals?.percent_covered;
      return typeof pct === 'number' ? pct : undefined;
    }
    const lcov = read('lcov.info');
    if (lcov === undefined) return undefined;
    let found = 0;
    let hit = 0;
    let file = '';
    for (const line of lcov.split('\n')) {
      if (line.startsWith('SF:')) file = line.slice(3);
      else if (line.startsWith('LF:') && !TEST_SOURCE.test(file)) found += Number(line.slice(3)) || 0;
      else if (line.startsWith('LH:') && !TEST_SOURCE.test(file)) hit += Number(line.slice(3)) || 0;
    }
    return found === 0 ? undefined : (hit / found) * 100;
  } catch {
    return undefined;
  }
}

/** The most files of the workspace read for code that handles coverage data. */
const MAX_SCANNED_FILES = 5_000;

/**
 * A file of the workspace (outside installed packages) whose code handles the coverage data the
 * run is measured by ({@link coverageTampering}), with the line; undefined when none does.
 */
function tamperedCoverage(ctx: ProtocolContext): { file: string; line: string } | undefined {
  let scanned = 0;
  for (const file of snapshotWorkspace(ctx.workspace).files.keys()) {
    if (!/\.(?:[cm]?[jt]sx?|py)$/.test(file) || /(?:^|\/)node_modules\//.test(file)) continue;
    if (scanned++ >= MAX_SCANNED_FILES) break;
    const text = ctx.facts.read(file);
    const line = text === undefined ? undefined : coverageTampering(file, text);
    if (line !== undefined) return { file, line };
  }
  return undefined;
}

/** Options of {@link createCoverageProtocol}. */
export interface CoverageProtocolOptions {
  /** Minimum line coverage in percent. Default 80. */
  threshold?: number;
  /** Timeout of the coverage run. Default 300 000 ms. */
  timeoutMs?: number;
}

/**
 * COVERAGE (layer 2, P2): line coverage measured by the workspace's own configured tool (see
 * {@link detectCoverage}) reaches the threshold (default 80%). It runs the test suite once more
 * with the tool's machine-readable reporter into a scratch folder (removed afterwards). No
 * configured tool → the protocol does not apply (skip); a run that produces no report → `error`;
 * never a pass without a measured figure. The process under test writes the raw data the report is
 * built from, so a figure that meets the threshold while code of the workspace handles coverage
 * data itself (`v8.takeCoverage()`, `NODE_V8_COVERAGE`, `__coverage__`, a write of a report file:
 * {@link coverageTampering}) is an `error`, not a pass.
 *
 * @example
 * const COVERAGE_90 = createCoverageProtocol({ threshold: 90 });
 */
export function createCoverageProtocol(options: CoverageProtocolOptions = {}): Protocol {
  const threshold = options.threshold ?? 80;
  const timeoutMs = options.timeoutMs ?? 300_000;
  return {
    name: 'COVERAGE',
    description: `Line coverage from the workspace's coverage tool is at least ${threshold}%.`,
    priority: 'P2',
    layer: 2,
    group: 3,
    timeoutMs: timeoutMs + 30_000,
    async appliesTo(ctx) {
      return (await detectCoverage(ctx)) !== undefined;
    },
    async run(ctx): Promise<Finding[]> {
      const plan = await detectCoverage(ctx);
      if (!plan) return [];
      const dir = path.join(ctx.workspace, `.closedloop-coverage-${randomBytes(4).toString('hex')}`);
      await mkdir(dir, { recursive: true });
      const base = { check: 'COVERAGE', priority: 'P2' as const, layer: 2 as const };
      try {
        let last: { argv: string[]; exitCode: number | null; output: string } | undefined;
        for (const command of plan.commands) {
          const argv = command.map((arg) => arg.replaceAll('{dir}', dir));
          const result = await ctx.run(argv, { timeoutMs });
          last = { argv, exitCode: result.exitCode, output: result.output };
          const problem =
            commandProblem(result) ??
            (isMissingProgram(result) ? `${argv[0]} could not run its program` : undefined);
          if (problem !== undefined || /No module named coverage/.test(result.output)) {
            return [
              {
                ...base,
                status: 'error',
                message: `Coverage (${plan.tool}) could not be measured: \`${argv.join(' ')}\` ${problem ?? 'needs coverage.py installed'}.`,
                evidence: { command: argv, exitCode: result.exitCode, output: excerpt(result.output) },
              },
            ];
          }
        }
        const pct = readCoverage(dir, plan.report, ctx.workspace);
        const evidence = last
          ? { command: last.argv, exitCode: last.exitCode, output: excerpt(last.output, 1500) }
          : undefined;
        if (pct === undefined) {
          return [
            {
              ...base,
              status: 'error',
              message: `Coverage (${plan.tool}) could not be measured: the run (exit ${last?.exitCode}) wrote no ${plan.report} report.`,
              ...(evidence ? { evidence } : {}),
            },
          ];
        }
        // The process under test writes the raw data its report is built from: code of the
        // workspace that handles that data makes the figure its own, never a measurement.
        const tampered = pct >= threshold ? tamperedCoverage(ctx) : undefined;
        if (tampered !== undefined) {
          return [
            {
              ...base,
              status: 'error',
              message: `Coverage (${plan.tool}) could not be measured: ${tampered.file} handles the coverage data the run is measured by (\`${tampered.line}\`), so the ${pct.toFixed(1)}% its report shows is not evidence.`,
              evidence: { file: tampered.file, ...(evidence ?? {}) },
            },
          ];
        }
        const figure = `${pct.toFixed(1)}%`;
        return [
          {
            ...base,
            status: pct >= threshold ? 'pass' : 'fail',
            message:
              pct >= threshold
                ? `Line coverage ${figure} (${plan.tool}) meets the ${threshold}% threshold.`
                : `Line coverage ${figure} (${plan.tool}) is below the ${threshold}% threshold.`,
            details: { lines: pct, threshold, tool: plan.tool, source: plan.source },
            ...(evidence ? { evidence } : {}),
          },
        ];
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

/** COVERAGE with the default 80% threshold. */
export const coverageProtocol: Protocol = createCoverageProtocol();
