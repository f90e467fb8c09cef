import { describe, expect, it } from 'vitest';
import { cleanTexts, leakCases } from './__fixtures__/redaction-corpus';
import { createRedactor } from './create-redactor';

describe('the redaction corpus', () => {
  it('has at least 60 leak cases in every class, and clean texts', () => {
    expect(leakCases.length).toBeGreaterThanOrEqual(60);
    for (const kind of [
      'shape',
      'assignment',
      'header',
      'private-key',
      'known',
      'encoded',
      'partial',
      'split',
    ])
      expect(leakCases.some((testCase) => testCase.kind === kind)).toBe(true);
    expect(cleanTexts.length).toBeGreaterThanOrEqual(20);
  });

  it('removes every leak, keeps the context, and leaves clean texts unchanged', () => {
    const failures: string[] = [];
    const byKind = new Map<string, { total: number; redacted: number }>();
    for (const testCase of leakCases) {
      const redactor = createRedactor({ env: testCase.known ?? {}, registered: false });
      const out = redactor.redact(testCase.text);
      const leaked = testCase.leaks.filter((leak) => out.includes(leak));
      const lost = (testCase.keep ?? []).filter((keep) => !out.includes(keep));
      const figures = byKind.get(testCase.kind) ?? { total: 0, redacted: 0 };
      figures.total++;
      if (leaked.length === 0) figures.redacted++;
      byKind.set(testCase.kind, figures);
      if (leaked.length > 0)
        failures.push(`${testCase.name}: leaked ${JSON.stringify(leaked)} in ${JSON.stringify(out)}`);
      if (lost.length > 0)
        failures.push(`${testCase.name}: lost ${JSON.stringify(lost)} in ${JSON.stringify(out)}`);
    }
    const redactor = createRedactor({ env: {}, registered: false });
    let unchanged = 0;
    for (const text of cleanTexts) {
      const out = redactor.redact(text);
      if (out === text) unchanged++;
      else failures.push(`clean text changed: ${JSON.stringify(text)} → ${JSON.stringify(out)}`);
    }
    const redacted = [...byKind.values()].reduce((sum, figures) => sum + figures.redacted, 0);
    const perKind = [...byKind]
      .map(([kind, figures]) => `${kind} ${figures.redacted}/${figures.total}`)
      .join(', ');
    console.log(
      `redaction corpus: ${redacted}/${leakCases.length} leak cases redacted (${perKind}); ${unchanged}/${cleanTexts.length} clean texts unchanged`,
    );
    expect(failures).toEqual([]);
  });
});
