import { describe, expect, it } from 'vitest';
import { useTempWorkspaces } from './__fixtures__/temp-workspaces';
import { detectTooling } from './detect-tooling';

const tempWorkspace = useTempWorkspaces();
const workspace = async (files: Record<string, string>) => (await tempWorkspace(files)).root;

describe('detectTooling', () => {
  it('prefers package.json scripts and the lockfile package manager', async () => {
    const root = await workspace({
      'package.json': JSON.stringify({
        scripts: { build: 'tsup', test: 'vitest run', lint: 'biome check .', typecheck: 'tsc -b' },
      }),
      'pnpm-lock.yaml': '',
      'tsconfig.json': '{}',
    });
    const tooling = await detectTooling(root);
    expect(tooling).toMatchObject({
      packageManager: 'pnpm',
      typescript: true,
      testRunner: 'vitest',
      linter: 'script',
      hasTests: true,
      commands: {
        build: { argv: ['pnpm', 'run', 'build'], source: 'package.json scripts.build' },
        typecheck: { argv: ['pnpm', 'run', 'typecheck'] },
        test: { argv: ['pnpm', 'run', 'test'] },
        lint: { argv: ['pnpm', 'run', 'lint'] },
      },
    });
  });

  it('falls back to tsconfig → tsc --noEmit, eslint/biome configs, and ignores npm placeholder test scripts', async () => {
    const root = await workspace({
      'package.json': JSON.stringify({
        scripts: { test: 'echo "Error: no test specified" && exit 1' },
        devDependencies: { jest: '^29' },
      }),
      'tsconfig.json': '{}',
      'eslint.config.js': 'export default [];',
    });
    const tooling = await detectTooling(root);
    expect(tooling.commands.typecheck).toEqual({
      argv: ['npx', '--no-install', '--offline', 'tsc', '--noEmit'],
      source: 'tsconfig.json',
    });
    expect(tooling.commands.lint?.argv).toEqual([
      'npx',
      '--no-install',
      '--offline',
      'eslint',
      '.',
      '--max-warnings',
      '0',
    ]);
    expect(tooling.testRunner).toBe('jest');
    expect(tooling.packageManager).toBe('npm');
    const biome = await detectTooling(await workspace({ 'biome.json': '{}' }));
    expect(biome).toMatchObject({
      linter: 'biome',
      commands: { lint: { argv: ['npx', '--no-install', '--offline', 'biome', 'check', '.'] } },
    });
  });

  it('uses node --test for *.test.mjs files without a runner', async () => {
    const tooling = await detectTooling(await workspace({ 'src/a.mjs': '', 'test/a.test.mjs': '' }));
    expect(tooling).toMatchObject({
      testRunner: 'node',
      hasTests: true,
      commands: { test: { argv: ['node', '--test'] } },
    });
    expect(tooling.packageManager).toBeUndefined();
  });

  it('detects pytest from pytest.ini, pyproject or test files', async () => {
    expect(
      (await detectTooling(await workspace({ 'pytest.ini': '[pytest]\n' }))).commands.test?.argv,
    ).toEqual(['python3', '-m', 'pytest']);
    expect(
      (await detectTooling(await workspace({ 'pyproject.toml': '[tool.pytest.ini_options]\n' }))).testRunner,
    ).toBe('pytest');
    expect(
      (await detectTooling(await workspace({ 'tests/test_a.py': 'def test_a(): pass\n' }))).testRunner,
    ).toBe('pytest');
  });

  it('detects integration and e2e scripts, and reports nothing for an empty folder', async () => {
    const tooling = await detectTooling(
      await workspace({
        'package.json': JSON.stringify({ scripts: { 'test:integration': 'x', 'test:e2e': 'y' } }),
        'yarn.lock': '',
      }),
    );
    expect(tooling.commands).toEqual({
      integration: {
        argv: ['yarn', 'run', 'test:integration'],
        source: 'package.json scripts.test:integration',
      },
      e2e: { argv: ['yarn', 'run', 'test:e2e'], source: 'package.json scripts.test:e2e' },
    });
    const empty = await detectTooling(await workspace({}));
    expect(empty).toMatchObject({ commands: {}, hasTests: false, typescript: false });
  });
});
