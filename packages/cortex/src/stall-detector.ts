import type { StallSignal } from './decide-termination';

/**
 * Normalises an error message so that the same failure compares equal across attempts:
 * lower case, absolute paths → `<path>`, hex ids and numbers → `<n>`, whitespace collapsed.
 *
 * @example
 * normalizeError('Test failed after 1234 ms in /tmp/ws-8f3a/src/a.ts') // 'test failed after <n> ms in <path>'
 */
export function normalizeError(message: string): string {
  return message
    .toLowerCase()
    .replace(/(?:[a-z]:)?(?:[\\/][\w.@~-]+){2,}[\\/]?/g, '<path>')
    .replace(/\b0x[0-9a-f]+\b/g, '<n>')
    .replace(/\b[0-9a-f]{8,}\b/g, '<n>')
    .replace(/\d+(?:\.\d+)?/g, '<n>')
    .replace(/\s+/g, ' ')
    .trim();
}

/** One iteration as the stall detector sees it. */
export interface StallObservation {
  /** The normalised failure of this iteration (see {@link normalizeError}); `undefined` when nothing failed. */
  errorSignature: string | undefined;
  /** A hash of the observable state (workspace fingerprint + failing checks). */
  stateHash: string;
  /** A progress metric, higher is better (e.g. passing minus failing checks). */
  metric: number;
}

/** Limits of {@link createStallDetector} (the "cannot complete" signals of the termination rules). */
export interface StallDetectorOptions {
  /** Same normalised error this many times in a row → `stalled`. Default 3. */
  sameErrorLimit?: number;
  /** This many iterations in a row without a new best metric → `stalled`. Default 5. */
  noProgressLimit?: number;
}

/** Watches iterations for "cannot complete" signals. */
export interface StallDetector {
  /** Records one iteration; returns a signal when the run should stop. */
  observe(observation: StallObservation): StallSignal | undefined;
  /** True when any observation after the first improved on the best metric before it. */
  readonly progressed: boolean;
  /** True when the latest observation improved on the best metric before it (the first counts as progress). */
  readonly lastProgressed: boolean;
  /** Observations so far. */
  readonly observations: readonly StallObservation[];
}

/**
 * Creates a stall detector. Checks, in order, for each observation:
 *
 * 1. `same-error` — the last `sameErrorLimit` error signatures are equal → `stalled`
 * 2. `repeated-state` — the state hash equals an earlier one → `loop-detected`
 * 3. `oscillation` — the signatures alternate A, B, A, B → `loop-detected`
 * 4. `no-progress` — `noProgressLimit` observations in a row without a new best metric → `stalled`
 */
export function createStallDetector(options: StallDetectorOptions = {}): StallDetector {
  const sameErrorLimit = options.sameErrorLimit ?? 3;
  const noProgressLimit = options.noProgressLimit ?? 5;
  const observations: StallObservation[] = [];
  const seenStates = new Set<string>();
  let best = Number.NEGATIVE_INFINITY;
  let sinceProgress = 0;
  let progressed = false;
  let lastProgressed = false;

  return {
    get progressed() {
      return progressed;
    },
    get lastProgressed() {
      return lastProgressed;
    },
    observations,
    observe(observation) {
      const first = observations.length === 0;
      observations.push(observation);
      lastProgressed = observation.metric > best;
      if (lastProgressed) {
        if (!first) progressed = true;
        best = observation.metric;
        sinceProgress = 0;
      } else {
        sinceProgress++;
      }

      const recent = observations.slice(-sameErrorLimit).map((item) => item.errorSignature);
      if (
        recent.length === sameErrorLimit &&
        recent[0] !== undefined &&
        recent.every((signature) => signature === recent[0])
      ) {
        return {
          stopReason: 'stalled',
          kind: 'same-error',
          message: `the same error repeated ${sameErrorLimit} times in a row: ${recent[0]}`,
        };
      }
      if (seenStates.has(observation.stateHash)) {
        return {
          stopReason: 'loop-detected',
          kind: 'repeated-state',
          message: `iteration ${observations.length} returned to a state seen before (hash ${observation.stateHash.slice(0, 12)})`,
        };
      }
      seenStates.add(observation.stateHash);
      const last4 = observations.slice(-4).map((item) => item.errorSignature);
      if (
        last4.length === 4 &&
        last4[0] === last4[2] &&
        last4[1] === last4[3] &&
        last4[0] !== last4[1] &&
        last4[0] !== undefined &&
        last4[1] !== undefined
      ) {
        return {
          stopReason: 'loop-detected',
          kind: 'oscillation',
          message: `the results oscillate between two failures: ${last4[0]} ⇄ ${last4[1]}`,
        };
      }
      if (sinceProgress >= noProgressLimit) {
        return {
          stopReason: 'stalled',
          kind: 'no-progress',
          message: `${sinceProgress} iterations in a row without progress`,
        };
      }
      return undefined;
    },
  };
}
