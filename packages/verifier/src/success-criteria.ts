import { z } from 'zod';
import { detectTooling, type Tooling } from './detect-tooling';
import { prioritySchema } from './finding';

/** A verifiable success criterion and the protocol that checks it. */
export const successCriterionSchema = z
  .object({
    /** `CODE_COMPILES`, `TESTS_PASS`, `CONSTRAINT_1`… */
    id: z.string().min(1),
    description: z.string().default(''),
    priority: prioritySchema,
    /** Name of the protocol that checks it (built-in or custom). */
    protocol: z.string().min(1),
    /** Why it is there: the request's verb, the workspace (implicit), a constraint, or the user. */
    source: z.enum(['verb', 'implicit', 'constraint', 'user']).default('user'),
  })
  .strict();
export type SuccessCriterion = z.infer<typeof successCriterionSchema>;
export type SuccessCriterionInput = z.input<typeof successCriterionSchema>;

interface VerbRule {
  verb: string;
  pattern: RegExp;
  criteria: { id: string; description: string; priority: 'P0' | 'P1' | 'P2'; protocol: string | 'COMPILE' }[];
}

/** The verb mapping of requests to criteria (English and Chinese). `COMPILE` resolves to BUILD, TYPECHECK or SYNTAX. */
const VERB_RULES: VerbRule[] = [
  {
    verb: 'implement',
    pattern:
      /\b(?:implement\w*|add(?:s|ed|ing)?|create\w*|build\w*|write|writes|writing|introduce\w*|support\w*|make|new)\b|实作|實作|实现|實現|新增|添加|增加|创建|創建|建立|加入|编写|編寫|开发|開發/i,
    criteria: [
      { id: 'CODE_COMPILES', description: 'The code compiles.', priority: 'P0', protocol: 'COMPILE' },
      { id: 'TESTS_PASS', description: 'The tests pass.', priority: 'P1', protocol: 'TEST' },
      {
        id: 'FUNCTIONALITY_WORKS',
        description: 'The requested functionality works.',
        priority: 'P1',
        protocol: 'FUNCTIONALITY',
      },
    ],
  },
  {
    verb: 'fix',
    pattern:
      /\b(?:fix(?:es|ed|ing)?|resolv\w*|repair\w*|patch\w*|debug\w*|bugs?)\b|修复|修復|修正|解决|解決|除错|除錯/i,
    criteria: [
      { id: 'BUG_RESOLVED', description: 'The bug is resolved.', priority: 'P1', protocol: 'FUNCTIONALITY' },
      {
        id: 'REGRESSION_TESTS_PASS',
        description: 'Regression tests pass.',
        priority: 'P1',
        protocol: 'TEST',
      },
      { id: 'NO_NEW_ERRORS', description: 'No new errors appear.', priority: 'P1', protocol: 'ERROR_FREE' },
    ],
  },
  {
    verb: 'refactor',
    pattern:
      /\b(?:refactor\w*|restructur\w*|clean\s?up|reorganiz\w*|renam\w*|extract\w*|simplif\w*)\b|重构|重構|整理|重命名/i,
    criteria: [
      {
        id: 'BEHAVIOR_UNCHANGED',
        description: 'Behaviour is unchanged (the existing tests still pass).',
        priority: 'P1',
        protocol: 'TEST',
      },
      {
        id: 'CODE_QUALITY_IMPROVED',
        description: 'Code quality improved.',
        priority: 'P2',
        protocol: 'LLM_JUDGE',
      },
      { id: 'TESTS_STILL_PASS', description: 'The tests still pass.', priority: 'P1', protocol: 'TEST' },
    ],
  },
  {
    verb: 'update',
    pattern:
      /\b(?:updat\w*|chang\w*|modif\w*|upgrad\w*|migrat\w*|adjust\w*)\b|修改|更新|变更|變更|升级|升級|调整|調整/i,
    criteria: [
      { id: 'CODE_COMPILES', description: 'The code compiles.', priority: 'P0', protocol: 'COMPILE' },
      { id: 'TESTS_STILL_PASS', description: 'The tests still pass.', priority: 'P1', protocol: 'TEST' },
    ],
  },
];

