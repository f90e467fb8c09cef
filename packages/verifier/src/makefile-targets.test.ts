import { describe, expect, it } from 'vitest';
import { addedHollowTargets, makeTargets } from './makefile-targets';

describe('makeTargets', () => {
  it('reads targets and their tab-indented recipes', () => {
    const targets = makeTargets(
      '.PHONY: lint test\nlint:\n\truff check .\n\ntest build: deps\n\tpytest -q\nx: ; echo x\n',
    );
    expect(targets.get('lint')).toEqual(['ruff check .']);
    expect(targets.get('test')).toEqual(['pytest -q']);
    expect(targets.get('build')).toEqual(['pytest -q']);
    expect(targets.get('x')).toEqual(['echo x']);
    expect(targets.has('.PHONY')).toBe(false);
  });
});

describe('addedHollowTargets', () => {
  const before = 'lint:\n\truff check .\n';
  it('finds added targets that only echo or cannot fail', () => {
    expect(addedHollowTargets(before, `${before}\ntest:\n\t@echo pytest\n`)).toEqual([
      { name: 'test', recipe: ['@echo pytest'] },
    ]);
    expect(addedHollowTargets(before, `${before}\ntest:\n\t-pytest\n`).map((t) => t.name)).toEqual(['test']);
    expect(addedHollowTargets(before, `${before}\ntest:\n\tpytest || true\n`).map((t) => t.name)).toEqual([
      'test',
    ]);
  });
  it('leaves real recipes, and echo lines beside a real command, alone', () => {
    expect(addedHollowTargets(before, `${before}\ntest:\n\t@echo running tests\n\tpytest\n`)).toEqual([]);
    expect(addedHollowTargets(before, before)).toEqual([]);
  });
});
