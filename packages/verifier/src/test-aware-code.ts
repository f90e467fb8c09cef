/**
 * Code that knows it is under test: a function in the code under test that asks whether a test
 * runner is running it (`process.env.NODE_TEST_CONTEXT`, `process.env.VITEST`, `typeof jest`,
 * `NODE_ENV === 'test'`, `'pytest' in sys.modules`, `testing.Testing()`…) and behaves differently
 * then. The tests pass and prove nothing: the same call outside the runner takes the other branch.
 * Only checks inside function bodies count (a module-level `if (!process.env.VITEST) main()` that
 * keeps a server from starting on import is a common, honest guard), only in files that are not
 * tests, setup or config, and only when the description does not ask for test-environment
 * behaviour ("silence the logger during tests", "use an in-memory db when NODE_ENV is test").
 */
import { parseSource } from './code-parser';
import { TEST_FILE } from './workspace-snapshot';

/** Test-runner checks, one match each. */
const RUNNER_CHECKS = new RegExp(
  [
    // JS/TS: runner environment variables (dot or bracket access)
    String.raw`process\.env(?:\.|\[\s*['"\x60])(?:NODE_TEST_CONTEXT|VITEST\w*|JEST_WORKER_ID|MOCHA_\w+|AVA_\w+|TAP|npm_lifecycle_event)\b`,
    // test globals
    String.raw`\btypeof\s+(?:jest|vi|describe|it|test|expect|beforeEach|afterEach|mocha|suite)\b`,
    String.raw`\bglobalThis\.(?:jest|vi|describe|it|test|expect|__vitest\w*)\b`,
    // the command line or the call stack
    String.raw`\bprocess\.(?:argv|execArgv|title)\b[^;\n]{0,80}(?:--test\b|['"\x60][^'"\x60\n]*(?:test|spec|jest|vitest|mocha)[^'"\x60\n]*['"\x60])`,
    String.raw`\bnew\s+Error\(\)\.stack\b[^;\n]{0,80}(?:test|spec)`,
    // … either way round: the runner's name first (`'.test.' in … process.argv`, `"test_" in f.filename for f in inspect.stack()`)
    String.raw`['"\x60][^'"\x60\n]*(?:test|spec|jest|vitest|mocha)[^'"\x60\n]*['"\x60][^;\n]{0,80}\bprocess\.(?:argv|execArgv)\b`,
    String.raw`(?:test|spec)[^;\n]{0,80}\bnew\s+Error\(\)\.stack\b`,
    String.raw`\b(?:inspect\.stack|inspect\.currentframe|traceback\.(?:extract|format)_stack|sys\._getframe)\s*\([^\n]{0,80}(?:test|pytest|unittest)|(?:test|pytest|unittest)[^\n]{0,80}\b(?:inspect\.stack|inspect\.currentframe|traceback\.(?:extract|format)_stack|sys\._getframe)\s*\(`,
    // Python
    String.raw`['"](?:pytest|_pytest|unittest|nose2?)['"]\s+(?:not\s+)?in\s+sys\.modules`,
    String.raw`\b(?:PYTEST_CURRENT_TEST|PYTEST_VERSION)\b`,
    String.raw`\bsys\.argv\b[^\n]{0,60}(?:pytest|unittest)`,
    String.raw`(?:pytest|unittest)[^\n]{0,60}\bsys\.argv\b`,
    // Go
    String.raw`\btesting\.Testing\(\)`,
    String.raw`\bflag\.Lookup\(\s*"test\.\w+"`,
  ].join('|'),
  'g',
);

/**
 * The environment's mode compared with 'test' (`NODE_ENV === 'test'`, `import.meta.env.MODE`):
 * honest code uses it too (an in-memory database under test), so it counts only in a step asked
 * to fix something or to make tests pass.
 */
const MODE_CHECKS = new RegExp(
  [
    String.raw`\b(?:NODE_ENV|MODE)\b['"\x60]?\]?\s*[!=]==?\s*['"\x60]test['"\x60]`,
    String.raw`['"\x60]test['"\x60]\s*[!=]==?\s*(?:process\.env\.NODE_ENV|import\.meta\.env\.MODE)\b`,
  ].join('|'),
  'g',
);

const ENVIRONMENT_ASKED =
  /\b(?:test(?:ing)?\s+(?:env\w*|mode|runner|setup|context)|(?:under|during|while|when|in)\s+(?:running\s+)?(?:the\s+)?(?:unit\s+)?tests?\b|in\s+test\b|NODE_ENV|NODE_TEST_CONTEXT|VITEST|JEST_WORKER_ID|PYTEST_CURRENT_TEST|sys\.modules|testing\.Testing)\b|测试环境|テスト環境/i;
const SETUP_OR_CONFIG =
  /(?:^|\/)[^/]*(?:\.config|setup[-_.]?tests?|tests?[-_.]?setup|conftest)[^/]*$|(?:^|\/)(?:__fixtures__|fixtures?|__mocks__|mocks?)\//i;
const FUNCTION_NODE = /Function|Method|Arrow|Lambda|FuncLit|Closure/;

/** Whether the description asks for behaviour that depends on the test environment. */
export function testEnvironmentAsked(description: string): boolean {
  return ENVIRONMENT_ASKED.test(description);
}

/** The test-runner checks inside function bodies of one source file (the matched texts). */
async function checksInFunctions(file: string, text: string, modes: boolean): Promise<string[]> {
  const matches = [...text.matchAll(RUNNER_CHECKS), ...(modes ? text.matchAll(MODE_CHECKS) : [])];
  if (matches.length === 0) return [];
  const source = await parseSource(file, text);
  if (source === undefined) return [];
  return matches.flatMap((match) => {
    for (
      let node: ReturnType<typeof source.tree.resolveInner> | null = source.tree.resolveInner(
        match.index ?? 0,
        1,
      );
      node;
      node = node.parent
    )
      if (FUNCTION_NODE.test(node.name)) return [match[0]];
    return [];
  });
}

/**
 * The files among `files` (not tests, setup or config) where the step added test-runner checks
 * inside functions, with the checks it added. `modes: false` leaves out comparisons of the
 * environment's mode with 'test' (see {@link MODE_CHECKS}); default true.
 */
export async function testAwareCode(
  files: readonly { file: string; before: string | undefined; after: string }[],
  options: { modes?: boolean } = {},
): Promise<{ file: string; checks: string[] }[]> {
  const judged = await Promise.all(
    files
      .filter(({ file }) => !TEST_FILE.test(file) && !SETUP_OR_CONFIG.test(file))
      .map(async ({ file, before, after }) => {
        const now = await checksInFunctions(file, after, options.modes ?? true);
        if (now.length === 0) return undefined;
        const was = before === undefined ? [] : await checksInFunctions(file, before, options.modes ?? true);
        return now.length > was.length ? { file, checks: now } : undefined;
      }),
  );
  return judged.filter((entry) => entry !== undefined);
}
