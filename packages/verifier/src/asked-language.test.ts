import { describe, expect, it } from 'vitest';
import { filesInOtherLanguage } from './asked-language';

describe('asked language', () => {
  it('finds work done only in another language than the package asked', () => {
    expect(filesInOtherLanguage('Fix slugify in the Python package', ['js/src/slug.js'])).toEqual([
      'js/src/slug.js',
    ]);
    expect(
      filesInOtherLanguage('Fix slugify in the Python package', ['py/slug.py', 'js/src/slug.js']),
    ).toEqual([]);
    expect(filesInOtherLanguage('Add retries to the Go client', ['client/retry.go'])).toEqual([]);
    expect(filesInOtherLanguage('Fix slugify', ['js/src/slug.js'])).toEqual([]);
    expect(filesInOtherLanguage('Document the Python package', ['README.md'])).toEqual([]);
  });
});
