import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { WorkspaceLock } from '@closedloop/cortex';
import type { Redis } from 'ioredis';
import { luaScript } from './redis-connection';
import { ScaleOutError } from './scale-out-error';

/** Redis's clock in epoch ms: every machine judges a lease by the same clock. */
const now = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** Reads the lock's state (one JSON value: every holder and the exclusive waiters in order). */
const load = `
local raw = redis.call('GET', KEYS[1])
local s = raw and cjson.decode(raw) or {}
s.holders = s.holders or {}
s.waiting = s.waiting or {}
s.epoch = s.epoch or 0
`;

/** Writes the state back (deletes the key once nobody holds or waits). */
const save = `
local function save(retention)
  if next(s.holders) == nil and #s.waiting == 0 then
    if s.epoch > 0 then
      -- The fencing counter outlives an empty lock: epochs are never reused.
      redis.call('SET', KEYS[1], cjson.encode({ epoch = s.epoch }), 'PX', retention)
    else
      redis.call('DEL', KEYS[1])
    end
  else
    redis.call('SET', KEYS[1], cjson.encode(s), 'PX', retention)
  end
end
`;

/**
 * Tries to take the lock: ARGV token, mode, owner (the step job), attempt, queue, ttlMs,
 * retentionMs. Holders of an earlier attempt of the same step pass to this one (it has settled
 * what they left). An exclusive request waits in arrival order and goes before later shared ones.
 * Returns {1, epoch} when granted, else {0, JSON of the expired holders in the way}.
 */
const acquireScript = `
${now}
${load}
${save}
local token, mode, owner, attempt, queue = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local ttl, retention = tonumber(ARGV[6]), tonumber(ARGV[7])
for key, holder in pairs(s.holders) do
  if holder.o == owner and holder.a ~= attempt then s.holders[key] = nil end
end
local waiting, mine = {}, nil
for _, waiter in ipairs(s.waiting) do
  if waiter.t == token then
    waiter.x = now + ttl
    table.insert(waiting, waiter)
    mine = #waiting
  elseif waiter.x >= now then
    table.insert(waiting, waiter)
  end
end
local writer, readers, orphans = false, 0, {}
for key, holder in pairs(s.holders) do
  if holder.m == 'exclusive' then writer = true else readers = readers + 1 end
  if holder.x < now then
    table.insert(orphans, { token = key, owner = holder.o, queue = holder.q, attempt = holder.a, expiredMs = now - holder.x })
  end
end
local granted
if mode == 'exclusive' then
  granted = (not writer) and readers == 0 and (mine == 1 or (mine == nil and #waiting == 0))
else
  granted = (not writer) and #waiting == 0
end
if granted then
  if mine then table.remove(waiting, mine) end
  s.waiting = waiting
  s.epoch = s.epoch + 1
  s.holders[token] = { m = mode, o = owner, a = attempt, q = queue, x = now + ttl, e = s.epoch }
  save(retention)
  return { 1, s.epoch }
end
if mode == 'exclusive' and not mine then table.insert(waiting, { t = token, x = now + ttl }) end
s.waiting = waiting
save(retention)
if #orphans == 0 then return { 0, '[]' } end
return { 0, cjson.encode(orphans) }
`;

/**
 * Renews this attempt's grants: ARGV ttlMs, retentionMs, attempt, then token:epoch pairs.
 * A grant not held any more (taken over by a later attempt of the step, or freed as dead) is lost:
 * returns the lost tokens. An expired grant nobody took is renewed (nobody acted meanwhile).
 */
const renewScript = `
${now}
${load}
${save}
local ttl, retention, attempt = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local lost = {}
for i = 4, #ARGV do
  local sep = string.find(ARGV[i], ':', 1, true)
  local token, epoch = string.sub(ARGV[i], 1, sep - 1), tonumber(string.sub(ARGV[i], sep + 1))
  local holder = s.holders[token]
  if holder and holder.a == attempt and holder.e == epoch then
    holder.x = now + ttl
  else
    table.insert(lost, token)
  end
end
if next(s.holders) ~= nil then save(retention) end
return lost
`;

/** Gives a grant (or a wait) up: ARGV token, retentionMs. Returns 1 when the grant was still held. */
const releaseScript = `
${load}
${save}
local token = ARGV[1]
local held = s.holders[token] ~= nil
s.holders[token] = nil
local waiting = {}
for _, waiter in ipairs(s.waiting) do
  if waiter.t ~= token then table.insert(waiting, waiter) end
end
s.waiting = waiting
if raw then save(tonumber(ARGV[2])) end
if held then return 1 end
return 0
`;

/**
 * Frees a dead holder's grant: ARGV token, attempt, retentionMs. Only while it is still that
 * attempt's and still expired (a holder that came back and renewed keeps it). Returns 1 if freed.
 */
const freeScript = `
${now}
${load}
${save}
local holder = s.holders[ARGV[1]]
if holder and holder.a == ARGV[2] and holder.x < now then
  s.holders[ARGV[1]] = nil
  save(tonumber(ARGV[3]))
  return 1
end
return 0
`;

