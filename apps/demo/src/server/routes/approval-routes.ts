import { approvalBodySchema } from '../api-types';
import { HttpError, readBody, sendJson } from '../http';
import type { Route } from '../router';
import { checkRunId, type ServerContext } from '../server-context';

/** `POST /api/runs/:id/approvals/:approvalId { approved, note? }`: a human answers the run's question. */
export function approvalRoutes(context: ServerContext): Route[] {
  return [
    {
      method: 'POST',
      pattern: /^\/api\/runs\/(?<runId>[^/]+)\/approvals\/(?<approvalId>[^/]+)$/,
      async handle({ request, response, params }) {
        const runId = checkRunId(params.runId);
        const approvalId = params.approvalId ?? '';
        if (!/^[A-Za-z0-9._-]{1,128}$/.test(approvalId))
          throw new HttpError(400, `Invalid approval id "${approvalId}".`);
        const body = await readBody(request, approvalBodySchema, 'approval');
        const channel = context.registry.channels.get(runId);
        if (!channel || channel.ended) {
          if (!channel && !(await context.registry.journalEvents(runId))) {
            throw new HttpError(404, `No run "${runId}" in ${context.journalDir}.`);
          }
          throw new HttpError(
            409,
            `Run "${runId}" is not running in this server, so nothing waits for this answer. Resume it to be asked again.`,
          );
        }
        const outcome = channel.answerApproval(approvalId, {
          approved: body.approved,
          ...(body.note !== undefined ? { note: body.note } : {}),
        });
        if (outcome === 'unknown')
          throw new HttpError(404, `Run "${runId}" has no approval "${approvalId}".`);
        if (outcome === 'already-resolved')
          throw new HttpError(409, `Approval "${approvalId}" was already answered.`);
        sendJson(response, 200, { runId, approvalId, approved: body.approved });
      },
    },
  ];
}
