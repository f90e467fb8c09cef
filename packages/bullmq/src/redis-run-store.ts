import { CortexError, type RunEvent, type RunMeta, type RunStore } from '@closedloop/cortex';
import { assertRunId } from '@closedloop/cortex/store';
import type { Redis } from 'ioredis';
import { checkConnection, closeRedis, connectRedis, type RedisConnection } from './redis-connection';
import { checkPrefix, redisKeys } from './redis-keys';
import { acquireRedisLease } from './redis-lease';

/** Options of {@link createRedisRunStore}. */
export interface RedisRunStoreOptions {
  /** Where Redis is: a `redis://` URL or ioredis options. */
  connection: RedisConnection;
  /** Prefix of every key. Default `closedloop`. Stores, queues and workers of one deployment share it. */
  prefix?: string;
}

/** A run as the store lists it. */
export interface StoredRun {
  runId: string;
  /** Epoch ms of the run's last event or metadata write. */
  updatedAt: number;
}

/** One journaled event and its position in the run's journal (0-based). */
export interface IndexedEvent {
  index: number;
  event: RunEvent;
}

/** Options of {@link RedisRunStore.tail}. */
export interface TailOptions {
  /** First index to yield (0-based). Default 0: the whole journal, then what comes. */
  from?: number;
  /** Stops the tail (the iterator returns). */
  signal?: AbortSignal;
  /** Longest single blocking read; the tail re-checks `signal` at least this often. Default 5000 ms. */
  blockMs?: number;
}

/** A {@link RunStore} over Redis, plus listing, live tails and `close()`. */
export interface RedisRunStore extends RunStore {
  /** Runs, most recently written first. */
  runs(): Promise<StoredRun[]>;
  /** Events from `from` on, in order, without waiting for new ones. */
  readFrom(runId: string, from: number): Promise<IndexedEvent[]>;
  /**
   * Every event of the run from `from` on, then each new one as it is appended (blocking reads
   * on a connection of its own), until `signal` aborts.
   */
  tail(runId: string, options?: TailOptions): AsyncIterable<IndexedEvent>;
  /** The key prefix. */
  readonly prefix: string;
  /** Closes the store's Redis connections. */
  close(): Promise<void>;
}

/**
 * Appends a group of records (seq, JSON) at positions `0-<seq + 1>` and bumps the run in the
 * listing, atomically. A seq already stored with the same content (a retried group) is skipped;
 * with other content (a second writer) or past the end (a gap) the whole group is refused.
 */
const appendScript = `
local n = redis.call('XLEN', KEYS[1])
for i = 3, #ARGV, 2 do
  local seq = tonumber(ARGV[i])
  local json = ARGV[i + 1]
  if seq == n then
    redis.call('XADD', KEYS[1], '0-' .. (n + 1), 'e', json)
    n = n + 1
  elseif seq < n then
    local stored = redis.call('XRANGE', KEYS[1], '0-' .. (seq + 1), '0-' .. (seq + 1))
    if stored[1] == nil or stored[1][2][2] ~= json then
      return redis.error_reply('seq ' .. seq .. ' is already stored with other content: two processes wrote this run at once')
    end
  else
    return redis.error_reply('seq ' .. seq .. ' where ' .. n .. ' was expected: records are missing')
  end
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return n
`;

const pageSize = 2000;

type StreamEntry = [id: string, fields: string[]];

function storeFailed(action: string, runId: string, cause: unknown): CortexError {
  return new CortexError({
    code: 'store-failed',
    message: `Redis run store could not ${action} run "${runId}": ${cause instanceof Error ? cause.message : String(cause)}`,
    details: { runId },
    cause,
  });
}

function indexOf(id: string): number {
  return Number(id.slice(id.indexOf('-') + 1)) - 1;
}

