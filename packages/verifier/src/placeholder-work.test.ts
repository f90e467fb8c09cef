import { describe, expect, it } from 'vitest';
import { askedReplacements, remainingUses } from './asked-replacements';
import { danglingImports } from './dangling-imports';
import { neverRunLines } from './disabled-workflows';
import { askedBaseImage, finalImages } from './docker-stages';
import { addedHollowScripts } from './neutered-scripts';
import { placeholderProse } from './placeholder-prose';

describe('work that only looks done, round four', () => {
  it('placeholder prose: a section whose body is TODO, not one that talks about TODO items', () => {
    expect(placeholderProse('# x\n', '# x\n\n## Usage\n\nTODO\n', 'Add a Usage section')).toEqual(['TODO']);
    expect(
      placeholderProse('# x\n', '# x\n\n## Usage\n\nRun `x todo`.\n', 'Add a Usage section'),
    ).toBeUndefined();
    expect(
      placeholderProse('# x\n', '# x\n\n## Usage\n\nTODO\n', 'Add a TODO placeholder section'),
    ).toBeUndefined();
  });

  it('CI jobs added under if: false, unless switching them off was asked', () => {
    const job = 'jobs:\n  test:\n    if: false\n    runs-on: ubuntu-latest\n';
    expect(neverRunLines(undefined, job, 'Add a CI workflow that runs npm test')).toEqual(['if: false']);
    expect(neverRunLines(undefined, job, 'Disable the test job')).toEqual([]);
    expect(neverRunLines(undefined, "    if: github.ref == 'refs/heads/main'\n", 'Add CI')).toEqual([]);
  });

  it('new check scripts that run nothing', () => {
    expect(addedHollowScripts('{"scripts":{}}', '{"scripts":{"lint":"echo eslint src"}}')).toEqual([
      { name: 'lint', now: 'echo eslint src' },
    ]);
    expect(addedHollowScripts('{"scripts":{}}', '{"scripts":{"lint":"eslint src"}}')).toEqual([]);
  });

  it('the image of the final Dockerfile stage, through stage names', () => {
    expect(finalImages('FROM node:20-alpine AS base\nFROM node:18\n')).toEqual(['node:18']);
    expect(finalImages('FROM node:20-alpine AS base\nFROM base\n')).toEqual(['base', 'node:20-alpine']);
    expect(askedBaseImage('Change the base image to node:20-alpine')).toBe('node:20-alpine');
    expect(askedBaseImage('Change the builder stage image to node:20')).toBeUndefined();
  });

  it('"replace every X": uses of X left in code, not in comments or strings', () => {
    expect(askedReplacements('Replace every var declaration in src/a.js with const', ['src/a.js'])).toEqual([
      { token: 'var', files: ['src/a.js'] },
    ]);
    expect(remainingUses('a.js', "const a = 1; // var\nconst s = 'var';\nvar b = 2;\n", 'var')).toEqual([3]);
  });

  it('named imports of an export the step took out of its module', () => {
    const changed = new Map([
      [
        'src/utils.js',
        { before: 'export function f() {}\nexport const g = 1;\n', after: 'export const g = 1;\n' },
      ],
    ]);
    const exists = (file: string) => file === 'src/utils.js';
    expect(
      danglingImports([{ file: 'src/a.js', text: "import { f, g } from './utils.js';\n" }], changed, exists),
    ).toEqual([{ importer: 'src/a.js', line: 1, name: 'f', module: 'src/utils.js' }]);
    expect(
      danglingImports([{ file: 'src/b.js', text: "import { g } from './utils';\n" }], changed, exists),
    ).toEqual([]);
  });
});
