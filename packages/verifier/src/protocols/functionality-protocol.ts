import { existsSync } from 'node:fs';
import path from 'node:path';
import { generate } from '@closedloop/model';
import { excerpt, type Finding } from '../finding';
import type { FunctionalityCase, Protocol, ProtocolContext } from '../protocol';
import { commandProblem } from '../run-command';

const RESULT_MARKER = '__CLOSEDLOOP_FUNCTIONALITY__';

/** The child-process runner: imports each module, calls the export, compares deeply. */
const RUNNER = `
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual, inspect } from 'node:util';
import path from 'node:path';
const input = JSON.parse(__INPUT__);
const safe = (value) => {
  try { return JSON.parse(JSON.stringify(value ?? null)); } catch { return inspect(value, { depth: 3 }); }
};
const results = [];
for (const testCase of input.cases) {
  try {
    const mod = await import(pathToFileURL(path.resolve(input.root, testCase.module)).href);
    let fn = testCase.export === 'default' ? mod.default : mod[testCase.export];
    if (fn === undefined && mod.default !== null && typeof mod.default === 'object') fn = mod.default[testCase.export];
    if (typeof fn !== 'function') {
      results.push({ ok: false, error: 'export ' + testCase.export + ' of ' + testCase.module + ' is not a function (' + typeof fn + ')' });
      continue;
    }
    const args = Array.isArray(testCase.args) ? testCase.args : ('input' in testCase ? [testCase.input] : []);
    const actual = await fn(...args);
    results.push({ ok: isDeepStrictEqual(actual, testCase.expected), actual: safe(actual) });
  } catch (error) {
    results.push({ ok: false, error: String(error && error.stack ? error.stack : error).slice(0, 1500) });
  }
}
process.stdout.write('\\n${RESULT_MARKER}' + JSON.stringify(results) + '\\n');
`;

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
  const result = await ctx.run(argv, {
    timeoutMs: budgetMs,
    stdin: RUNNER.replace('__INPUT__', () => input),
  });
  const shownArgv = ['node', ...flags, '--input-type=module', '<functionality runner on stdin>'];
  const problem = commandProblem(result);
  const markerLine = result.stdout.split('\n').find((line) => line.startsWith(RESULT_MARKER));
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
  if (markerLine === undefined) {
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
  const results = JSON.parse(markerLine.slice(RESULT_MARKER.length)) as CaseResult[];
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