/**
 * The end of an attempt: ARGV owner, attempt, retentionMs. Drops its own grants and waits, and
 * the expired grants of earlier attempts of its step (settled by this one).
 */
const closeScript = `
${now}
${load}
${save}
local owner, attempt = ARGV[1], ARGV[2]
for key, holder in pairs(s.holders) do
  if holder.o == owner and (holder.a == attempt or holder.x < now) then s.holders[key] = nil end
end
if raw then save(tonumber(ARGV[3])) end
return 1
`;

const runAcquire = luaScript(acquireScript);
const runRenew = luaScript(renewScript);
const runRelease = luaScript(releaseScript);
const runFree = luaScript(freeScript);
const runClose = luaScript(closeScript);

/** An expired grant in the way of an acquire, as the acquire script reports it. */
interface Orphan {
  token: string;
  owner: string;
  queue: string;
  attempt: string;
  expiredMs: number;
}

/** Options of {@link createRedisWorkspaceLock}. */
export interface RedisWorkspaceLockOptions {
  client: Redis;
  /** The lock's key: one per run and workspace. */
  key: string;
  /** BullMQ key prefix of the step queues (to tell a dead holder's step job is over). */
  queuePrefix: string;
  /** The step job this attempt runs (its grants pass to the job's next attempt if it dies). */
  owner: string;
  /** This attempt of the job (BullMQ's lock token). */
  attempt: string;
  /** The queue of the job. */
  queue: string;
  /** A grant not renewed for this long (Redis's clock) is dead. */
  ttlMs: number;
  /** How often grants are renewed. Default `ttlMs / 3`. */
  renewEveryMs?: number;
  /** How long the lock's key outlives its last write. */
  retentionMs: number;
  /** Aborts waits; the attempt's step signal. */
  signal?: AbortSignal;
  /** Called once when a grant is lost (the attempt must stop acting). */
  onLost: (error: ScaleOutError) => void;
  /**
   * Called (once) when this attempt waits on a dead holder whose step job is queued, not running:
   * its next attempt needs a worker's slot, which this wait may be taking. The worker then puts
   * this attempt's job back in the queue (it continues from its transcript) so the slot frees.
   * Without it the wait goes on until a worker takes the dead holder's job.
   */
  onYield?: () => void;
}

/** A {@link WorkspaceLock} on Redis for one attempt of one step job. */
export interface RedisWorkspaceLock extends WorkspaceLock {
  /** The fencing epoch of each grant held now (token → epoch), for tests and logs. */
  held(): ReadonlyMap<string, number>;
  /** Ends the attempt: stops renewing, gives up its grants and waits. */
  close(): Promise<void>;
}

/**
 * The distributed form of cortex's workspace lock, for the steps of one run that workers on
 * several processes or machines run on one shared workspace: a readers-writer lock in one Redis
 * key (JSON state changed only by Lua scripts, on Redis's clock). Exclusive requests wait in
 * arrival order and go before later shared ones.
 *
 * Each grant is a lease, renewed every `renewEveryMs` while held; a grant not renewed for
 * `ttlMs` (its worker died or froze) is dead. A dead grant does not let other steps act at once:
 * its holder may have changed the workspace without recording it, and its step's next attempt
 * judges that change by the workspace's fingerprint — so the grant passes to that attempt (its
 * first acquire, or the end of the attempt), and others free it only once the job is over
 * (completed, failed, removed). An attempt that waits on a dead holder whose job is queued calls
 * `onYield`, so it does not keep the worker slot that job's next attempt needs. Each grant carries a fencing epoch;
 * a renewal that finds its grant gone (taken over, freed) calls `onLost` — the worker aborts the
 * step, so its running call is left unrecorded and settled by the next attempt instead of being
 * recorded by a holder that no longer holds the lock.
 */
