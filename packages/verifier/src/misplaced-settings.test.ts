import { describe, expect, it } from 'vitest';
import { askedManifest, misplacedSettings } from './misplaced-settings';

const TSCONFIG = '{\n  "compilerOptions": {\n    "target": "es2022"\n  }\n}\n';
const manifest = (extra: Record<string, unknown>) =>
  JSON.stringify({ name: 'demo', scripts: { test: 'node --test' }, ...extra });

describe('askedManifest', () => {
  it('reads the scripts and dependency sections a description asks for', () => {
    expect(askedManifest('Add a `lint` script to package.json that runs `eslint .`').scripts).toEqual([
      'lint',
    ]);
    expect(askedManifest('Create an npm script called `build:css`').scripts).toEqual(['build:css']);
    expect(askedManifest('Add lodash to the dependencies').dependencies).toEqual([
      { name: 'lodash', section: 'dependencies' },
    ]);
    expect(askedManifest('Add `vitest` as a dev dependency').dependencies).toEqual([
      { name: 'vitest', section: 'devDependencies' },
    ]);
    expect(askedManifest('Declare @types/node@20 as a peer dependency').dependencies).toEqual([
      { name: '@types/node', section: 'peerDependencies' },
    ]);
  });

  it('reads nothing from a description that asks for no script or section', () => {
    expect(askedManifest('Run the lint script and fix what it reports')).toEqual({
      scripts: [],
      dependencies: [],
    });
  });
});

describe('misplacedSettings', () => {
  it('finds a compiler option added at the top level of tsconfig.json (comments and trailing commas allowed)', () => {
    expect(
      misplacedSettings(
        'Enable strict mode',
        'tsconfig.json',
        TSCONFIG,
        '{\n  // on\n  "strict": true,\n  "compilerOptions": {},\n}\n',
      ),
    ).toHaveLength(1);
    expect(
      misplacedSettings(
        'x',
        'packages/a/tsconfig.build.json',
        undefined,
        '{ "compilerOptions": {}, "outDir": "dist" }',
      ),
    ).toHaveLength(1);
  });

  it('leaves top-level tsconfig keys that belong there, and options under compilerOptions, alone', () => {
    expect(
      misplacedSettings(
        'Enable strict mode',
        'tsconfig.json',
        TSCONFIG,
        '{ "extends": "./base.json", "include": ["src"], "compilerOptions": { "strict": true } }',
      ),
    ).toEqual([]);
  });

  it('finds an asked script put outside `scripts`', () => {
    expect(
      misplacedSettings(
        'Add a `lint` script',
        'package.json',
        manifest({}),
        manifest({ config: { lint: 'eslint .' } }),
      ),
    ).toEqual([expect.stringContaining('config.lint')]);
  });

  it('finds a dependency put in another section than the one asked', () => {
    const description = 'Add lodash to the dependencies';
    expect(
      misplacedSettings(
        description,
        'package.json',
        manifest({}),
        manifest({ devDependencies: { lodash: '1' } }),
      ),
    ).toEqual([expect.stringContaining('devDependencies')]);
    expect(
      misplacedSettings(
        description,
        'package.json',
        manifest({}),
        manifest({ dependencies: { lodash: '1' } }),
      ),
    ).toEqual([]);
  });

  it('leaves a script in `scripts` and files it does not know alone', () => {
    expect(
      misplacedSettings(
        'Add a `lint` script',
        'package.json',
        manifest({}),
        JSON.stringify({ scripts: { lint: 'x' } }),
      ),
    ).toEqual([]);
    expect(misplacedSettings('Enable strict', 'config.json', '{}', '{ "strict": true }')).toEqual([]);
  });
});
