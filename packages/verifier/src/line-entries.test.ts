import { describe, expect, it } from 'vitest';
import { hasLineEntry, isLineEntryFile } from './line-entries';

describe('line entries', () => {
  it('knows ignore lists, env files and requirements lists, not code', () => {
    for (const file of ['.gitignore', 'web/.dockerignore', '.env', '.env.local', 'requirements-dev.txt'])
      expect(isLineEntryFile(file), file).toBe(true);
    for (const file of ['src/env.ts', 'README.md', 'package.json'])
      expect(isLineEntryFile(file), file).toBe(false);
  });

  it('finds an entry by its line, not by a comment or a value', () => {
    expect(hasLineEntry('.env', 'PORT=3000\nexport DEBUG=1\n', 'DEBUG')).toBe(true);
    expect(hasLineEntry('.env', 'PORT=3000\n# DEBUG=1\nNAME=DEBUG\n', 'DEBUG')).toBe(false);
    expect(hasLineEntry('.gitignore', 'dist/\n/coverage\n', 'coverage')).toBe(true);
    expect(hasLineEntry('.gitignore', 'dist/\n/coverage\n', 'dist')).toBe(true);
    expect(hasLineEntry('.gitignore', 'dist\n# coverage\n', 'coverage')).toBe(false);
    expect(hasLineEntry('requirements.txt', 'Requests>=2.31\n', 'requests')).toBe(true);
  });
});
