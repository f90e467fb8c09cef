import type {
  ApprovalBody,
  ConfigAnswer,
  ErrorAnswer,
  RunAnswer,
  RunListAnswer,
  StartAnswer,
  StartRunBody,
  StepChangesAnswer,
} from '../server/api-types';

/** A refused request: `message` is the server's own sentence, shown as is. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    headers:
      body === undefined
        ? { accept: 'application/json' }
        : { accept: 'application/json', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  let data: unknown = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data as Partial<ErrorAnswer> | null)?.error;
    throw new ApiError(response.status, typeof error === 'string' ? error : `HTTP ${response.status}`);
  }
  return data as T;
}

/** The path of a run's routes. */
export function runPath(runId: string): string {
  return `/api/runs/${encodeURIComponent(runId)}`;
}

/** The typed client of the server's API (`server/api-types.ts`). */
export const api = {
  config: () => call<ConfigAnswer>('GET', '/api/config'),
  listRuns: () => call<RunListAnswer>('GET', '/api/runs'),
  readRun: (runId: string) => call<RunAnswer>('GET', runPath(runId)),
  startRun: (body: StartRunBody) => call<StartAnswer>('POST', '/api/runs', body),
  cancelRun: (runId: string) => call<unknown>('POST', `${runPath(runId)}/cancel`),
  resumeRun: (runId: string) => call<StartAnswer>('POST', `${runPath(runId)}/resume`),
  answerApproval: (runId: string, approvalId: string, body: ApprovalBody) =>
    call<unknown>('POST', `${runPath(runId)}/approvals/${encodeURIComponent(approvalId)}`, body),
  stepChanges: (runId: string, stepId: string) =>
    call<StepChangesAnswer>('GET', `${runPath(runId)}/steps/${encodeURIComponent(stepId)}/changes`),
};

/** The run id in `location.hash` (`#run=<id>`), so a reload restores the run. */
export function readHashRunId(): string | null {
  const match = /(?:^#|&)run=([^&]+)/.exec(location.hash);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}
