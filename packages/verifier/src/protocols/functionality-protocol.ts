import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { generate } from '@closedloop/model';
import { excerpt, type Finding } from '../finding';
import type { FunctionalityCase, Protocol, ProtocolContext } from '../protocol';
import { commandProblem } from '../run-command';

/**
 * The child-process runner: imports each module, calls the export, compares deeply. The code under
 * test runs in this process, so the runner never trusts what it can change: everything the runner
 * needs (the cases, `isDeepStrictEqual`, `JSON.stringify`, `fs.writeSync`) is taken before the first
 * import; results are written to fd 1 as one line built by string concatenation (no array or
 * object method a module could patch), behind a marker with a random nonce of this run that the
 * code never sees — a result line the code prints or rewrites is never taken.
 */
const RUNNER = `
import { writeSync as fsWriteSync } from 'node:fs';
import { isDeepStrictEqual as utilIsDeepStrictEqual, inspect as utilInspect } from 'node:util';
import { pathToFileURL as urlPathToFileURL } from 'node:url';
import { resolve as pathResolve } from 'node:path';
const writeSync = fsWriteSync, equal = utilIsDeepStrictEqual, inspect = utilInspect;
const toUrl = urlPathToFileURL, resolvePath = pathResolve;
const stringify = JSON.stringify, parse = JSON.parse, isArray = Array.isArray;
const marker = __MARKER__;
const input = parse(__INPUT__);
const plans = input.cases.map((testCase) => ({
  href: toUrl(resolvePath(input.root, testCase.module)).href,
  module: String(testCase.module),
  name: String(testCase.export),
  args: isArray(testCase.args) ? testCase.args : (Object.hasOwn(testCase, 'input') ? [testCase.input] : []),
  expected: testCase.expected,
}));
const count = plans.length;
const safe = (value) => {
  try { const text = stringify(value ?? null); return typeof text === 'string' ? text : 'null'; }
  catch { try { return stringify(String(inspect(value, { depth: 3 }))); } catch { return 'null'; } }
};
const errorText = (error) => {
  try { return stringify(String(error && error.stack ? error.stack : error).slice(0, 1500)); }
  catch { return stringify('(an error that cannot be shown)'); }
};
let line = '';
for (let index = 0; index < count; index++) {
  const plan = plans[index];
  let entry;
  try {
    const mod = await import(plan.href);
    let fn = plan.name === 'default' ? mod.default : mod[plan.name];
    if (fn === undefined && mod.default !== null && typeof mod.default === 'object') fn = mod.default[plan.name];
    if (typeof fn !== 'function') {
      entry = '{"ok":false,"error":' + stringify('export ' + plan.name + ' of ' + plan.module + ' is not a function (' + typeof fn + ')') + '}';
    } else {
      const actual = await fn(...plan.args);
      entry = '{"ok":' + (equal(actual, plan.expected) === true ? 'true' : 'false') + ',"actual":' + safe(actual) + '}';
    }
  } catch (error) {
    entry = '{"ok":false,"error":' + errorText(error) + '}';
  }
  line = index === 0 ? entry : line + ',' + entry;
}
let text = '\\n' + marker + '[' + line + ']\\n';
while (text.length > 0) {
  try { text = text.slice(writeSync(1, text)); }
  catch (error) { if (!error || error.code !== 'EAGAIN') throw error; }
}
`;

/** The marker of one run's result line: a nonce the code under test never sees. */
function resultMarker(): string {
  return `__CLOSEDLOOP_FUNCTIONALITY_${randomUUID().replaceAll('-', '')}__`;
}

