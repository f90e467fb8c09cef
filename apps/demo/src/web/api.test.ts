import { ClosedloopError } from '@closedloop/model';
import { describe, expect, it } from 'vitest';
import { ApiError, failureNotice } from './api';

describe('failureNotice', () => {
  it("shows the server's sentence once, without a second prefix", () => {
    // The server's 500 for a resume already says what failed (run-registry's refuse()).
    const refused = new ApiError(500, 'The run could not resume: OPENAI_API_KEY is not set');
    expect(failureNotice('Resume failed', refused)).toBe(
      'The run could not resume: OPENAI_API_KEY is not set',
    );
    expect(failureNotice('Cancel failed', new ApiError(409, 'Run "r1" has already finished.'))).toBe(
      'Run "r1" has already finished.',
    );
  });

  it('names the action for failures the server did not describe', () => {
    expect(failureNotice('Resume failed', new ApiError(502, 'HTTP 502', { fromServer: false }))).toBe(
      'Resume failed: HTTP 502',
    );
    expect(failureNotice('Cancel failed', new TypeError('Failed to fetch'))).toBe(
      'Cancel failed: Failed to fetch',
    );
    expect(failureNotice('Start failed', 'offline')).toBe('Start failed: offline');
  });

  it('ApiError is a ClosedloopError with an http-<status> code', () => {
    const error = new ApiError(404, 'No run "r1" in the journal.');
    expect(ClosedloopError.isInstance(error)).toBe(true);
    expect(ApiError.isInstance(error)).toBe(true);
    expect(error.code).toBe('http-404');
    expect(error.details).toEqual({ status: 404 });
  });
});
