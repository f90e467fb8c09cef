import { describe, expect, it } from 'vitest';
import { addedChangelogLines, askedChangelogEntries } from './asked-changelog-entries';

describe('askedChangelogEntries', () => {
  it.each([
    ['Add an entry under 1.2.0 in CHANGELOG.md: "Fix crash on empty input"', '1.2.0', ['CHANGELOG.md']],
    ['In CHANGELOG.md, add "Support Node 22" to the 1.1.0 section', '1.1.0', ['CHANGELOG.md']],
    ['Add a changelog entry for version 2.0.0 saying "Drop Node 16"', '2.0.0', []],
    ['Note the fix in the changelog under v3.1', '3.1', []],
  ])('%s', (description, version, files) => {
    expect(askedChangelogEntries(description)).toEqual([{ version, files }]);
  });

  it('asks for nothing outside a changelog or without a version', () => {
    expect(askedChangelogEntries('Bump the version to 1.2.0 in package.json')).toEqual([]);
    expect(askedChangelogEntries('Add an entry to CHANGELOG.md for the fix')).toEqual([]);
  });
});

describe('addedChangelogLines', () => {
  const before = '# Changelog\n\n## [1.2.0] - 2026-01-01\n\n- A.\n\n## 1.1.0\n\n- B.\n';
  it('gives each added line with the release heading it lies under', () => {
    expect(addedChangelogLines(before, before.replace('- B.', '- B.\n- C.'))).toEqual([
      { line: 10, text: '- C.', release: '1.1.0' },
    ]);
    expect(addedChangelogLines(before, before.replace('- A.', '- A.\n\n### Fixed\n\n- C.'))).toEqual([
      { line: 9, text: '- C.', release: '1.2.0' },
    ]);
  });

  it('takes an Unreleased heading as a release of its own', () => {
    expect(addedChangelogLines(undefined, '## Unreleased\n\n- C.\n')).toEqual([
      { line: 3, text: '- C.', release: 'unreleased' },
    ]);
  });
});
