/** What the redactor benchmarks share: a seeded random source and the words their texts are made of. */

/** Deterministic PRNG (mulberry32): the same texts every run. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words of ordinary run output (tool results, model text). */
export const words = (
  'the step reads config file and writes output module test passes build fails with error in ' +
  'function handler request response value cache index import export const return await async'
).split(' ');
