import { describe, expect, it } from 'vitest';
import { askedSections, sectionContent } from './asked-sections';

describe('askedSections', () => {
  it('reads the section asked and the markdown files named with it', () => {
    expect(askedSections('Add a Usage section to README.md that explains how to start the server')).toEqual([
      { title: 'Usage', files: ['README.md'] },
    ]);
    expect(askedSections('Add a "Getting started" section to docs/guide.md')).toEqual([
      { title: 'Getting started', files: ['docs/guide.md'] },
    ]);
  });

  it('asks for nothing without a markdown file or a section', () => {
    expect(askedSections('Add a Usage section that explains the flags')).toEqual([]);
    expect(askedSections('Add a note to README.md about the port')).toEqual([]);
  });
});

describe('sectionContent', () => {
  it('finds a heading alone empty', () => {
    expect(sectionContent('# demo\n\n## Usage\n', 'Usage')).toBe('empty');
  });

  it('finds a heading followed only by the next heading or a sub-heading empty', () => {
    expect(sectionContent('# demo\n\n## Usage\n\n## License\n\nMIT\n', 'usage')).toBe('empty');
    expect(sectionContent('# demo\n\n## Usage\n\n### Flags\n', 'Usage')).toBe('empty');
  });

  it('finds text, a list or a code fence (even under a sub-heading) filled', () => {
    expect(sectionContent('## Usage\n\nRun `npm start`.\n', 'Usage')).toBe('filled');
    expect(sectionContent('## Usage\n\n### Flags\n\n- `--port`\n', 'Usage')).toBe('filled');
    expect(sectionContent('## Usage\n\n```sh\nnpm start\n```\n', 'Usage')).toBe('filled');
  });

  it('says when no heading has the title', () => {
    expect(sectionContent('# demo\n\nText.\n', 'Usage')).toBe('missing');
  });
});