export function createRedisWorkspaceLock(options: RedisWorkspaceLockOptions): RedisWorkspaceLock {
  const { client, key, owner, attempt, queue, ttlMs, retentionMs, signal } = options;
  const renewEveryMs = options.renewEveryMs ?? Math.max(1, Math.floor(ttlMs / 3));
  const held = new Map<string, number>();
  let lost = false;
  let closed = false;
  const loseGrant = (reason: string) => {
    if (lost) return;
    lost = true;
    options.onLost(
      new ScaleOutError({
        code: 'workspace-lock-lost',
        message: `Step job ${owner} lost its workspace lock (${reason}): it stops instead of acting without it.`,
        details: { jobId: owner, key },
      }),
    );
  };
  const failed = (action: string, error: unknown) =>
    new ScaleOutError({
      code: 'workspace-lock-lost',
      message: `Could not ${action} the workspace lock of step job ${owner} in Redis: ${error instanceof Error ? error.message : String(error)}`,
      details: { jobId: owner, key },
      cause: error,
    });

  let timer: NodeJS.Timeout | undefined;
  let renewing = false;
  const renew = async () => {
    if (held.size === 0 || renewing) return;
    renewing = true;
    try {
      const pairs = [...held].map(([token, epoch]) => `${token}:${epoch}`);
      const gone = (await runRenew(
        client,
        [key],
        String(ttlMs),
        String(retentionMs),
        attempt,
        ...pairs,
      )) as string[];
      if (gone.length > 0) {
        for (const token of gone) held.delete(token);
        loseGrant('another attempt of the step took it over, or it was freed as dead');
      }
    } catch (error) {
      // Redis unreachable: the grant may expire unnoticed, so the step must not go on acting.
      loseGrant(`renewal failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      renewing = false;
    }
  };
  const heartbeat = () => {
    if (timer !== undefined || closed) return;
    timer = setInterval(() => void renew(), renewEveryMs);
    timer.unref?.();
  };
  const quiet = () => {
    if (held.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  /**
   * Where a dead holder's step job is: `over` (completed, failed, removed: nobody will settle what
   * it left, free its grant), `running` (an attempt is active: it takes the grant over, or BullMQ
   * has not noticed the death yet) or `queued` (waiting for a worker's slot).
   */
  const jobOf = async (orphan: Orphan): Promise<'over' | 'running' | 'queued'> => {
    const base = `${options.queuePrefix}:${orphan.queue}`;
    const replies = await client
      .pipeline()
      .exists(`${base}:${orphan.owner}`)
      .zscore(`${base}:completed`, orphan.owner)
      .zscore(`${base}:failed`, orphan.owner)
      .lpos(`${base}:active`, orphan.owner)
      .exec();
    if (replies === null || replies.some(([error]) => error !== null)) return 'running';
    const [exists, completed, failedAt, active] = replies.map(([, value]) => value);
    if (exists === 0 || completed !== null || failedAt !== null) return 'over';
    return active !== null ? 'running' : 'queued';
  };
  let yielded = false;
  /** Acquires in progress. */
  let pending = 0;
  /** A grant was taken: its acquire dropped the grants earlier attempts of the step left. */
  let grantedOnce = false;

  return {
    held: () => held,
    async acquire(mode) {
      if (mode !== 'shared' && mode !== 'exclusive') {
        throw new ScaleOutError({
          code: 'invalid-options',
          message: `A workspace lock mode is 'shared' or 'exclusive', got ${JSON.stringify(mode)}.`,
        });
      }
      if (closed) throw failed('take', new Error('the attempt is over'));
      // Counted until it returns or throws: an attempt that ends with none in progress,
      // none held and one granted before needs no closing round trip (see `close`).
      pending += 1;
      try {
        const token = randomUUID();
        let delay = 5;
        for (;;) {
          if (signal?.aborted || lost) {
            await runRelease(client, [key], token, String(retentionMs)).catch(() => undefined);
            throw signal?.aborted
              ? signal.reason
              : failed('take', new Error('a grant of this attempt was lost'));
          }
          let reply: [number, number | string];
          try {
            reply = (await runAcquire(
              client,
              [key],
              token,
              mode,
              owner,
              attempt,
              queue,
              String(ttlMs),
              String(retentionMs),
            )) as [number, number | string];
          } catch (error) {
            throw failed('take', error);
          }
          if (reply[0] === 1) {
            held.set(token, Number(reply[1]));
            grantedOnce = true;
            heartbeat();
            let released = false;
            return () => {
              if (released) return;
              released = true;
              const epoch = held.get(token);
              held.delete(token);
              quiet();
              if (epoch === undefined) return;
              void runRelease(client, [key], token, String(retentionMs))
                .then((wasHeld) => {
                  if (wasHeld !== 1) loseGrant('it was gone when the call ended');
                })
                .catch(() => undefined);
            };
          }
          const orphans = JSON.parse(String(reply[1])) as Orphan[] | Record<string, never>;
          for (const orphan of Array.isArray(orphans) ? orphans : []) {
            const state = await jobOf(orphan).catch(() => 'running' as const);
            if (state === 'over') {
              await runFree(client, [key], orphan.token, orphan.attempt, String(retentionMs)).catch(
                () => undefined,
              );
            } else if (state === 'queued' && options.onYield !== undefined && !yielded) {
              yielded = true;
              options.onYield();
            }
          }
          try {
            await sleep(delay, undefined, signal ? { signal } : undefined);
          } catch {
            // aborted: handled at the top of the loop
          }
          delay = Math.min(delay * 2, 100, Math.max(1, Math.floor(ttlMs / 3)));
        }
      } finally {
        pending -= 1;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      const idle = held.size === 0 && pending === 0;
      held.clear();
      // Nothing of this attempt is left to drop — every grant was released (in order on this
      // connection, before anything sent later), no wait is registered — and its first grant
      // dropped what earlier attempts held: no round trip. Otherwise drop what is left.
      if (idle && grantedOnce) return;
      await runClose(client, [key], owner, attempt, String(retentionMs)).catch(() => undefined);
    },
  };
}
