import { describe, expect, it } from 'vitest';
import { admitsFailure } from './admits-failure';

describe('admitsFailure', () => {
  it('finds an admission, not a report of errors the step resolved or silenced', () => {
    expect(admitsFailure('[SUCCESS]: wrote src/a.ts but could not run the tests')).toBe(
      'could not run the tests',
    );
    expect(admitsFailure('[SUCCESS]: done; the lint errors remain')).toMatch(/lint errors/);
    expect(admitsFailure('[SUCCESS]: the lint still fails in src/a.js')).toMatch(/lint still fails/);
    for (const notes of [
      '[SUCCESS]: resolved the lint errors in src/app.js',
      '[SUCCESS]: silenced the unused-import lint error in src/app.js',
      '[SUCCESS]: cleared the build errors',
      '[SUCCESS]: fixed the bug where parse failed to handle empty input',
    ])
      expect(admitsFailure(notes), notes).toBeUndefined();
  });
});
