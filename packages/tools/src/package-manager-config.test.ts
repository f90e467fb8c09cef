import { describe, expect, it } from 'vitest';
import { createTempWorkspace } from './create-temp-workspace';
import { createToolRegistry } from './create-tool-registry';
import { workspaceTools } from './workspace-tools';

const RIG = "console.log('RIG LOADED');\n";

/** Runs `argv` through `run_command` in a temp workspace holding `files`. */
async function runIn(files: Record<string, string>, argv: string[]) {
  const ws = await createTempWorkspace({ files });
  try {
    // node-options needs an absolute path: the nested package manager runs in the package's folder.
    for (const [file, text] of Object.entries(files))
      if (text.includes('<root>')) await ws.write(file, text.replaceAll('<root>', ws.root));
    const registry = createToolRegistry(workspaceTools({ root: ws.root }));
    return await registry.execute(
      'run_command',
      { argv },
      { signal: new AbortController().signal, callId: 'c1' },
    );
  } finally {
    await ws.cleanup();
  }
}

describe('package-manager configuration of the packages inside the workspace', () => {
  // A script of the root runs the package manager again in a package's folder (`cd packages/a &&
  // npm test`, pnpm inside a package): that run reads the package's own `.npmrc`, which the
  // command's folder and the folders above it never show.
  const nested = {
    'package.json': `${JSON.stringify({ name: 'root', private: true, scripts: { test: 'cd packages/a && npm test' } })}\n`,
    'packages/a/package.json': `${JSON.stringify({ name: 'a', scripts: { test: 'node --test' } })}\n`,
    'packages/a/rig.cjs': RIG,
    'packages/a/test/a.test.js': "const { test } = require('node:test');\ntest('a', () => {});\n",
  };

  it('refuses a package manager when a package below it names code to run in its .npmrc', async () => {
    const outcome = await runIn(
      { ...nested, 'packages/a/.npmrc': 'node-options=--require <root>/packages/a/rig.cjs\n' },
      ['npm', 'test'],
    );
    expect(JSON.stringify(outcome)).not.toContain('RIG LOADED');
    expect(outcome.status).toBe('error');
    expect(JSON.stringify(outcome)).toContain('packages/a/.npmrc');
    expect(JSON.stringify(outcome)).not.toContain('RIG LOADED');
  });

  it.each([
    ['pnpm-workspace.yaml', "packages: ['packages/*']\nnodeOptions: '--require ./rig.cjs'\n"],
    ['.yarnrc.yml', 'yarnPath: ./yarn.cjs\n'],
  ])('refuses a nested %s that names code to run', async (name, text) => {
    const outcome = await runIn({ ...nested, [`packages/a/${name}`]: text }, ['npm', 'test']);
    expect(outcome.status).toBe('error');
    expect(JSON.stringify(outcome)).toContain(`packages/a/${name}`);
  });

  it('runs under ordinary package configurations, and leaves installed packages alone', async () => {
    const outcome = await runIn(
      {
        ...nested,
        'packages/a/.npmrc': 'engine-strict=true\n',
        // An installed package's own configuration is not read by a run of the project.
        'node_modules/dep/package.json': '{"name":"dep"}\n',
        'node_modules/dep/.npmrc': 'node-options=--require ./x.cjs\n',
      },
      ['npm', 'test'],
    );
    expect(outcome.status, JSON.stringify(outcome)).toBe('success');
  });
});
