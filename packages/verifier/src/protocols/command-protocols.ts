import type { Tooling, ToolingCommand } from '../detect-tooling';
import { excerpt, type Finding, type Priority, type VerificationLayer } from '../finding';
import { parseTestCounts, stripAnsi, type TestCounts } from '../parse-test-counts';
import type { Protocol, ProtocolContext } from '../protocol';
import { type CommandResult, commandProblem } from '../run-command';

/** True when a command failed because its program (or the script's program) is not there. */
export function isMissingProgram(result: CommandResult): boolean {
  if (result.spawnError !== undefined) return true;
  if (result.exitCode === 127) return true;
  return /could not determine executable to run|npx canceled due to missing packages|npm (?:ERR!|error) Missing script|command not found|is not recognized as an internal or external command/i.test(
    result.output,
  );
}

/** Lines of an output that look like errors (for messages). */
function errorLines(output: string, pattern: RegExp, max = 8): string[] {
  return stripAnsi(output)
    .split('\n')
    .filter((line) => pattern.test(line))
    .slice(0, max)
    .map((line) => line.trim().slice(0, 300));
}

interface CommandProtocolSpec {
  name: string;
  description: string;
  priority: Priority;
  layer: VerificationLayer;
  group: number;
  timeoutMs: number;
  /** What the command is called in messages. */
  noun: string;
  command(tooling: Tooling): ToolingCommand | undefined;
  /** Turns a finished run (exit code known, program present) into findings. */
  judge(result: CommandResult, base: Omit<Finding, 'status' | 'message'>): Finding;
}

function commandProtocol(spec: CommandProtocolSpec): Protocol {
  return {
    name: spec.name,
    description: spec.description,
    priority: spec.priority,
    layer: spec.layer,
    group: spec.group,
    timeoutMs: spec.timeoutMs,
    async appliesTo(ctx: ProtocolContext) {
      return spec.command(await ctx.tooling()) !== undefined;
    },
    async run(ctx: ProtocolContext): Promise<Finding[]> {
      const command = spec.command(await ctx.tooling());
      if (!command) return [];
      const result = await ctx.run(command.argv, { timeoutMs: spec.timeoutMs });
      const base = {
        check: spec.name,
        priority: spec.priority,
        layer: spec.layer,
        evidence: { command: command.argv, exitCode: result.exitCode, output: excerpt(result.output) },
      };
      const problem = commandProblem(result);
      if (problem !== undefined) {
        return [
          {
            ...base,
            status: 'error',
            message: `${spec.noun} command \`${command.argv.join(' ')}\` did not finish: ${problem}.`,
          },
        ];
      }
      if (result.exitCode !== 0 && isMissingProgram(result)) {
        return [
          {
            ...base,
            status: 'error',
            message: `${spec.noun} command \`${command.argv.join(' ')}\` could not run its program (exit ${result.exitCode}); install the workspace's dependencies.`,
          },
        ];
      }
      return [spec.judge(result, base)];
    },
  };
}

/** BUILD (layer 1, P0): the build script must exit 0. */
export const buildProtocol: Protocol = commandProtocol({
  name: 'BUILD',
  description: 'The project builds: the build script exits 0.',
  priority: 'P0',
  layer: 1,
  group: 1,
  timeoutMs: 300_000,
  noun: 'Build',
  command: (tooling) => tooling.commands.build,
  judge(result, base) {
    if (result.exitCode === 0)
      return { ...base, status: 'pass', message: `Build passed (${Math.round(result.durationMs)} ms).` };
    const errors = errorLines(result.output, /error/i);
    return {
      ...base,
      status: 'fail',
      message: `Build failed with exit code ${result.exitCode}${errors.length ? `: ${errors.join(' | ')}` : '.'}`,
    };
  },
});

/** TYPECHECK (layer 1, P1): `tsc --noEmit` (or the typecheck script) reports no errors. */
export const typecheckProtocol: Protocol = commandProtocol({
  name: 'TYPECHECK',
  description: 'No type errors: tsc --noEmit (or the typecheck script) exits 0.',
  priority: 'P1',
  layer: 1,
  group: 1,
  timeoutMs: 120_000,
  noun: 'Typecheck',
  command: (tooling) => tooling.commands.typecheck,
  judge(result, base) {
    const errors = errorLines(result.output, /error TS\d+/, 1000);
    if (result.exitCode === 0)
      return { ...base, status: 'pass', message: 'Typecheck passed: no type errors.' };
    return {
      ...base,
      status: 'fail',
      message: `Typecheck failed: ${errors.length} type error(s)${errors.length ? `: ${errors.slice(0, 5).join(' | ')}` : ` (exit ${result.exitCode})`}.`,
      details: { typeErrors: errors.length },
    };
  },
});

