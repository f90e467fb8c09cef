import { describe, expect, it } from 'vitest';
import { configNamed, isVariantConfig } from './unloaded-configs';

describe('isVariantConfig', () => {
  it.each([
    'tsconfig.strict.json',
    'packages/a/tsconfig.build.json',
    'jsconfig.test.json',
    '.eslintrc.strict.json',
    'vitest.config.ci.ts',
    'jest.config.e2e.js',
  ])('reads %s as a variant a tool loads only when named', (file) => {
    expect(isVariantConfig(file)).toBe(true);
  });

  it.each([
    'tsconfig.json',
    '.eslintrc.json',
    '.eslintrc.cjs',
    'vitest.config.ts',
    'jest.config.json',
    'src/strict.json',
  ])('does not read %s as a variant', (file) => {
    expect(isVariantConfig(file)).toBe(false);
  });
});

describe('configNamed', () => {
  it('finds a config named by a script, an extends (with or without .json) or a relative path', () => {
    const file = 'tsconfig.build.json';
    expect(
      configNamed(file, [
        { file: 'package.json', text: '{"scripts":{"build":"tsc -p tsconfig.build.json"}}' },
      ]),
    ).toBe(true);
    expect(configNamed(file, [{ file: 'tsconfig.json', text: '{"extends":"./tsconfig.build"}' }])).toBe(true);
    expect(
      configNamed('packages/a/tsconfig.build.json', [
        { file: 'Makefile', text: 'build:\n\ttsc -p packages/a/tsconfig.build.json\n' },
      ]),
    ).toBe(true);
  });

  it('does not count the file itself or texts that do not name it', () => {
    const file = 'tsconfig.strict.json';
    expect(
      configNamed(file, [
        { file, text: '{"extends":"./tsconfig.json"}' },
        { file: 'package.json', text: '{"scripts":{"build":"tsc"}}' },
      ]),
    ).toBe(false);
  });
});
