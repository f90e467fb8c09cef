import type { CortexError } from '@closedloop/cortex';

/** What `report` prints about a damaged journal: the problem, what is intact, and what to do. */
export function renderJournalProblem(runId: string, problem: CortexError, intactEvents: number): string {
  const advice: Partial<Record<string, string>> = {
    'journal-empty': 'Nothing was journaled, so nothing can be resumed; start a new run.',
    'journal-missing': 'Nothing can be resumed without it; start a new run.',
    'journal-truncated': `Its last write did not complete. Resume with --repair to drop the torn line: closedloop resume ${runId} --repair`,
    'journal-corrupt': 'It cannot be resumed safely; keep it for inspection and start a new run.',
    'journal-version': 'Report and resume it with the closedloop version that wrote it.',
    'journal-rolled-back':
      'Events the run acted on are missing (the journal was cut back or restored from an older copy): restore the full journal, or keep it for inspection and start a new run.',
    'journal-mismatch':
      'The journal or its metadata belongs to another run; put back the right files or start a new run.',
  };
  return [
    '',
    `journal problem (${problem.code}): ${problem.message}`,
    `${intactEvents} event${intactEvents === 1 ? '' : 's'} before the problem ${intactEvents === 1 ? 'is' : 'are'} intact${intactEvents > 0 ? ' (shown above)' : ''}.`,
    advice[problem.code] ?? '',
    '',
  ].join('\n');
}
