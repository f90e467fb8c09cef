import { describe, expect, it } from 'vitest';
import { askedContentFinding } from './check-asked-content';

const env = (description: string, files: Record<string, string>, before: Record<string, string> = {}) => ({
  description,
  facts: { read: (file: string) => files[file] },
  changes: { textBefore: async (file: string) => before[file] },
});
const modified = (...files: string[]) => ({ created: [], modified: files });
const all = () => true;

describe('askedContentFinding', () => {
  it('fails an asked section that is only a heading, and passes it with text', async () => {
    const ask = 'Add a Usage section to README.md that explains how to start';
    const empty = await askedContentFinding(
      env(ask, { 'README.md': '# demo\n\n## Usage\n' }),
      modified('README.md'),
      all,
    );
    expect(empty?.status).toBe('fail');
    expect(empty?.message).toContain('"Usage" section in README.md');
    expect(
      await askedContentFinding(
        env(ask, { 'README.md': '# demo\n\n## Usage\n\nRun it.\n' }),
        modified('README.md'),
        all,
      ),
    ).toBeUndefined();
  });

  it('fails a changelog entry added under another version than asked', async () => {
    const before = '# Changelog\n\n## 1.2.0\n\n- A.\n\n## 1.1.0\n\n- B.\n';
    const ask = 'Add an entry under 1.2.0 in CHANGELOG.md: "Fix C"';
    const wrong = await askedContentFinding(
      env(ask, { 'CHANGELOG.md': before.replace('- B.', '- B.\n- Fix C.') }, { 'CHANGELOG.md': before }),
      modified('CHANGELOG.md'),
      all,
    );
    expect(wrong?.message).toContain(
      'under 1.2.0 in CHANGELOG.md, but CHANGELOG.md:10 adds "- Fix C." under 1.1.0',
    );
    expect(
      await askedContentFinding(
        env(ask, { 'CHANGELOG.md': before.replace('- A.', '- A.\n- Fix C.') }, { 'CHANGELOG.md': before }),
        modified('CHANGELOG.md'),
        all,
      ),
    ).toBeUndefined();
  });

  it('fails a constant defined with another value, and passes the asked one', async () => {
    const ask = 'Add MAX_RETRIES = 5 to src/config.ts';
    const wrong = await askedContentFinding(
      env(ask, { 'src/config.ts': 'export const MAX_RETRIES = 3;\n' }),
      modified('src/config.ts'),
      all,
    );
    expect(wrong?.message).toContain('`MAX_RETRIES = 5`, but src/config.ts:1 defines it as 3');
    expect(
      await askedContentFinding(
        env(ask, { 'src/config.ts': 'export const MAX_RETRIES = 5;\n' }),
        modified('src/config.ts'),
        all,
      ),
    ).toBeUndefined();
  });

  it('reads only the files the step changed', async () => {
    const ask = 'Add MAX_RETRIES = 5 to src/config.ts';
    expect(
      await askedContentFinding(
        env(ask, { 'src/config.ts': 'export const MAX_RETRIES = 3;\n' }),
        modified(),
        all,
      ),
    ).toBeUndefined();
  });
});
