import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { CortexError } from './cortex-error';

/** Who holds a run's lease: the process that is the run's one live owner. */
export interface LeaseHolder {
  /** Unique per lease: tells two holders in one process apart and fences a taken-over holder. */
  token: string;
  pid: number;
  host: string;
  /** `run`: a new run; `resume`: `resume(runId)`. Only for messages. */
  purpose: 'run' | 'resume';
  /** Epoch milliseconds. */
  acquiredAt: number;
  /** Epoch milliseconds of the last heartbeat. */
  renewedAt: number;
  /** The holder's TTL: it is stale once `renewedAt` is older than this. */
  ttlMs: number;
}

/** Options of `RunStore.acquireLease`. */
export interface LeaseOptions {
  /** For the holder record and the refusal message. Default `run`. */
  purpose?: 'run' | 'resume';
  /** A lease not renewed for this long is stale: another process may take it over. Default 15 000 ms. */
  ttlMs?: number;
  /**
   * How often the holder renews it (a heartbeat); `false` never renews (tests of staleness).
   * Default a third of `ttlMs`.
   */
  renewEveryMs?: number | false;
}

/**
 * A held lease: while it is held, no other process runs or resumes the run. The store renews it
 * in the background; when a renewal finds that another process took it over (this holder was
 * judged dead: its heartbeat was older than the TTL, or its pid is gone on the same host),
 * `signal` aborts and the holder must stop writing the run's journal.
 */
export interface RunLease {
  readonly runId: string;
  readonly holder: LeaseHolder;
  /**
   * The holder this lease replaced, when it had died without releasing the lease (its pid is
   * gone, or its heartbeat stopped). Its last journal write may have been cut off mid-line.
   */
  readonly takenOver?: LeaseHolder;
  /** Aborts (with a `CortexError('lease-lost')`) when the lease is lost. */
  readonly signal: AbortSignal;
  /** Renews the lease now. Rejects with `CortexError('lease-lost')` when it was taken over. */
  renew(): Promise<void>;
  /** Gives the lease up (idempotent). */
  release(): Promise<void>;
}

/** Default lease TTL: a holder silent this long is considered dead. */
export const defaultLeaseTtlMs = 15_000;

/** The resolved lease options every store applies the same way. */
export function resolveLeaseOptions(options: LeaseOptions = {}): {
  purpose: 'run' | 'resume';
  ttlMs: number;
  renewEveryMs: number | false;
} {
  const ttlMs = options.ttlMs ?? defaultLeaseTtlMs;
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0) {
    throw new CortexError({
      code: 'invalid-options',
      message: `Lease ttlMs must be a number > 0, got ${JSON.stringify(ttlMs)}.`,
    });
  }
  const renewEveryMs = options.renewEveryMs ?? Math.max(1, Math.floor(ttlMs / 3));
  if (renewEveryMs !== false && (!Number.isFinite(renewEveryMs) || renewEveryMs <= 0)) {
    throw new CortexError({
      code: 'invalid-options',
      message: `Lease renewEveryMs must be a number > 0 or false, got ${JSON.stringify(renewEveryMs)}.`,
    });
  }
  return { purpose: options.purpose ?? 'run', ttlMs, renewEveryMs };
}

/** A holder record for this process. */
export function newLeaseHolder(
  purpose: 'run' | 'resume',
  ttlMs: number,
  now: number = Date.now(),
): LeaseHolder {
  return {
    token: randomUUID(),
    pid: process.pid,
    host: hostname(),
    purpose,
    acquiredAt: now,
    renewedAt: now,
    ttlMs,
  };
}

/**
 * The refusal every store gives when a run's lease is held:
 * `CortexError('run-leased')`, "run X is being resumed by pid N on host H", with the holder in
 * `details`. Exported for {@link RunStore} implementations.
 */
export function leaseHeldError(runId: string, holder: Partial<LeaseHolder>): CortexError {
  const doing = holder.purpose === 'resume' ? 'resumed' : 'run';
  return new CortexError({
    code: 'run-leased',
    message: `run ${runId} is being ${doing} by pid ${holder.pid ?? '?'} on host ${holder.host ?? '?'}; wait for it to stop, or stop it first.`,
    details: { runId, holder },
  });
}

/** The error a holder gets when its lease was taken over. */
export function leaseLostError(runId: string, holder: Partial<LeaseHolder> | undefined): CortexError {
  return new CortexError({
    code: 'lease-lost',
    message: holder
      ? `lost the lease of run ${runId}: pid ${holder.pid ?? '?'} on host ${holder.host ?? '?'} took it over (this process was silent longer than the lease TTL)`
      : `lost the lease of run ${runId}: its lock was removed by another process`,
    details: { runId, ...(holder ? { holder } : {}) },
  });
}

/** True when `holder` can no longer be the run's owner: its heartbeat is older than its TTL. */
export function isStale(holder: Pick<LeaseHolder, 'renewedAt' | 'ttlMs'>, now: number = Date.now()): boolean {
  return now - holder.renewedAt > (Number.isFinite(holder.ttlMs) ? holder.ttlMs : defaultLeaseTtlMs);
}

/**
 * Runs `renew` every `everyMs` until the lease is lost or released (unref'd: it never keeps a
 * process alive). Returns the stop function. A renewal that fails (a full disk, an I/O or
 * network error) is tried again at the next beat: stopping at the first failure let the lease go
 * stale while its holder ran on. A `renew` that finds the lease lost stops the heartbeat itself.
 */
export function startHeartbeat(renew: () => Promise<void>, everyMs: number | false): () => void {
  if (everyMs === false) return () => {};
  let stopped = false;
  let busy = false;
  const timer = setInterval(() => {
    if (stopped || busy) return;
    busy = true;
    renew()
      .catch(() => undefined)
      .finally(() => {
        busy = false;
      });
  }, everyMs);
  timer.unref?.();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/**
 * In-process leases (the memory store's): one holder per run id in this process; a holder that
 * stopped renewing for `ttlMs` can be taken over.
 */
export function createLeaseTable(): { acquire(runId: string, options?: LeaseOptions): Promise<RunLease> } {
  const held = new Map<string, { holder: LeaseHolder; lose: (error: CortexError) => void }>();
  return {
    async acquire(runId, options) {
      const { purpose, ttlMs, renewEveryMs } = resolveLeaseOptions(options);
      const current = held.get(runId);
      if (current && !isStale(current.holder)) throw leaseHeldError(runId, current.holder);
      const holder = newLeaseHolder(purpose, ttlMs);
      if (current) current.lose(leaseLostError(runId, holder));
      const controller = new AbortController();
      let released = false;
      const lose = (error: CortexError) => {
        stopHeartbeat();
        if (!controller.signal.aborted) controller.abort(error);
      };
      held.set(runId, { holder, lose });
      const renew = async () => {
        const entry = held.get(runId);
        if (released) return;
        if (entry?.holder.token !== holder.token) {
          const error = leaseLostError(runId, entry?.holder);
          lose(error);
          throw error;
        }
        holder.renewedAt = Date.now();
      };
      const stopHeartbeat = startHeartbeat(renew, renewEveryMs);
      return {
        runId,
        holder,
        ...(current ? { takenOver: current.holder } : {}),
        signal: controller.signal,
        renew,
        async release() {
          if (released) return;
          released = true;
          stopHeartbeat();
          if (held.get(runId)?.holder.token === holder.token) held.delete(runId);
        },
      };
    },
  };
}
