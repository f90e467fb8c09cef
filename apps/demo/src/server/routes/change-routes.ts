import type { StepChangesAnswer } from '../api-types';
import { HttpError, sendJson } from '../http';
import type { Route } from '../router';
import { checkRunId, type ServerContext } from '../server-context';

/** `GET /api/runs/:id/steps/:stepId/changes`: the workspace changes recorded for each run of a step. */
export function changeRoutes(context: ServerContext): Route[] {
  return [
    {
      method: 'GET',
      pattern: /^\/api\/runs\/(?<runId>[^/]+)\/steps\/(?<stepId>[^/]+)\/changes$/,
      async handle({ response, params }) {
        const runId = checkRunId(params.runId);
        const stepId = params.stepId ?? '';
        if (stepId === '' || stepId.length > 256) throw new HttpError(400, 'Invalid step id.');
        const { backend, registry } = context;
        if (!backend.readStepChanges)
          throw new HttpError(501, 'This server does not record workspace changes.');
        if (!registry.channels.has(runId) && !(await registry.journalEvents(runId))) {
          throw new HttpError(404, `No run "${runId}" in ${context.journalDir}.`);
        }
        const answer: StepChangesAnswer = {
          runId,
          stepId,
          runs: await backend.readStepChanges(runId, stepId),
        };
        sendJson(response, 200, answer);
      },
    },
  ];
}
