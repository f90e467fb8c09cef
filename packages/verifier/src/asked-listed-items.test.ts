import { describe, expect, it } from 'vitest';
import { askedLists, missingListedItems } from './asked-listed-items';

describe('askedLists', () => {
  it('reads lists of code-like names asked into a file', () => {
    expect(askedLists('Document the environment variables PORT, HOST and LOG_LEVEL in README.md')).toEqual([
      { file: 'README.md', items: ['PORT', 'HOST', 'LOG_LEVEL'] },
    ]);
    expect(askedLists('Add node_modules/ and dist/ to .gitignore')).toEqual([
      { file: '.gitignore', items: ['node_modules/', 'dist/'] },
    ]);
    expect(askedLists('Document the `--port` and `--host` flags in docs/cli.md')[0]?.items).toEqual([
      '`--port`',
      '`--host`',
    ]);
  });

  it('leaves lists of plain words alone', () => {
    expect(askedLists('Add error handling, logging and retries to src/api.ts')).toEqual([]);
    expect(askedLists('Add tests for add, sub and mul in test/math.test.js')).toEqual([]);
  });
});

describe('missingListedItems', () => {
  const files: Record<string, string> = {
    'README.md': '# demo\n\n- `PORT`: the port.\n',
    '.gitignore': '.env\nnode_modules\ndist/\n',
  };
  it('names the items the file does not hold', () => {
    expect(
      missingListedItems('Document PORT, HOST and LOG_LEVEL in README.md', (file) => files[file]),
    ).toEqual([{ file: 'README.md', missing: ['HOST', 'LOG_LEVEL'] }]);
  });
  it('accepts a folder written without its slash, and skips a file that does not exist', () => {
    expect(missingListedItems('Add node_modules/ and dist/ to .gitignore', (file) => files[file])).toEqual(
      [],
    );
    expect(missingListedItems('Add A_B and C_D to missing.txt', (file) => files[file])).toEqual([]);
  });
});