/** LINT (layer 1, P1): the linter exits 0 (eslint with `--max-warnings 0`). */
export const lintProtocol: Protocol = commandProtocol({
  name: 'LINT',
  description: 'Lint passes: the lint script, biome or eslint exits 0.',
  priority: 'P1',
  layer: 1,
  group: 2,
  timeoutMs: 120_000,
  noun: 'Lint',
  command: (tooling) => tooling.commands.lint,
  judge(result, base) {
    const text = stripAnsi(result.output);
    const eslint = /(\d+) problems? \((\d+) errors?, (\d+) warnings?\)/.exec(text);
    const biome = /Found (\d+) errors?/.exec(text);
    const details: Record<string, unknown> = {};
    if (eslint) Object.assign(details, { errors: Number(eslint[2]), warnings: Number(eslint[3]) });
    else if (biome) details.errors = Number(biome[1]);
    if (result.exitCode === 0) return { ...base, status: 'pass', message: 'Lint passed.', details };
    const count =
      details.errors !== undefined ? `${String(details.errors)} error(s)` : `exit code ${result.exitCode}`;
    return { ...base, status: 'fail', message: `Lint failed: ${count}.`, details };
  },
});

/**
 * The failing-test lines of a runner's output, once each: TAP (`not ok 2 - name`), Node's spec
 * reporter (`✖ name`, the default from Node 23 on, which lists failures again under
 * `✖ failing tests:`), vitest/jest (`×`, `FAIL`), pytest (`FAILED`).
 */
function failingTests(output: string): string[] {
  const lines = errorLines(output, /^\s*(?:not ok \d+|✖|×|FAIL\b|✗|FAILED\b)/, Number.POSITIVE_INFINITY);
  return [...new Set(lines.filter((line) => !/^✖ failing tests:?$/.test(line)))].slice(0, 10);
}

function countsText(counts: TestCounts | undefined): string {
  if (!counts) return 'no test summary recognised';
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped of ${counts.total}`;
}

/** Judges a finished test run: exit code first, parsed counts as a cross-check. */
export function judgeTestRun(
  result: CommandResult,
  base: Omit<Finding, 'status' | 'message'>,
  noun = 'Tests',
): Finding {
  const counts = parseTestCounts(result.output);
  const details: Record<string, unknown> = counts ? { ...counts } : {};
  if (result.exitCode === 0) {
    if (counts && counts.failed > 0) {
      return {
        ...base,
        status: 'fail',
        message: `${noun}: the runner exited 0 but reported ${counts.failed} failure(s) (${countsText(counts)}).`,
        details,
      };
    }
    if (counts && counts.total - counts.skipped === 0) {
      return {
        ...base,
        status: 'fail', // Zero tests run is no evidence that anything works.
        message: `${noun}: the runner exited 0 but no test ran (${countsText(counts)}).`,
        details,
      };
    }
    return { ...base, status: 'pass', message: `${noun} passed (${countsText(counts)}).`, details };
  }
  if (counts?.format === 'pytest' || /no tests ran|collected 0 items/.test(result.output)) {
    if (result.exitCode === 5)
      return { ...base, status: 'fail', message: `${noun}: pytest collected no tests.`, details };
  }
  const failing = failingTests(result.output);
  return {
    ...base,
    status: 'fail',
    message: `${noun} failed with exit code ${result.exitCode} (${countsText(counts)})${failing.length ? `: ${failing.join(' | ')}` : '.'}`,
    details,
  };
}

/** A test-suite protocol: the command `tooling.commands[key]`, judged by {@link judgeTestRun}. */
function testSuiteProtocol(spec: {
  name: string;
  description: string;
  layer: VerificationLayer;
  group: number;
  timeoutMs: number;
  /** What the suite is called in messages (`Tests`, `Integration tests`…). */
  suite: string;
  key: 'test' | 'integration' | 'e2e';
}): Protocol {
  return commandProtocol({
    ...spec,
    priority: 'P1',
    noun: spec.suite.replace(/s$/, ''),
    command: (tooling) => tooling.commands[spec.key],
    judge: (result, base) => judgeTestRun(result, base, spec.suite),
  });
}

/** TEST (layer 2, P1): the detected test command exits 0; counts parsed from the runner output. */
export const testProtocol: Protocol = testSuiteProtocol({
  name: 'TEST',
  description: 'Tests pass: the detected test command (npm test, vitest, jest, node --test, pytest) exits 0.',
  layer: 2,
  group: 2,
  timeoutMs: 120_000,
  suite: 'Tests',
  key: 'test',
});

/** INTEGRATION_TEST (layer 3, P1): the `test:integration` script exits 0. */
export const integrationTestProtocol: Protocol = testSuiteProtocol({
  name: 'INTEGRATION_TEST',
  description: 'Integration tests pass: the test:integration script exits 0.',
  layer: 3,
  group: 3,
  timeoutMs: 300_000,
  suite: 'Integration tests',
  key: 'integration',
});

/** E2E_TEST (layer 4, P1): the `test:e2e` script (or playwright) exits 0. */
export const e2eTestProtocol: Protocol = testSuiteProtocol({
  name: 'E2E_TEST',
  description: 'End-to-end tests pass: the test:e2e script (or playwright test) exits 0.',
  layer: 4,
  group: 4,
  timeoutMs: 600_000,
  suite: 'End-to-end tests',
  key: 'e2e',
});