const CONSTRAINT_PATTERN =
  /(?:\b(?:do not|don't|must not|never|without)\s+(?:chang|break|modif|touch|remov|add)\w*[^.;,，。；]*|\bkeep\s+[^.;,，。；]*|\bbackward[s]?[- ]compatib\w*[^.;,，。；]*|(?:不要|不得|不可|不能|禁止|保持|不改变|不改變|向后兼容|向後相容|向下相容)[^.;,，。；]*)/gi;

/** Options of {@link deriveSuccessCriteria}. */
export interface DeriveSuccessCriteriaOptions {
  /** The workspace, for implicit criteria (tsconfig → NO_TYPE_ERRORS, tests → TESTS_PASS, linter → LINT_PASS). */
  workspace?: string;
  /** Pre-detected tooling (skips detection). */
  tooling?: Tooling;
}

/**
 * Derives verifiable success criteria from a request: action verbs map to
 * criteria (implement/add/实作/新增 → CODE_COMPILES, TESTS_PASS, FUNCTIONALITY_WORKS;
 * fix/修复 → BUG_RESOLVED, REGRESSION_TESTS_PASS, NO_NEW_ERRORS; refactor/重构 →
 * BEHAVIOR_UNCHANGED, CODE_QUALITY_IMPROVED, TESTS_STILL_PASS), the workspace adds implicit ones
 * (NO_SYNTAX_ERRORS; tsconfig → NO_TYPE_ERRORS; tests → TESTS_PASS and CODE_COVERAGE; linter →
 * LINT_PASS; build script → CODE_COMPILES; NO_RUNTIME_CRASHES (P0), NO_SECURITY_ISSUES,
 * DOCUMENTATION_UPDATED; plus TODO, judge, architecture and human-review criteria), and
 * constraints ("don't change the API", "保持向後相容") become judge criteria. Each criterion
 * names the protocol that checks it, with its P0/P1/P2 priority.
 *
 * @example
 * await deriveSuccessCriteria('实作 isPrime 函数', { workspace: '/repo' });
 * // [{ id: 'CODE_COMPILES', protocol: 'TYPECHECK', priority: 'P0', … }, { id: 'TESTS_PASS', … }, …]
 */
export async function deriveSuccessCriteria(
  request: string,
  options: DeriveSuccessCriteriaOptions = {},
): Promise<SuccessCriterion[]> {
  const tooling =
    options.tooling ?? (options.workspace !== undefined ? await detectTooling(options.workspace) : undefined);
  const compileProtocol = tooling?.commands.build
    ? 'BUILD'
    : tooling?.commands.typecheck || tooling?.typescript
      ? 'TYPECHECK'
      : 'SYNTAX';
  const criteria: SuccessCriterion[] = [];
  const add = (criterion: SuccessCriterion) => {
    if (!criteria.some((existing) => existing.id === criterion.id)) criteria.push(criterion);
  };
  const covers = (protocol: string) => criteria.some((criterion) => criterion.protocol === protocol);

  for (const rule of VERB_RULES) {
    if (!rule.pattern.test(request)) continue;
    for (const criterion of rule.criteria) {
      add({
        ...criterion,
        protocol: criterion.protocol === 'COMPILE' ? compileProtocol : criterion.protocol,
        source: 'verb',
      });
    }
  }

  const implicit = (criterion: Omit<SuccessCriterion, 'source'>) => {
    if (!covers(criterion.protocol)) add({ ...criterion, source: 'implicit' });
  };
  implicit({
    id: 'NO_SYNTAX_ERRORS',
    description: 'Changed files have no syntax errors.',
    priority: 'P0',
    protocol: 'SYNTAX',
  });
  if (tooling?.commands.build) {
    implicit({ id: 'CODE_COMPILES', description: 'The build passes.', priority: 'P0', protocol: 'BUILD' });
  }
  if (tooling?.commands.typecheck) {
    implicit({ id: 'NO_TYPE_ERRORS', description: 'No type errors.', priority: 'P1', protocol: 'TYPECHECK' });
  }
  if (tooling?.commands.test) {
    implicit({ id: 'TESTS_PASS', description: 'The tests pass.', priority: 'P1', protocol: 'TEST' });
  }
  if (tooling?.commands.lint)
    implicit({ id: 'LINT_PASS', description: 'Lint passes.', priority: 'P1', protocol: 'LINT' });
  if (tooling?.commands.integration) {
    implicit({
      id: 'INTEGRATION_TESTS_PASS',
      description: 'Integration tests pass.',
      priority: 'P1',
      protocol: 'INTEGRATION_TEST',
    });
  }
  if (tooling?.commands.e2e) {
    implicit({
      id: 'E2E_TESTS_PASS',
      description: 'End-to-end tests pass.',
      priority: 'P1',
      protocol: 'E2E_TEST',
    });
  }
  implicit({
    id: 'NO_RUNTIME_CRASHES',
    description: 'No program the work ran crashed (uncaught exception, panic, fatal signal).',
    priority: 'P0',
    protocol: 'CRASH_FREE',
  });
  implicit({
    id: 'NO_NEW_ERRORS',
    description: 'The last run of each command shows no uncaught error.',
    priority: 'P1',
    protocol: 'ERROR_FREE',
  });
  implicit({
    id: 'NO_SECURITY_ISSUES',
    description: 'No secrets or dangerous code added; no known vulnerable dependencies.',
    priority: 'P1',
    protocol: 'SECURITY_SCAN',
  });
  implicit({
    id: 'NO_TODO_COMMENTS',
    description: 'No TODO/FIXME left in the change.',
    priority: 'P2',
    protocol: 'TODO',
  });
  if (tooling?.commands.test) {
    implicit({
      id: 'CODE_COVERAGE',
      description: "Line coverage from the workspace's coverage tool is at least 80%.",
      priority: 'P2',
      protocol: 'COVERAGE',
    });
  }
  implicit({
    id: 'DOCUMENTATION_UPDATED',
    description: 'A public API change comes with README/CHANGELOG/docs updates.',
    priority: 'P2',
    protocol: 'DOCUMENTATION',
  });
  implicit({
    id: 'REQUIREMENT_MET',
    description: 'The change meets the request (LLM judge).',
    priority: 'P1',
    protocol: 'LLM_JUDGE',
  });
  implicit({
    id: 'ARCHITECTURE_REVIEWED',
    description: 'Structural changes fit the design.',
    priority: 'P2',
    protocol: 'ARCHITECT',
  });
  implicit({
    id: 'HUMAN_APPROVED',
    description: 'Sensitive changes are approved by a human.',
    priority: 'P1',
    protocol: 'HUMAN_REVIEW',
  });

  CONSTRAINT_PATTERN.lastIndex = 0;
  let index = 0;
  for (
    let match = CONSTRAINT_PATTERN.exec(request);
    match !== null;
    match = CONSTRAINT_PATTERN.exec(request)
  ) {
    index += 1;
    add({
      id: `CONSTRAINT_${index}`,
      description: match[0].trim(),
      priority: 'P1',
      protocol: 'LLM_JUDGE',
      source: 'constraint',
    });
  }
  return criteria;
}
