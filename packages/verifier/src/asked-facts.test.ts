import { describe, expect, it } from 'vitest';
import { askedFacts } from './asked-facts';

describe('askedFacts', () => {
  it('reads the fact a step is asked to check', () => {
    expect(askedFacts('Check that src/a.js exports `double`')).toEqual([
      { kind: 'symbol', file: 'src/a.js', name: 'double', exported: true },
    ]);
    expect(askedFacts('Verify that src/a.js exports a double function')).toEqual([
      { kind: 'symbol', file: 'src/a.js', name: 'double', exported: true },
    ]);
    expect(askedFacts('Make sure src/a.js has main()')).toEqual([
      { kind: 'symbol', file: 'src/a.js', name: 'main', exported: false },
    ]);
    expect(askedFacts('Confirm that README.md contains "Installation"')).toEqual([
      { kind: 'text', file: 'README.md', text: 'Installation' },
    ]);
  });

  it('reads no fact from open questions or checks of other things', () => {
    for (const description of [
      'Check whether `src/a.ts` declares `Id`',
      'Check if README.md contains "x"',
      'Check the tests pass',
      'Verify the build',
    ])
      expect(askedFacts(description), description).toEqual([]);
  });
});