function parseEntry(runId: string, [id, fields]: StreamEntry): IndexedEvent {
  const index = indexOf(id);
  const json = fields[fields.indexOf('e') + 1];
  let event: unknown;
  try {
    event = JSON.parse(json ?? '');
  } catch (error) {
    throw new CortexError({
      code: 'journal-corrupt',
      message: `Run "${runId}" event #${index} in Redis is not valid JSON.`,
      details: { runId, index },
      cause: error,
    });
  }
  if (typeof event !== 'object' || event === null || typeof (event as { type?: unknown }).type !== 'string') {
    throw new CortexError({
      code: 'journal-corrupt',
      message: `Run "${runId}" event #${index} in Redis is not an event (an object with a string "type").`,
      details: { runId, index },
    });
  }
  return { index, event: event as RunEvent };
}

/**
 * A durable {@link RunStore} on Redis: one stream per run (`<prefix>:run:<id>:events`, entry id
 * `0-<n>` = the n-th event, so a range of ids is a range of the journal), its metadata
 * (`<prefix>:run:<id>:meta`), and a sorted set of runs by last write (`<prefix>:runs`). An
 * append is one Lua script (position, `XADD`, listing) and resolves once Redis has it; how much
 * survives a crash of Redis itself is the server's persistence setting (AOF with
 * `appendfsync everysec` or `always` for production). `tail` streams a run live from any
 * machine. Passes cortex's `runStoreConformance`.
 *
 * @example
 * const store = createRedisRunStore({ connection: 'redis://127.0.0.1:6379' });
 * const cortex = createCortex({ model, tools, store });
 * for await (const { event } of store.tail(runId, { signal })) console.log(event.type);
 */
