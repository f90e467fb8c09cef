import { describe, expect, it } from 'vitest';
import { askedVersionPins, pinsVersion } from './asked-version-pins';

describe('askedVersionPins', () => {
  it('reads the version asked of a version file', () => {
    expect(askedVersionPins('Pin Node 20 in .nvmrc')).toEqual([{ file: '.nvmrc', version: '20' }]);
    expect(askedVersionPins('Set the Python version to 3.12 in `.python-version`')).toEqual([
      { file: '.python-version', version: '3.12' },
    ]);
    expect(askedVersionPins('Update .nvmrc to the latest LTS')).toEqual([]);
    expect(askedVersionPins('Move from Node 18 to 20 in .nvmrc')).toEqual([]);
  });
});

describe('pinsVersion', () => {
  it('accepts the version or a more precise one, not another', () => {
    expect(pinsVersion('20\n', '20')).toBe(true);
    expect(pinsVersion('v20.11.1\n', '20')).toBe(true);
    expect(pinsVersion('nodejs 20.11.1\npython 3.12.1\n', '3.12')).toBe(true);
    expect(pinsVersion('18\n', '20')).toBe(false);
    expect(pinsVersion('3.11\n', '3.1')).toBe(false);
    expect(pinsVersion('200\n', '20')).toBe(false);
  });
});
