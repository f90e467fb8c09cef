import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent } from '@closedloop/cortex';
import { type RunAnswer, type RunListAnswer, startRunBodySchema } from '../api-types';
import { HttpError, readBody, sendJson } from '../http';
import type { Route } from '../router';
import { checkRunId, runIdSchema, type ServerContext } from '../server-context';
import { formatSseMessage, resolveStreamStart } from '../sse';

const runPath = '/api/runs/(?<runId>[^/]+)';

/** The runs of a journal folder (`<runId>.jsonl`) with their modification times. */
async function listJournalFolder(journalDir: string): Promise<[string, number][]> {
  const found: [string, number][] = [];
  try {
    for (const entry of await readdir(journalDir, { withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
      const runId = entry.name.slice(0, -'.jsonl'.length);
      if (!runIdSchema.safeParse(runId).success) continue;
      found.push([runId, (await stat(join(journalDir, entry.name))).mtimeMs]);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return found;
}

/** Runs: list, start, read, follow (SSE), cancel, resume. */
export function runRoutes(context: ServerContext): Route[] {
  const { registry, backend, journalDir } = context;
  const notFound = (runId: string) => new HttpError(404, `No run "${runId}" in ${journalDir}.`);

  return [
    {
      method: 'GET',
      pattern: /^\/api\/runs$/,
      async handle({ response }) {
        const found = new Map<string, number>(
          backend.listRuns
            ? (await backend.listRuns()).map(({ runId, updatedAt }) => [runId, updatedAt])
            : await listJournalFolder(journalDir),
        );
        for (const [runId, channel] of registry.channels) {
          if (!found.has(runId)) found.set(runId, channel.events.at(-1)?.at ?? Date.now());
        }
        const runs = [...found]
          .map(([runId, updatedAt]) => ({
            runId,
            updatedAt,
            active: registry.channels.get(runId)?.ended === false,
          }))
          .sort((a, b) => b.updatedAt - a.updatedAt);
        sendJson(response, 200, { runs } satisfies RunListAnswer);
      },
    },
    {
      method: 'POST',
      pattern: /^\/api\/runs$/,
      async handle({ request, response }) {
        const body = await readBody(request, startRunBodySchema, 'run request');
        const runId = await registry.start(body);
        sendJson(response, 201, { runId });
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${runPath}$`),
      async handle({ response, params }) {
        const runId = checkRunId(params.runId);
        const channel = registry.channels.get(runId);
        const events = (await registry.journalEvents(runId)) ?? (channel ? [...channel.events] : undefined);
        if (!events) throw notFound(runId);
        const info = await backend.describeRun?.(runId);
        const answer: RunAnswer = {
          runId,
          active: channel?.ended === false,
          resumable: registry.isResumable(runId, events),
          model: info?.model ?? null,
          workspace: info?.workspace ?? null,
          events,
        };
        sendJson(response, 200, answer);
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^${runPath}/cancel$`),
      async handle({ response, params }) {
        const runId = checkRunId(params.runId);
        const channel = registry.channels.get(runId);
        if (!channel && backend.cancelRun) {
          // Another process drives the run (scale-out): ask it to stop, wherever it runs.
          const events = await registry.journalEvents(runId);
          if (!events) throw notFound(runId);
          if (events.at(-1)?.type === 'run-finished')
            throw new HttpError(409, `Run "${runId}" has already finished.`);
          await backend.cancelRun(runId);
          sendJson(response, 202, { runId, cancelling: true });
          return;
        }
        if (!channel || channel.ended) {
          if (!(await registry.journalEvents(runId)) && !channel) throw notFound(runId);
          throw new HttpError(
            409,
            channel
              ? `Run "${runId}" has already finished.`
              : `Run "${runId}" is not active in this server; there is nothing to cancel.`,
          );
        }
        channel.controller.abort(new Error('cancelled from the web UI'));
        sendJson(response, 202, { runId, cancelling: true });
      },
    },
    {
      method: 'POST',
      pattern: new RegExp(`^${runPath}/resume$`),
      async handle({ response, params }) {
        const runId = await registry.resume(checkRunId(params.runId));
        sendJson(response, 202, { runId });
      },
    },
    {
      method: 'GET',
      pattern: new RegExp(`^${runPath}/events$`),
      async handle({ request, response, url, params }) {
        const runId = checkRunId(params.runId);
        const channel = registry.channels.get(runId);
        const journal = channel ? undefined : await registry.journalEvents(runId);
        if (!channel && !journal) throw notFound(runId);
        const lastEventId = request.headers['last-event-id'];
        let next = resolveStreamStart({
          lastEventId: Array.isArray(lastEventId) ? lastEventId[0] : lastEventId,
          from: url.searchParams.get('from'),
        });

        response.writeHead(200, {
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          connection: 'keep-alive',
          'x-content-type-options': 'nosniff',
          'x-accel-buffering': 'no',
        });
        response.write('retry: 1000\n\n');
        context.streams.add(response);
        const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), context.heartbeatMs);
        let unsubscribe: () => void = () => {};
        const stop = () => {
          clearInterval(heartbeat);
          unsubscribe();
          context.streams.delete(response);
        };
        const finish = (failure: string | undefined) => {
          stop();
          if (!response.writableEnded) {
            response.end(formatSseMessage({ event: 'end', data: failure ? { error: failure } : {} }));
          }
        };
        request.on('close', stop);

        const send = (event: RunEvent, index: number) => {
          if (index < next) return;
          response.write(formatSseMessage({ id: index, data: event }));
          next = index + 1;
        };
        if (!channel && backend.followRun) {
          // Another process drives the run: follow the store until it finishes or the client leaves
          // (it is over at a run-finished that is the journal's newest event: a resumed run has several).
          const following = new AbortController();
          unsubscribe = () => following.abort();
          const newest = (journal?.length ?? 0) - 1;
          void (async () => {
            for await (const { index, event } of backend.followRun!(runId, {
              from: next,
              signal: following.signal,
            })) {
              send(event, index);
              if (event.type === 'run-finished' && index >= newest) break;
            }
          })().then(
            () => finish(undefined),
            (error: unknown) => finish(error instanceof Error ? error.message : String(error)),
          );
          return;
        }
        if (!channel) {
          (journal ?? []).forEach(send);
          finish(undefined);
          return;
        }
        channel.events.forEach(send);
        if (channel.ended) {
          finish(channel.failure);
          return;
        }
        unsubscribe = channel.subscribe({
          onEvent: send,
          // Live-only events (streamed model text, tool progress) carry no id: a reconnect does not replay them.
          onLive: (event) => response.write(formatSseMessage({ event: 'live', data: event })),
          onEnd: finish,
        });
      },
    },
  ];
}
