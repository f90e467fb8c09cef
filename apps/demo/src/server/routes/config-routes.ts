import { version } from '../../version';
import type { ConfigAnswer } from '../api-types';
import { sendJson } from '../http';
import type { Route } from '../router';
import type { ServerContext } from '../server-context';

/** `GET /api/config`: which model typed tasks run on (for the header), and the version. */
export function configRoutes(context: ServerContext): Route[] {
  return [
    {
      method: 'GET',
      pattern: /^\/api\/config$/,
      handle({ response }) {
        const answer: ConfigAnswer = { model: context.backend.model ?? null, version };
        sendJson(response, 200, answer);
      },
    },
  ];
}
