import { type ChatModel, generateObject } from '@closedloop/model';
import { z } from 'zod';
import { judgeTestClaim } from './check-claims';
import type { Claim, TestCountClaim } from './claim-types';
import type { Tooling } from './detect-tooling';
import { findPaths } from './find-paths';
import { canFindSymbols, findSymbol } from './find-symbol';
import { excerpt, type Finding } from './finding';
import { countOf } from './number-words';
import { isMissingProgram } from './protocols/command-protocols';
import { type CommandResult, commandProblem } from './run-command';
import { splitCommandLine } from './split-command-line';
import type { WorkspaceFacts } from './workspace-facts';

/** What the criteria check needs. */
export interface CriteriaEnvironment {
  facts: WorkspaceFacts;
  tooling(): Promise<Tooling>;
  allowCommand(argv: readonly string[]): boolean | Promise<boolean>;
  run(argv: readonly string[]): Promise<CommandResult>;
  /** Judges criteria no rule can check (layer 5). Without it they are P2 warnings. */
  model?: ChatModel;
  /** The request, for the judge. */
  request: string;
  signal?: AbortSignal;
}

/** A deterministic check a criterion maps to. */
type CriterionCheck =
  | { kind: 'command'; argv: string[]; tests?: TestCountClaim }
  | { kind: 'suite'; check: 'test' | 'build' | 'typecheck' | 'lint'; tests?: TestCountClaim }
  | { kind: 'exists'; file: string; present: boolean }
  | { kind: 'symbol'; file: string; name: string }
  | { kind: 'contains'; file: string; text: string };

const PROGRAMS = 'npm|pnpm|yarn|npx|node|deno|bun|python3?|pytest|go|cargo|make|tsc|vitest|jest|mocha';
const PASSES =
  '(?:exits?\\s+(?:with\\s+)?(?:code\\s+)?0|passes|passed|succeeds?|succeeded|runs?\\s+(?:cleanly|green|successfully)|is\\s+green|returns\\s+0|通过|通過|成功|が通る|がパスする|が成功する)';

function countIn(text: string): TestCountClaim | undefined {
  const match =
    /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+(?:[\w-]+\s+){0,2}(?:tests?|cases?|specs?)\b/i.exec(
      text,
    );
  if (!match?.[1]) return /\ball\b/i.test(text) ? { all: true } : undefined;
  const count = countOf(match[1]);
  return count === undefined ? undefined : { count, all: /\ball\b/i.test(text) };
}