/** The runner's results when `stdout` holds exactly one well-formed result line behind `marker`. */
function parseResults(stdout: string, marker: string, count: number): CaseResult[] | undefined {
  const lines = stdout.split('\n').filter((line) => line.startsWith(marker));
  if (lines.length !== 1) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse((lines[0] as string).slice(marker.length));
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length !== count) return undefined;
  const valid = parsed.every(
    (entry: unknown) =>
      entry !== null &&
      typeof entry === 'object' &&
      typeof (entry as CaseResult).ok === 'boolean' &&
      ((entry as CaseResult).error === undefined || typeof (entry as CaseResult).error === 'string'),
  );
  return valid ? (parsed as CaseResult[]) : undefined;
}

interface CaseResult {
  ok: boolean;
  actual?: unknown;
  error?: string;
}

function nodeSupportsStripTypes(): boolean {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 6);
}

function describeCase(testCase: FunctionalityCase, index: number): string {
  if (testCase.name) return testCase.name;
  const args = testCase.args ?? ('input' in testCase ? [testCase.input] : []);
  return `#${index + 1} ${testCase.export}(${args.map((arg) => JSON.stringify(arg)).join(', ')})`;
}

async function runCases(ctx: ProtocolContext): Promise<Finding[]> {
  const cases = ctx.functionalityCases;
  const needsTypeScript = cases.some((testCase) => /\.[cm]?tsx?$/.test(testCase.module));
  const flags: string[] = [];
  if (needsTypeScript) {
    if (nodeSupportsStripTypes()) flags.push('--experimental-strip-types', '--no-warnings');
    else if (existsSync(path.join(ctx.workspace, 'node_modules', 'tsx'))) flags.push('--import', 'tsx');
    else {
      return [
        {
          check: 'FUNCTIONALITY',
          priority: 'P1',
          status: 'error',
          message: `Cannot execute TypeScript modules on Node ${process.versions.node} without tsx in the workspace (Node ≥ 22.6 strips types natively).`,
        },
      ];
    }
  }
  // The runner is a module read from stdin (the command policy refuses `-e`; only callers with
  // code of their own pass stdin, a model's command never gets any).
  const argv = ['node', ...flags, '--input-type=module'];
  const budgetMs = cases.reduce((sum, testCase) => sum + (testCase.timeoutMs ?? 10_000), 0) + 2_000;
  const input = JSON.stringify(JSON.stringify({ root: ctx.workspace, cases }));
  const marker = resultMarker();
  const result = await ctx.run(argv, {
    timeoutMs: budgetMs,
    stdin: RUNNER.replace('__MARKER__', () => JSON.stringify(marker)).replace('__INPUT__', () => input),
  });
  const shownArgv = ['node', ...flags, '--input-type=module', '<functionality runner on stdin>'];
  const problem = commandProblem(result);
  const results = parseResults(result.stdout, marker, cases.length);
  if (problem !== undefined && result.timedOut) {
    return [
      {
        check: 'FUNCTIONALITY',
        priority: 'P1',
        status: 'fail',
        message: `The functionality cases did not finish within ${budgetMs} ms (the code under test hangs).`,
        evidence: { command: shownArgv, output: excerpt(result.output) },
      },
    ];
  }
  if (results === undefined) {
    return [
      {
        check: 'FUNCTIONALITY',
        priority: 'P1',
        status: 'error',
        message: `The functionality runner produced no result (${problem ?? `exit ${result.exitCode}`}).`,
        evidence: { command: shownArgv, exitCode: result.exitCode, output: excerpt(result.output) },
      },
    ];
  }
  const findings: Finding[] = [];
  results.forEach((caseResult, index) => {
    const testCase = cases[index];
    if (!testCase || caseResult.ok) return;
    const label = describeCase(testCase, index);
    findings.push({
      check: 'FUNCTIONALITY',
      priority: 'P1',
      status: 'fail',
      message:
        caseResult.error !== undefined
          ? `${testCase.module} ${label} threw: ${caseResult.error.split('\n')[0]}`
          : `${testCase.module} ${label} returned ${JSON.stringify(caseResult.actual)}, expected ${JSON.stringify(testCase.expected)}.`,
      evidence: {
        file: testCase.module,
        ...(caseResult.error ? { output: excerpt(caseResult.error, 1500) } : {}),
      },
    });
  });
  const passed = results.filter((caseResult) => caseResult.ok).length;
  if (findings.length === 0) {
    findings.push({
      check: 'FUNCTIONALITY',
      priority: 'P1',
      status: 'pass',
      message: `${passed}/${cases.length} functionality case(s) pass.`,
      details: { passed, total: cases.length },
    });
  }
  return findings;
}

