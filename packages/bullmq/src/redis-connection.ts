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
