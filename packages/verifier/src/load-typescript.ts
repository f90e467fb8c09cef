import { createRequire } from 'node:module';
import type TypeScript from 'typescript';

let loaded: typeof TypeScript | undefined;

/**
 * The TypeScript compiler API, loaded on first use: importing the verifier stays cheap (the
 * compiler takes 0.4–0.9 s to load) for runs that never check a symbol or parse a file.
 */
export function loadTypeScript(): typeof TypeScript {
  loaded ??= createRequire(import.meta.url)('typescript') as typeof TypeScript;
  return loaded;
}
