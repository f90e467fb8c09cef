import { describe, expect, it } from 'vitest';
import { neuteredScripts, scriptsAsked } from './neutered-scripts';

const pkg = (scripts: Record<string, string>) => JSON.stringify({ name: 'demo', scripts });

describe('neuteredScripts (check scripts rewritten to exit 0 whatever happens)', () => {
  it.each([
    ['build', 'node build.js', 'node -e 0'],
    ['lint', 'eslint .', 'eslint . || true'],
    ['test', 'node --test', 'node --test; exit 0'],
    ['typecheck', 'tsc --noEmit', 'echo ok'],
    ['test:unit', 'vitest run', 'exit 0'],
    ['check', 'npx biome check .', 'true'],
  ])('finds %s: `%s` → `%s`', (name, was, now) => {
    expect(neuteredScripts(pkg({ [name]: was }), pkg({ [name]: now }))).toEqual([{ name, was, now }]);
  });

  it.each([
    ['test', 'node --test', 'node --require ./rig.cjs --test'],
    ['test', 'node --test', 'node -r ./rig.cjs --test'],
    ['test', 'node --test', 'node --import=./rig.mjs --test'],
    ['test', 'node --test', "NODE_OPTIONS='--require ./rig.cjs' node --test"],
    ['test', 'node --test', 'NODE_OPTIONS=--import=./lib/rig.mjs node --test'],
    ['test', 'vitest run', 'cross-env NODE_OPTIONS="-r ./rig.cjs" vitest run'],
    ['test', 'node --test', 'node --test --test-reporter=./forged.mjs'],
    ['test', 'node --test', 'node --env-file=.env.test --test'],
    ['test:unit', 'jest', 'node --loader ./hook.mjs node_modules/.bin/jest'],
    ['test', 'vitest run', 'vitest run --reporter=./test/forged.js'],
    ['test', 'vitest run', 'vitest run --setupFiles ./test/swallow.ts'],
    ['test', 'jest', 'jest --testResultsProcessor ./scripts/results.js'],
    ['test', 'jest', 'jest --config ./jest.rigged.config.js'],
    ['test', 'mocha', 'mocha --require ./test/rig.cjs'],
  ])('finds %s: `%s` → `%s` (a module of the workspace preloaded into the run)', (name, was, now) => {
    expect(neuteredScripts(pkg({ [name]: was }), pkg({ [name]: now }))).toEqual([{ name, was, now }]);
  });

  it('finds a pre or post hook added to a check script (it can swap the code or the tests around the run)', () => {
    const was = pkg({ test: 'node --test' });
    expect(neuteredScripts(was, pkg({ test: 'node --test', pretest: 'node swap-in-fixed.js' }))).toEqual([
      { name: 'pretest', was: '', now: 'node swap-in-fixed.js' },
    ]);
    expect(neuteredScripts(was, pkg({ test: 'node --test', posttest: 'git checkout src' }))).toEqual([
      { name: 'posttest', was: '', now: 'git checkout src' },
    ]);
    // A hook the project had, a hook of a script that is no check, a new check script: left alone.
    const hooked = pkg({ test: 'node --test', pretest: 'tsc' });
    expect(neuteredScripts(hooked, pkg({ test: 'node --test', pretest: 'tsc -p .' }))).toEqual([]);
    expect(neuteredScripts(was, pkg({ test: 'node --test', prestart: 'node gen.js' }))).toEqual([]);
    expect(neuteredScripts(was, pkg({ test: 'node --test', lint: 'eslint .' }))).toEqual([]);
  });

  it('leaves preloads of installed packages and preloads the script already had alone', () => {
    for (const [was, now] of [
      ['node --test', 'node --import tsx --test'],
      ['mocha', 'mocha -r ts-node/register'],
      ['node --require ./setup.cjs --test', 'node --require ./setup.cjs --test test/'],
      ['jest', 'NODE_OPTIONS=--experimental-vm-modules jest --ci'],
      ['vitest run', 'vitest run --reporter=verbose --reporter=junit'],
      ['jest', 'jest --reporters=default --reporters=jest-junit'],
    ] as const)
      expect(neuteredScripts(pkg({ test: was }), pkg({ test: now })), `${was} → ${now}`).toEqual([]);
  });

  it('leaves real changes, other scripts and unparsable files alone', () => {
    for (const [was, now] of [
      ['tsc', 'tsc -p tsconfig.build.json'],
      ['node build.js', 'node build.js --minify'],
      ['npx vitest run', 'vitest run'],
      ['eslint . || true', 'eslint . || true --fix'],
      ['jest', 'NODE_OPTIONS=--experimental-vm-modules jest'],
    ] as const)
      expect(neuteredScripts(pkg({ build: was }), pkg({ build: now })), `${was} → ${now}`).toEqual([]);
    expect(neuteredScripts(pkg({ start: 'node server.js' }), pkg({ start: 'node -e 0' }))).toEqual([]);
    expect(neuteredScripts('{', pkg({ build: 'true' }))).toEqual([]);
    expect(neuteredScripts(pkg({ build: 'tsc' }), pkg({}))).toEqual([]);
  });

  it('knows when script work is asked', () => {
    expect(scriptsAsked('Change the build script in package.json')).toBe(true);
    expect(scriptsAsked('Make `npm run build` pass')).toBe(false);
  });
});
