import { describe, expect, it } from 'vitest';
import { flagSetting, flagsAskedOn } from './asked-flags';

describe('flagsAskedOn', () => {
  it('reads the flags a description asks to be on', () => {
    expect(flagsAskedOn('Add a `newCheckout` feature flag to src/flags.js and enable it by default')).toEqual(
      ['newCheckout'],
    );
    expect(flagsAskedOn('Turn on the `BETA_SEARCH` flag in app/settings.py')).toEqual(['BETA_SEARCH']);
    expect(flagsAskedOn('Enable `FEATURE_EXPORT` by default')).toEqual(['FEATURE_EXPORT']);
  });

  it('reads none when the flag is asked off, or nothing names a flag', () => {
    expect(flagsAskedOn('Add a `beta` flag, off by default')).toEqual([]);
    expect(flagsAskedOn('Disable the `legacyUi` flag')).toEqual([]);
    expect(flagsAskedOn('Enable strict mode in tsconfig.json')).toEqual([]);
  });
});

describe('flagSetting', () => {
  it.each([
    ['src/flags.js', 'export const flags = { newCheckout: false, dark: true };\n', 'newCheckout'],
    ['app/settings.py', 'BETA_SEARCH = False  # beta search on\n', 'BETA_SEARCH'],
    ['flags.json', '{"fastSync": false}\n', 'fastSync'],
    ['.env.example', 'FEATURE_EXPORT=false\n', 'FEATURE_EXPORT'],
    ['src/flags.js', "export const newCheckout = process.env.NEW_CHECKOUT === 'true';\n", 'newCheckout'],
    ['src/flags.js', "define('newCheckout', { default: false });\n", 'newCheckout'],
  ])('is off in %s: %j', async (file, text, name) => {
    expect(await flagSetting(file, text, name)).toBe('off');
  });

  it.each([
    ['src/flags.js', 'export const flags = {\n  newCheckout: true,\n};\n', 'newCheckout'],
    ['app/settings.py', 'BETA_SEARCH = True\n', 'BETA_SEARCH'],
    ['src/flags.js', "export const newCheckout = process.env.NEW_CHECKOUT !== 'false';\n", 'newCheckout'],
    ['src/flags.js', '// newCheckout: false\nexport const flags = { newCheckout: true };\n', 'newCheckout'],
  ])('is on in %s: %j', async (file, text, name) => {
    expect(await flagSetting(file, text, name)).toBe('on');
  });

  it('is unset when only a type or a read names it', async () => {
    expect(
      await flagSetting('src/f.ts', 'interface Flags {\n  newCheckout: boolean;\n}\n', 'newCheckout'),
    ).toBe(undefined);
    expect(await flagSetting('src/f.js', 'if (flags.newCheckout) run();\n', 'newCheckout')).toBe(undefined);
  });
});
