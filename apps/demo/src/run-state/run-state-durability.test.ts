import type { RunEvent } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';
import { foldRunEvents } from './run-state';

describe('run state: what a resume did', () => {
  it('shows reconciled calls and a repaired journal in the timeline', () => {
    const events: RunEvent[] = [
      { type: 'run-started', runId: 'r', at: 1, request: 'task', resumed: true },
      { type: 'journal-repaired', runId: 'r', at: 2, droppedBytes: 66, holder: { pid: 42, host: 'box' } },
      {
        type: 'tool-call-reconciled',
        runId: 'r',
        at: 3,
        stepId: 'fix',
        callId: 'call-1',
        tool: 'edit_file',
        outcome: 'applied',
        detail: 'src/is-prime.js holds the edited text',
      },
      {
        type: 'tool-call-reconciled',
        runId: 'r',
        at: 4,
        stepId: 'release',
        callId: 'call-2',
        tool: 'run_command',
        outcome: 'declined',
        detail: 'the workspace changed since it started',
      },
    ];
    const texts = foldRunEvents(events).timeline.map((entry) => `${entry.tone}: ${entry.text}`);
    expect(texts).toContain(
      'warn: Dropped a torn last journal record (66 bytes): pid 42 on box died in the middle of writing it',
    );
    expect(
      texts.some((text) => text.startsWith('info: Resumed edit_file') && text.includes('not run again')),
    ).toBe(true);
    expect(
      texts.some((text) => text.startsWith('warn: Resumed run_command') && text.includes('needs review')),
    ).toBe(true);
  });
});
