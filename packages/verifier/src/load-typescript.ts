import { createRequire } from 'node:module';
import type TypeScript from 'typescript';

let loaded: typeof TypeScript | null | undefined;

/**
 * The TypeScript compiler API when it is installed (an optional peer dependency of the
 * verifier), loaded on first use; `undefined` when it is not. Nothing in the verifier needs it:
 * code facts come from lezer, and TYPECHECK runs the workspace's own `tsc`. When present,
 * it confirms JS/TS syntax errors with the compiler's own parser.
 */
export function loadTypeScript(): typeof TypeScript | undefined {
  if (loaded === undefined) {
    try {
      loaded = createRequire(import.meta.url)('typescript') as typeof TypeScript;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}
