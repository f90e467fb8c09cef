import { describe, expect, it } from 'vitest';
import { everyFileFolders, filesLeftOut } from './asked-every-file';

describe('asked every file of a folder', () => {
  it('reads the folders asked', () => {
    expect(everyFileFolders('Add a "farewell" key to every locale file in locales/')).toEqual(['locales']);
    expect(everyFileFolders('Update all the files in docs/guides/')).toEqual(['docs/guides']);
    expect(everyFileFolders('Add a key to locales/en.json')).toEqual([]);
  });

  it('finds the files of the kind changed that were left out', () => {
    const listed = ['locales/en.json', 'locales/fr.json', 'locales/de.json', 'locales/README.md'];
    expect(filesLeftOut('locales', listed, ['locales/en.json'])).toEqual([
      'locales/fr.json',
      'locales/de.json',
    ]);
    expect(
      filesLeftOut('locales', listed, ['locales/en.json', 'locales/fr.json', 'locales/de.json']),
    ).toEqual([]);
    expect(filesLeftOut('locales', listed, ['src/a.js'])).toEqual([]);
  });
});