/** Maps a free-text success criterion to a deterministic check, when a rule fits. */
export function criterionCheck(criterion: string): CriterionCheck | undefined {
  const text = criterion.trim();
  const quoted = new RegExp(`\`([^\`]+)\`\\s*(?:[:,]\\s*)?${PASSES}`, 'iu').exec(text);
  const bare = new RegExp(`\\b((?:${PROGRAMS})(?:\\s+[\\w@./:=-]+)*?)\\s+${PASSES}`, 'iu').exec(text);
  const command = quoted?.[1] ?? bare?.[1];
  if (command !== undefined) {
    const argv = splitCommandLine(command);
    const tests = countIn(text);
    if (argv.length > 0) return { kind: 'command', argv, ...(tests ? { tests } : {}) };
  }
  if (
    /\b(?:all\s+|the\s+|unit\s+|\d+\s+)*tests?\s+(?:all\s+|now\s+|still\s+)*(?:pass|passes|are\s+green|succeed)\b|(?:测试|測試)\s*(?:全部|都)?\s*(?:通过|通過)|テスト(?:が|は)?\s*(?:すべて)?\s*(?:通る|パス|成功)/iu.test(
      text,
    )
  ) {
    const tests = countIn(text);
    return { kind: 'suite', check: 'test', ...(tests ? { tests } : {}) };
  }
  if (
    /\b(?:the\s+)?build\s+(?:passes|succeeds)|\bcompiles\b|(?:构建|編譯|编译)\s*(?:通过|成功)|ビルドが(?:通る|成功)/iu.test(
      text,
    )
  )
    return { kind: 'suite', check: 'build' };
  if (
    /\bno\s+type\s+errors\b|\btype-?check\s+(?:passes|succeeds|is clean)|(?:类型|類型)(?:检查|檢查)\s*(?:通过|通過)|型エラーがない/iu.test(
      text,
    )
  )
    return { kind: 'suite', check: 'typecheck' };
  if (/\bno\s+lint\s+(?:errors|warnings)|\blint\s+(?:passes|is clean)|lint\s*(?:通过|通過)/iu.test(text))
    return { kind: 'suite', check: 'lint' };
  const paths = findPaths(text);
  const file = paths[0]?.file;
  if (file !== undefined) {
    const exported =
      /\b(?:exports?|defines?|declares?|contains?\s+(?:a\s+|the\s+)?(?:function|class|method|const))\s+[`'"]?([A-Za-z_$][\w$]*)/i.exec(
        text.slice((paths[0]?.index ?? 0) + file.length),
      ) ??
      /[`'"]?([A-Za-z_$][\w$]*)[`'"]?(?:\(\))?\s+is\s+(?:exported|defined|declared)\s+(?:from|in)\b/i.exec(
        text,
      );
    if (exported?.[1] && !/^(?:a|an|the|function|class)$/i.test(exported[1]))
      return { kind: 'symbol', file, name: exported[1] };
    const contains =
      /\b(?:contains?|includes?|mentions?|says?|reads?)\s+(?:the\s+(?:text|string|word)\s+)?["'`“「]([^"'`”」]+)["'`”」]/i.exec(
        text,
      );
    if (contains?.[1]) return { kind: 'contains', file, text: contains[1] };
    if (
      /\b(?:is\s+)?(?:deleted|removed|gone|no\s+longer\s+exists|does\s+not\s+exist)\b|已删除|已刪除|被删除|削除されている/iu.test(
        text,
      )
    )
      return { kind: 'exists', file, present: false };
    if (
      /\b(?:exists?|is\s+created|is\s+present|is\s+written|has\s+been\s+created)\b|存在|已创建|已創建|が存在する|が作成されている/iu.test(
        text,
      )
    )
      return { kind: 'exists', file, present: true };
  }
  return undefined;
}

const judgedSchema = z.object({
  criteria: z.array(
    z.object({
      index: z.number().int().nonnegative(),
      verdict: z.enum(['PASS', 'FAIL', 'UNSURE']),
      reason: z.string(),
    }),
  ),
});

/**
 * Every success criterion of the plan becomes a goal finding (`criteria`, P1): a rule maps it to
 * a deterministic check where one fits — a command or the workspace's test/build/typecheck/lint
 * command that must pass (with at least the claimed number of tests; zero tests fail), a file that
 * must exist or be gone, a symbol it must export, text it must contain. Criteria no rule fits are
 * judged together by the model from the diff (layer 5); without a model, or when the judge is
 * unsure or fails, they are P2 warnings ("could not be checked"), never passes.
 */
export async function checkCriteria(
  criteria: readonly string[],
  env: CriteriaEnvironment,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const unmapped: { index: number; text: string }[] = [];
  const finding = (
    criterion: string,
    status: Finding['status'],
    message: string,
    extra: Finding['evidence'] = {},
    priority: Finding['priority'] = 'P1',
  ): Finding => ({
    check: 'criteria',
    priority,
    status,
    message: `Criterion "${criterion}": ${message}`,
    evidence: { claim: criterion, ...extra },
  });
  for (const [index, criterion] of criteria.entries()) {
    const check = criterionCheck(criterion);
    if (check === undefined) {
      unmapped.push({ index, text: criterion });
      continue;
    }
    findings.push(await runCheck(criterion, check, env, finding));
  }
  if (unmapped.length > 0) findings.push(...(await judge(unmapped, env, finding)));
  return findings;
}

type MakeFinding = (
  criterion: string,
  status: Finding['status'],
  message: string,
  extra?: Finding['evidence'],
  priority?: Finding['priority'],
) => Finding;

async function runCheck(
  criterion: string,
  check: CriterionCheck,
  env: CriteriaEnvironment,
  finding: MakeFinding,
): Promise<Finding> {
  const { facts } = env;
  switch (check.kind) {
    case 'command':
    case 'suite': {
      const argv = check.kind === 'command' ? check.argv : (await env.tooling()).commands[check.check]?.argv;
      if (argv === undefined)
        return finding(
          criterion,
          'error',
          `the workspace has no ${check.kind === 'suite' ? check.check : ''} command to check it with.`,
        );
      if (!(await env.allowCommand(argv)))
        return finding(criterion, 'error', `\`${argv.join(' ')}\` may not be run under the command policy.`, {
          command: argv,
        });
      const result = await env.run(argv);
      const problem = commandProblem(result);
      const evidence = { command: argv, exitCode: result.exitCode, output: excerpt(result.output, 2000) };
      if (problem !== undefined || (result.exitCode !== 0 && isMissingProgram(result)))
        return finding(
          criterion,
          'error',
          `\`${argv.join(' ')}\` ${problem ?? 'could not start its program'}.`,
          evidence,
        );
      const isTest =
        (check.kind === 'suite' && check.check === 'test') ||
        check.tests !== undefined ||
        /\btest\b|vitest|jest|pytest|mocha|--test/.test(argv.join(' '));
      if (isTest) {
        const claim: Claim = { kind: 'command-passed', argv, source: 'claims', text: criterion };
        const judged = judgeTestClaim(result, claim, check.tests, criterion);
        return { ...judged, check: 'criteria', message: judged.message.replace(/^Claim /, 'Criterion ') };
      }
      return result.exitCode === 0
        ? finding(criterion, 'pass', `\`${argv.join(' ')}\` exits 0.`, evidence)
        : finding(criterion, 'fail', `\`${argv.join(' ')}\` exits ${result.exitCode}.`, evidence);
    }
    case 'exists': {
      const rel = facts.relative(check.file);
      const present = rel !== undefined && facts.exists(rel);
      if (present === check.present)
        return finding(criterion, 'pass', `${check.file} ${present ? 'exists' : 'is gone'}.`, {
          file: check.file,
        });
      return finding(criterion, 'fail', `${check.file} ${present ? 'still exists' : 'does not exist'}.`, {
        file: check.file,
      });
    }
    case 'symbol': {
      const rel = facts.relative(check.file);
      if (rel === undefined || !facts.isFile(rel))
        return finding(criterion, 'fail', `${check.file} does not exist.`, { file: check.file });
      if (!canFindSymbols(rel)) return finding(criterion, 'error', `no parser for ${rel}.`, { file: rel });
      const text = facts.read(rel) ?? '';
      const found = await findSymbol({ fileName: rel, text, name: check.name, kind: 'any' });
      return found
        ? finding(criterion, 'pass', `${rel}:${found.line} declares ${found.declaration} ${check.name}.`, {
            file: rel,
          })
        : finding(criterion, 'fail', `${rel} declares no ${check.name}.`, { file: rel });
    }
    case 'contains': {
      const rel = facts.relative(check.file);
      const text = rel !== undefined ? facts.read(rel) : undefined;
      if (text === undefined)
        return finding(criterion, 'fail', `${check.file} does not exist.`, { file: check.file });
      return text.toLowerCase().includes(check.text.toLowerCase())
        ? finding(criterion, 'pass', `${rel} contains "${check.text}".`, { file: rel ?? check.file })
        : finding(criterion, 'fail', `${rel} does not contain "${check.text}".`, { file: rel ?? check.file });
    }
  }
}

