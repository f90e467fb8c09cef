import { describe, expect, it } from 'vitest';
import { buildStepPrompt, buildSummaryPrompt } from './build-step-prompt';

const step = { id: 's1', description: 'Do the thing.', successCriteria: [], requiredTools: [] };

describe('buildStepPrompt', () => {
  it('leaves out empty sections', () => {
    const text = buildStepPrompt({ step });
    expect(text).toBe(
      '# Your step: s1\n\nDo the thing.\n\nDo this step now with the tools. When it is done, or cannot be done, call mark_step with [SUCCESS]: or [FAIL]: notes and your claims.',
    );
  });

  it('shows an empty dependency output explicitly and flags unverified ones', () => {
    const text = buildStepPrompt({
      step,
      goal: '  Goal.  ',
      dependencyOutputs: [{ stepId: 'd', description: 'Dep', output: '  ', unverified: true }],
    });
    expect(text).toContain('# Goal of the whole run\n\nGoal.');
    expect(text).toContain('### d: Dep\n(UNVERIFIED');
    expect(text).toContain('(no output recorded)');
  });

  it('shows a dependency confidence below 0.7 as UNVERIFIED, and nothing for a confident one', () => {
    const text = buildStepPrompt({
      step,
      dependencyOutputs: [
        { stepId: 'low', description: 'Low', output: 'x', confidence: 0.55 },
        { stepId: 'high', description: 'High', output: 'y', confidence: 0.93 },
      ],
    });
    expect(text).toContain('### low: Low\n(UNVERIFIED (confidence 0.55)');
    expect(text).toContain('### high: High\n\ny');
  });
});

describe('buildSummaryPrompt', () => {
  it('names the limit and forbids tools', () => {
    expect(buildSummaryPrompt({ successes: 1, mode: 'single' })).toContain(
      '1 successful tool round (single mode)',
    );
    expect(buildSummaryPrompt({ successes: 5, mode: 'auto' })).toContain(
      '5 successful tool rounds (auto mode)',
    );
    expect(buildSummaryPrompt({ successes: 5, mode: 'auto' })).toContain('Do not call any tools');
  });
});
