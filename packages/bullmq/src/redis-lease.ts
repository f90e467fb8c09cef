import { CortexError, type LeaseOptions, type RunLease } from '@closedloop/cortex';
import {
  type LeaseHolder,
  leaseHeldError,
  leaseLostError,
  newLeaseHolder,
  resolveLeaseOptions,
  startHeartbeat,
} from '@closedloop/cortex/store';
import type { Redis } from 'ioredis';
import { luaScript } from './redis-connection';

/** Redis's clock in epoch ms: every machine judges staleness by the same clock. */
const now = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Takes the lease when nobody holds it or the holder is stale (not renewed for its TTL): returns
 * {1, holder} when it is held, {0, previous holder or false} when taken. The key outlives the TTL
 * (ten times) so a taker learns whom it replaced.
 */
const acquireScript = `
${now}
local current = redis.call('GET', KEYS[1])
if current then
  local holder = cjson.decode(current)
  if now - holder.renewedAt <= holder.ttlMs then return {1, current} end
end
local mine = cjson.decode(ARGV[1])
mine.acquiredAt = now
mine.renewedAt = now
redis.call('SET', KEYS[1], cjson.encode(mine), 'PX', tonumber(ARGV[2]) * 10)
return {0, current or false}
`;

/**
 * Renews the lease when this holder (token) still has it, or takes it back when the key is gone;
 * returns the other holder's JSON when it was taken over.
 */
const renewScript = `
${now}
local current = redis.call('GET', KEYS[1])
local mine = cjson.decode(ARGV[2])
if current then
  local holder = cjson.decode(current)
  if holder.token ~= mine.token then return current end
  mine = holder
end
mine.renewedAt = now
redis.call('SET', KEYS[1], cjson.encode(mine), 'PX', tonumber(ARGV[1]) * 10)
return false
`;

/** Deletes the lease only when this holder (token) has it. */
const releaseScript = `
local current = redis.call('GET', KEYS[1])
if current and cjson.decode(current).token == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

/** Redis could not be reached or refused a script: a typed `store-failed`, naming what was tried. */
function storeFailed(action: string, runId: string, error: unknown): CortexError {
  return new CortexError({
    code: 'store-failed',
    message: `Could not ${action} the lease of run ${runId} in Redis: ${error instanceof Error ? error.message : String(error)}`,
    details: { runId },
    cause: error,
  });
}

function parseHolder(text: string): Partial<LeaseHolder> {
  try {
    return JSON.parse(text) as Partial<LeaseHolder>;
  } catch {
    return {};
  }
}

const runAcquire = luaScript(acquireScript);
const runRenew = luaScript(renewScript);
const runRelease = luaScript(releaseScript);

/**
 * A run's lease in Redis (one live owner across every machine): a key holding the holder,
 * expiring `ttlMs` after its last renewal, taken and renewed atomically (Lua). A holder whose key
 * another process took over loses the lease (`signal` aborts) and stops writing.
 */
export async function acquireRedisLease(
  client: Redis,
  key: string,
  runId: string,
  options?: LeaseOptions,
): Promise<RunLease> {
  const { purpose, ttlMs, renewEveryMs } = resolveLeaseOptions(options);
  const holder = newLeaseHolder(purpose, ttlMs);
  let reply: [number, string | null];
  try {
    reply = (await runAcquire(client, [key], JSON.stringify(holder), String(ttlMs))) as [
      number,
      string | null,
    ];
  } catch (error) {
    throw storeFailed('take', runId, error);
  }
  const [held, other] = reply;
  if (held === 1) throw leaseHeldError(runId, parseHolder(other ?? ''));
  const takenOver = other ? parseHolder(other) : undefined;
  const controller = new AbortController();
  let released = false;
  const renew = async () => {
    if (released) return;
    holder.renewedAt = Date.now();
    let other: string | null;
    try {
      other = (await runRenew(client, [key], String(ttlMs), JSON.stringify(holder))) as string | null;
    } catch (error) {
      throw storeFailed('renew', runId, error);
    }
    if (other) {
      const error = leaseLostError(runId, parseHolder(other));
      stopHeartbeat();
      if (!controller.signal.aborted) controller.abort(error);
      throw error;
    }
  };
  const stopHeartbeat = startHeartbeat(renew, renewEveryMs);
  return {
    runId,
    holder,
    ...(takenOver?.token !== undefined ? { takenOver: takenOver as LeaseHolder } : {}),
    signal: controller.signal,
    renew,
    async release() {
      if (released) return;
      released = true;
      stopHeartbeat();
      await runRelease(client, [key], holder.token).catch(() => undefined);
    },
  };
}
