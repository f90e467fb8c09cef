import { ClosedloopError } from '@closedloop/model/error';
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
import { parseShownJson } from '../view/bidi-controls';

const marker = Symbol.for('closedloop.demo.api-error');

/**
 * A refused request (code `http-<status>`): `message` is the server's own sentence, shown as is
 * (`fromServer`), or `HTTP <status>` when the answer carried none. The page imports only this
 * class from `@closedloop/model/error` (nothing else of the package).
 */
export class ApiError extends ClosedloopError<`http-${number}`, { readonly status: number }> {
  readonly [marker] = true;
  override readonly name = 'ApiError';
  readonly status: number;
  /** True when `message` is the server's sentence (it already says what failed and what to do). */
  readonly fromServer: boolean;
  constructor(status: number, message: string, options: { fromServer?: boolean } = {}) {
    super({ code: `http-${status}`, message, details: { status } });
    this.status = status;
    this.fromServer = options.fromServer ?? true;
  }

  /** True for an `ApiError` from any copy of this module. */
  static override isInstance(error: unknown): error is ApiError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}

/**
 * The notice for a failed request. The server's sentence is complete ("The run could not
 * resume: …", "Run "r1" has already finished.") and is shown once, as is; `what` ("Resume
 * failed") only prefixes a failure the server did not describe (the network, a bare HTTP status).
 */
export function failureNotice(what: string, error: unknown): string {
  if (ApiError.isInstance(error) && error.fromServer) return error.message;
  return `${what}: ${error instanceof Error ? error.message : String(error)}`;
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
    data = parseShownJson(await response.text());
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data as Partial<ErrorAnswer> | null)?.error;
    if (typeof error === 'string') throw new ApiError(response.status, error);
    throw new ApiError(response.status, `HTTP ${response.status}`, { fromServer: false });
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