export function createRedisRunStore(options: RedisRunStoreOptions): RedisRunStore {
  const connection = checkConnection(options?.connection);
  const prefix = checkPrefix(options.prefix);
  const keys = redisKeys(prefix);
  const client = connectRedis(connection, `${prefix}:store`) as Redis & {
    closedloopAppend(
      events: string,
      runs: string,
      runId: string,
      now: number,
      ...records: string[]
    ): Promise<number>;
  };
  client.defineCommand('closedloopAppend', { numberOfKeys: 2, lua: appendScript });
  const tails = new Set<Redis>();

  const readRange = async (runId: string, from: number): Promise<IndexedEvent[]> => {
    const events: IndexedEvent[] = [];
    for (let start = from + 1; ; start += pageSize) {
      let entries: StreamEntry[];
      try {
        entries = (await client.xrange(
          keys.events(runId),
          `0-${start}`,
          `0-${start + pageSize - 1}`,
        )) as StreamEntry[];
      } catch (error) {
        throw storeFailed('read', runId, error);
      }
      for (const entry of entries) {
        const parsed = parseEntry(runId, entry);
        const expected = from + events.length;
        if (parsed.index !== expected) {
          // Entry ids are written 0-1, 0-2, … without gaps: a missing one was deleted (XDEL).
          throw new CortexError({
            code: 'journal-corrupt',
            message: `Run "${runId}" in Redis has event #${parsed.index} where #${expected} was expected: records are missing (deleted from the stream). Inspect it before resuming.`,
            details: { runId, seq: parsed.index, expected },
          });
        }
        events.push(parsed);
      }
      if (entries.length < pageSize) return events;
    }
  };

  return {
    prefix,
    async append(runId, records) {
      assertRunId(runId);
      if (records.length === 0) return;
      const flat = records.flatMap((record) => [String(record.seq), JSON.stringify(record.event)]);
      try {
        await client.closedloopAppend(keys.events(runId), keys.runs, runId, Date.now(), ...flat);
      } catch (error) {
        throw storeFailed('append to', runId, error);
      }
    },
    acquireLease(runId, leaseOptions) {
      assertRunId(runId);
      return acquireRedisLease(client, keys.lease(runId), runId, leaseOptions);
    },
    async read(runId) {
      assertRunId(runId);
      // The stream's last generated id outlives the entries deleted after it (XDEL, XTRIM): it
      // is the journal's durable point, kept by Redis apart from the entries.
      let lastId = '0-0';
      try {
        const info = (await client.xinfo('STREAM', keys.events(runId))) as unknown[];
        const at = info.indexOf('last-generated-id');
        if (at !== -1) lastId = String(info[at + 1]);
      } catch (error) {
        if (!(error instanceof Error && /no such key/i.test(error.message)))
          throw storeFailed('read', runId, error);
      }
      const events = (await readRange(runId, 0)).map((entry) => entry.event);
      const expectedSeq = indexOf(lastId);
      if (events.length - 1 < expectedSeq) {
        throw new CortexError({
          code: 'journal-rolled-back',
          message: `Run "${runId}" in Redis ends at event #${events.length - 1}, but its stream reached #${expectedSeq}: the last events were deleted after they were written, so events the run acted on are missing. Resuming would repeat their effects; keep it for inspection and start a new run.`,
          details: { runId, expectedSeq, foundSeq: events.length - 1 },
        });
      }
      return events;
    },
    async readFrom(runId, from) {
      assertRunId(runId);
      return readRange(runId, Math.max(0, Math.floor(from)));
    },
    async list() {
      try {
        return (await client.zrange(keys.runs, '0', '-1')).sort();
      } catch (error) {
        throw storeFailed('list', '*', error);
      }
    },
    async runs() {
      let flat: string[];
      try {
        flat = await client.zrevrange(keys.runs, 0, -1, 'WITHSCORES');
      } catch (error) {
        throw storeFailed('list', '*', error);
      }
      const runs: StoredRun[] = [];
      for (let index = 0; index < flat.length; index += 2) {
        runs.push({ runId: flat[index]!, updatedAt: Number(flat[index + 1]) });
      }
      return runs;
    },
    async writeMeta(runId, meta: RunMeta) {
      assertRunId(runId);
      try {
        await client
          .multi()
          .set(keys.meta(runId), JSON.stringify(meta))
          .zadd(keys.runs, Date.now(), runId)
          .exec();
      } catch (error) {
        throw storeFailed('write the metadata of', runId, error);
      }
    },
    async readMeta(runId) {
      assertRunId(runId);
      let text: string | null;
      try {
        text = await client.get(keys.meta(runId));
      } catch (error) {
        throw storeFailed('read the metadata of', runId, error);
      }
      if (text === null) return undefined;
      try {
        return JSON.parse(text) as RunMeta;
      } catch (error) {
        throw new CortexError({
          code: 'journal-corrupt',
          message: `The metadata of run "${runId}" in Redis is not valid JSON.`,
          details: { runId },
          cause: error,
        });
      }
    },
    tail(runId, tailOptions = {}) {
      assertRunId(runId);
      const { signal } = tailOptions;
      const blockMs = tailOptions.blockMs ?? 5000;
      let next = Math.max(0, Math.floor(tailOptions.from ?? 0));
      return {
        async *[Symbol.asyncIterator]() {
          for (const entry of await readRange(runId, next)) {
            if (signal?.aborted) return;
            yield entry;
            next = entry.index + 1;
          }
          const reader = client.duplicate({ connectionName: `${prefix}:tail` });
          tails.add(reader);
          const stop = () => reader.disconnect();
          signal?.addEventListener('abort', stop, { once: true });
          try {
            while (!signal?.aborted) {
              let reply: [key: string, entries: StreamEntry[]][] | null;
              try {
                reply = (await reader.xread(
                  'COUNT',
                  pageSize,
                  'BLOCK',
                  blockMs,
                  'STREAMS',
                  keys.events(runId),
                  `0-${next}`,
                )) as [string, StreamEntry[]][] | null;
              } catch (error) {
                if (signal?.aborted) return;
                throw storeFailed('tail', runId, error);
              }
              for (const entry of reply?.[0]?.[1] ?? []) {
                const parsed = parseEntry(runId, entry);
                if (parsed.index < next) continue;
                yield parsed;
                next = parsed.index + 1;
                if (signal?.aborted) return;
              }
            }
          } finally {
            signal?.removeEventListener('abort', stop);
            tails.delete(reader);
            await closeRedis(reader);
          }
        },
      };
    },
    async close() {
      for (const reader of tails) reader.disconnect();
      await closeRedis(client);
    },
  };
}
