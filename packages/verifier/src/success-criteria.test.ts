import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { deriveSuccessCriteria } from './success-criteria';

const workspace = useTempWorkspaces();

const ids = async (request: string, workspace?: string) =>
  (await deriveSuccessCriteria(request, workspace ? { workspace } : {})).map(
    (c) => `${c.id}:${c.priority}:${c.protocol}:${c.source}`,
  );

describe('deriveSuccessCriteria', () => {
  it('maps implement/add (English and Chinese) to compile, tests and functionality', async () => {
    for (const request of [
      'Implement isPrime in src/math.js',
      'add a login page',
      '实作 isPrime 函数',
      '新增登入功能',
    ]) {
      const verbs = (await ids(request)).filter((id) => id.endsWith(':verb'));
      expect(verbs).toEqual([
        'CODE_COMPILES:P0:SYNTAX:verb',
        'TESTS_PASS:P1:TEST:verb',
        'FUNCTIONALITY_WORKS:P1:FUNCTIONALITY:verb',
      ]);
    }
  });

  it('maps fix/修复 and refactor/重构', async () => {
    expect((await ids('修复登入 bug')).filter((id) => id.endsWith(':verb'))).toEqual([
      'BUG_RESOLVED:P1:FUNCTIONALITY:verb',
      'REGRESSION_TESTS_PASS:P1:TEST:verb',
      'NO_NEW_ERRORS:P1:ERROR_FREE:verb',
    ]);
    expect((await ids('Refactor the auth module')).filter((id) => id.endsWith(':verb'))).toEqual([
      'BEHAVIOR_UNCHANGED:P1:TEST:verb',
      'CODE_QUALITY_IMPROVED:P2:LLM_JUDGE:verb',
      'TESTS_STILL_PASS:P1:TEST:verb',
    ]);
    expect((await ids('重構資料層')).some((id) => id.startsWith('BEHAVIOR_UNCHANGED'))).toBe(true);
  });

  it('adds implicit criteria from the workspace, mapped to the right protocols', async () => {
    const ws = await workspace({
      'package.json': JSON.stringify({ scripts: { test: 'node --test', lint: 'biome check .' } }),
      'tsconfig.json': '{}',
    });
    const criteria = await ids('Add isPrime', ws.root);
    expect(criteria).toEqual([
      'CODE_COMPILES:P0:TYPECHECK:verb',
      'TESTS_PASS:P1:TEST:verb',
      'FUNCTIONALITY_WORKS:P1:FUNCTIONALITY:verb',
      'NO_SYNTAX_ERRORS:P0:SYNTAX:implicit',
      'LINT_PASS:P1:LINT:implicit',
      'NO_RUNTIME_CRASHES:P0:CRASH_FREE:implicit',
      'NO_NEW_ERRORS:P1:ERROR_FREE:implicit',
      'NO_SECURITY_ISSUES:P1:SECURITY_SCAN:implicit',
      'NO_TODO_COMMENTS:P2:TODO:implicit',
      'CODE_COVERAGE:P2:COVERAGE:implicit',
      'DOCUMENTATION_UPDATED:P2:DOCUMENTATION:implicit',
      'REQUIREMENT_MET:P1:LLM_JUDGE:implicit',
      'ARCHITECTURE_REVIEWED:P2:ARCHITECT:implicit',
      'HUMAN_APPROVED:P1:HUMAN_REVIEW:implicit',
    ]);
  });

  it('prefers BUILD for CODE_COMPILES when there is a build script, and turns constraints into judge criteria', async () => {
    const ws = await workspace({ 'package.json': JSON.stringify({ scripts: { build: 'tsup' } }) });
    const criteria = await deriveSuccessCriteria(
      "Add pagination to the API, but don't change the public API signatures. 保持向後相容",
      {
        workspace: ws.root,
      },
    );
    expect(criteria[0]).toMatchObject({ id: 'CODE_COMPILES', protocol: 'BUILD', priority: 'P0' });
    expect(criteria.filter((c) => c.source === 'constraint').map((c) => c.description)).toEqual([
      "don't change the public API signatures",
      '保持向後相容',
    ]);
  });

  it('still derives the always-on criteria for a request without a known verb', async () => {
    expect(await ids('Please look at the README')).toEqual([
      'NO_SYNTAX_ERRORS:P0:SYNTAX:implicit',
      'NO_RUNTIME_CRASHES:P0:CRASH_FREE:implicit',
      'NO_NEW_ERRORS:P1:ERROR_FREE:implicit',
      'NO_SECURITY_ISSUES:P1:SECURITY_SCAN:implicit',
      'NO_TODO_COMMENTS:P2:TODO:implicit',
      'DOCUMENTATION_UPDATED:P2:DOCUMENTATION:implicit',
      'REQUIREMENT_MET:P1:LLM_JUDGE:implicit',
      'ARCHITECTURE_REVIEWED:P2:ARCHITECT:implicit',
      'HUMAN_APPROVED:P1:HUMAN_REVIEW:implicit',
    ]);
  });
});