/** Parses a CORRECT/INCORRECT answer strictly (first word); undefined when it is neither. */
export function parseCorrectness(text: string): 'CORRECT' | 'INCORRECT' | undefined {
  const first = /^[\s*_`#>"'「]*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
  return first === 'CORRECT' || first === 'INCORRECT' ? first : undefined;
}

async function judgeByModel(ctx: ProtocolContext, signal: AbortSignal): Promise<Finding[]> {
  const model = ctx.model;
  if (!model) return [];
  const files = (await ctx.changedFiles()).filter(
    (file) => !/(?:^|\/)(?:package-lock\.json|pnpm-lock\.yaml|yarn\.lock)$/.test(file),
  );
  if (files.length === 0) {
    return [
      {
        check: 'FUNCTIONALITY',
        priority: 'P1',
        status: 'skip',
        message: 'No functionality cases and no changed code to judge.',
      },
    ];
  }
  let code = '';
  for (const file of files) {
    if (code.length > 40_000) break;
    code += `// ${file}\n${(ctx.facts.read(file) ?? '').slice(0, 20_000)}\n\n`;
  }
  const result = await generate(
    model,
    {
      messages: [
        {
          role: 'system',
          content: 'You check code against a functional requirement. Judge only the code shown.',
        },
        {
          role: 'user',
          content: `Check whether the following code correctly implements: ${ctx.request || '(the requirement below)'}\n${ctx.acceptanceCriteria.map((c) => `- ${c}`).join('\n')}\n\`\`\`\n${code}\`\`\`\nAnswer CORRECT or INCORRECT as the first word, then explain why.`,
        },
      ],
      temperature: 0,
      maxOutputTokens: 600,
    },
    { signal },
  );
  const answer = parseCorrectness(result.text);
  if (answer === undefined) {
    return [
      {
        check: 'FUNCTIONALITY',
        priority: 'P1',
        status: 'error',
        message: `The model's functionality verdict is neither CORRECT nor INCORRECT: ${JSON.stringify(result.text.slice(0, 200))}.`,
      },
    ];
  }
  const reason = result.text
    .replace(/^[\s*_`#>"'「]*[A-Za-z]+[\s*_`:.,-]*/, '')
    .trim()
    .slice(0, 500);
  return [
    {
      check: 'FUNCTIONALITY',
      priority: 'P1',
      status: answer === 'CORRECT' ? 'pass' : 'fail',
      message: `LLM judge (no executable cases): ${answer}${reason ? ` — ${reason}` : ''}`,
      details: { method: 'llm-judge' },
    },
  ];
}

/**
 * FUNCTIONALITY (layer 2, P1): with `functionalityCases` (`{ module, export, input, expected }`),
 * runs them in a child `node` process and compares results with deep strict equality (a hang
 * is a failure of the code); otherwise falls back to an LLM judge (CORRECT/INCORRECT) over the
 * changed code. Neither cases nor model → skip.
 */
export const functionalityProtocol: Protocol = {
  name: 'FUNCTIONALITY',
  description: 'The feature works: executable cases (child node process), else LLM-as-judge.',
  priority: 'P1',
  layer: 2,
  group: 3,
  timeoutMs: 120_000,
  appliesTo(ctx) {
    return ctx.functionalityCases.length > 0 || ctx.model !== undefined;
  },
  run(ctx, signal) {
    return ctx.functionalityCases.length > 0 ? runCases(ctx) : judgeByModel(ctx, signal);
  },
};