async function judge(
  unmapped: { index: number; text: string }[],
  env: CriteriaEnvironment,
  finding: MakeFinding,
): Promise<Finding[]> {
  const warn = (criterion: string, why: string) =>
    finding(criterion, 'warn', `could not be checked: ${why}.`, {}, 'P2');
  if (env.model === undefined)
    return unmapped.map((item) => warn(item.text, 'no rule fits it and no judge model was given'));
  let diff = '';
  try {
    diff = await env.facts.diff(40_000);
  } catch {
    diff = '';
  }
  try {
    const result = await generateObject(env.model, judgedSchema, {
      system:
        'You check success criteria against a code change. Judge only from the diff and the request; never trust claims. ' +
        'Answer PASS only when the diff shows the criterion holds, FAIL when it shows it does not, UNSURE otherwise.',
      prompt: [
        `## Request\n${env.request}`,
        `## Criteria\n${unmapped.map((item, position) => `${position}. ${item.text}`).join('\n')}`,
        `## Diff\n\`\`\`diff\n${diff || '(no diff available)'}\n\`\`\``,
        'For each criterion give its index, PASS / FAIL / UNSURE and a one-line reason.',
      ].join('\n\n'),
      name: 'criteria',
      temperature: 0,
      ...(env.signal ? { signal: env.signal } : {}),
    });
    const answers = new Map(result.object.criteria.map((answer) => [answer.index, answer]));
    return unmapped.map((item, position) => {
      const answer = answers.get(position);
      if (answer === undefined || answer.verdict === 'UNSURE')
        return warn(item.text, answer?.reason ?? 'the judge gave no answer');
      return answer.verdict === 'PASS'
        ? { ...finding(item.text, 'pass', `the judge found it met: ${answer.reason}`), layer: 5 as const }
        : {
            ...finding(item.text, 'fail', `the judge found it not met: ${answer.reason}`),
            layer: 5 as const,
          };
    });
  } catch (error) {
    if (env.signal?.aborted) throw error;
    return unmapped.map((item) =>
      warn(item.text, `the judge failed (${error instanceof Error ? error.message : String(error)})`),
    );
  }
}
