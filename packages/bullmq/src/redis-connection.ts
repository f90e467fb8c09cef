import { createHash } from 'node:crypto';
import { Redis, type RedisOptions } from 'ioredis';
import { ScaleOutError } from './scale-out-error';

/** Where Redis is: a `redis://` / `rediss://` URL, or ioredis options (`{ host, port, password, tls, … }`). */
export type RedisConnection = string | RedisOptions;

/** Throws `ScaleOutError('invalid-options')` unless `connection` can name a Redis server. */
export function checkConnection(connection: unknown, what = 'connection'): RedisConnection {
  if (typeof connection === 'string') {
    let url: URL | undefined;
    try {
      url = new URL(connection);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'redis:' && url.protocol !== 'rediss:')) {
      throw new ScaleOutError({
        code: 'invalid-options',
        message: `${what} must be a redis:// or rediss:// URL (e.g. redis://127.0.0.1:6379), got ${JSON.stringify(connection)}.`,
        details: { connection },
      });
    }
    return connection;
  }
  if (typeof connection === 'object' && connection !== null && !Array.isArray(connection)) {
    return connection as RedisOptions;
  }
  throw new ScaleOutError({
    code: 'invalid-options',
    message: `${what} must be a redis:// URL or ioredis options, got ${JSON.stringify(connection)}.`,
  });
}

/**
 * A new ioredis client. `maxRetriesPerRequest: null`: while Redis is unreachable, commands wait
 * for the reconnect instead of failing (BullMQ needs this for its blocking connections).
 */
export function connectRedis(connection: RedisConnection, name?: string): Redis {
  const options: RedisOptions = {
    maxRetriesPerRequest: null,
    ...(name !== undefined ? { connectionName: name } : {}),
  };
  return typeof connection === 'string'
    ? new Redis(connection, options)
    : new Redis({ ...connection, ...options });
}

/** Closes a client: QUIT when it is connected, else just drops the socket. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    if (client.status === 'ready') await client.quit();
    else client.disconnect();
  } catch {
    client.disconnect();
  }
}

/**
 * Checks that Redis answers a PING within `timeoutMs` (default 3000): for commands that should
 * fail fast with a clear message rather than wait for a server that is not there. Throws
 * `ScaleOutError('redis-unreachable')`.
 */
export async function pingRedis(
  connection: RedisConnection,
  options: { timeoutMs?: number } = {},
): Promise<void> {
  const checked = checkConnection(connection);
  const timeoutMs = options.timeoutMs ?? 3000;
  const base: RedisOptions = {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  };
  const client = typeof checked === 'string' ? new Redis(checked, base) : new Redis({ ...checked, ...base });
  client.on('error', () => {});
  const where =
    typeof checked === 'string' ? checked : `${checked.host ?? '127.0.0.1'}:${checked.port ?? 6379}`;
  try {
    await Promise.race([
      client.connect().then(() => client.ping()),
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs).unref(),
      ),
    ]);
  } catch (error) {
    throw new ScaleOutError({
      code: 'redis-unreachable',
      message: `Redis at ${where} does not answer (${error instanceof Error ? error.message : String(error)}). Start it, or fix the URL.`,
      details: { connection: where },
      cause: error,
    });
  } finally {
    client.disconnect();
  }
}

/**
 * A Lua script called by its SHA1 (`EVALSHA`): its text crosses the wire — and is hashed by
 * Redis — once, when Redis does not know it yet (`NOSCRIPT`: a restart, `SCRIPT FLUSH`), not with
 * every call as with `EVAL`. Each call runs the script atomically, as `EVAL` does.
 */
export function luaScript(
  lua: string,
): (client: Redis, keys: readonly string[], ...args: string[]) => Promise<unknown> {
  const sha = createHash('sha1').update(lua).digest('hex');
  return async (client, keys, ...args) => {
    try {
      return await client.evalsha(sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return client.eval(lua, keys.length, ...keys, ...args);
    }
  };
}
