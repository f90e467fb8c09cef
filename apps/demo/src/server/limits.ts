/** A refusal because the server is at capacity. */
export interface CapacityRefusal {
  status: 429 | 503;
  message: string;
  headers: Record<string, string>;
}

/** Caps of the web server. */
export interface ServerCaps {
  /** Event streams (SSE) open at once. Default 32; one more is answered 429. */
  maxEventStreams: number;
  /** Runs active at once. Default 4; one more is answered 503. */
  maxActiveRuns: number;
}

/** Default caps. */
export const defaultServerCaps: ServerCaps = { maxEventStreams: 32, maxActiveRuns: 4 };

/** Checks a cap: a refusal when `current` already reached `max`. */
export function refuseOverCap(
  kind: 'streams' | 'runs',
  current: number,
  max: number,
): CapacityRefusal | undefined {
  if (current < max) return undefined;
  return kind === 'streams'
    ? {
        status: 429,
        message: `Too many event streams are open (${current} of ${max}); close one and retry.`,
        headers: { 'retry-after': '5' },
      }
    : {
        status: 503,
        message: `Too many runs are active (${current} of ${max}); wait for one to finish or cancel one.`,
        headers: { 'retry-after': '10' },
      };
}
