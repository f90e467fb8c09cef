import type { SymbolKind } from './find-symbol';

/** Where a claim came from: structured `mark_step` claims, the notes, the step's final text, or a model. */
export type ClaimSource = 'claims' | 'notes' | 'output' | 'model';

/** A claimed number of passing tests ("all 8 tests pass": `{ count: 8, all: true }`). */
export interface TestCountClaim {
  count?: number;
  /** "all tests pass": no test may fail. */
  all: boolean;
}

/** A checkable statement a step made about its own effects. */
export type Claim =
  | {
      kind: 'file-written';
      file: string;
      /** `created` / `modified` when the wording says so; `written` for structured claims. */
      action: 'created' | 'modified' | 'written';
      source: ClaimSource;
      text: string;
    }
  | { kind: 'file-deleted'; file: string; source: ClaimSource; text: string }
  | { kind: 'file-moved'; from: string; to: string; source: ClaimSource; text: string }
  | {
      kind: 'symbol-added';
      name: string;
      file?: string;
      symbolKind: SymbolKind;
      source: ClaimSource;
      text: string;
    }
  | { kind: 'command-passed'; argv: string[]; tests?: TestCountClaim; source: ClaimSource; text: string }
  | {
      kind: 'check-passed';
      /** A passing test suite / build / typecheck / lint, with no command given: the verifier detects it. */
      check: 'test' | 'build' | 'typecheck' | 'lint';
      tests?: TestCountClaim;
      source: ClaimSource;
      text: string;
    }
  | { kind: 'git-commit'; hash?: string; source: ClaimSource; text: string }
  | { kind: 'git-branch'; name: string; source: ClaimSource; text: string }
  /** A git tag created (optionally on a named commit) or deleted. */
  | {
      kind: 'git-tag';
      name: string;
      action: 'create' | 'delete';
      target?: string;
      source: ClaimSource;
      text: string;
    }
  | { kind: 'git-push'; remote?: string; branch?: string; source: ClaimSource; text: string }
  | {
      kind: 'dependency-installed';
      /** The package, when named (`lodash`, `requests`); without it, "the dependencies". */
      name?: string;
      source: ClaimSource;
      text: string;
    };

/** The kinds of {@link Claim}. */
export type ClaimKind = Claim['kind'];

function claimKey(claim: Claim): string {
  switch (claim.kind) {
    case 'file-written':
    case 'file-deleted':
      return `${claim.kind}:${claim.file}`;
    case 'file-moved':
      return `${claim.kind}:${claim.from}:${claim.to}`;
    case 'symbol-added':
      return `${claim.kind}:${claim.file ?? ''}:${claim.name}`;
    case 'command-passed':
      return `${claim.kind}:${claim.argv.join('\u0000')}`;
    case 'check-passed':
      return `${claim.kind}:${claim.check}`;
    case 'git-commit':
      return `${claim.kind}:${claim.hash ?? ''}`;
    case 'git-branch':
      return `${claim.kind}:${claim.name}`;
    case 'git-tag':
      return `${claim.kind}:${claim.action}:${claim.name}:${claim.target ?? ''}`;
    case 'git-push':
      return `${claim.kind}:${claim.remote ?? ''}:${claim.branch ?? ''}`;
    case 'dependency-installed':
      return `${claim.kind}:${claim.name ?? ''}`;
  }
}

/**
 * Removes duplicate claims (same kind and target), keeping the first; a claim that carries a
 * test count replaces an earlier one without.
 */
export function dedupeClaims(claims: readonly Claim[]): Claim[] {
  const seen = new Map<string, number>();
  const out: Claim[] = [];
  for (const claim of claims) {
    const key = claimKey(claim);
    const at = seen.get(key);
    if (at === undefined) {
      seen.set(key, out.length);
      out.push(claim);
      continue;
    }
    const existing = out[at];
    if (
      existing !== undefined &&
      (claim.kind === 'check-passed' || claim.kind === 'command-passed') &&
      (existing.kind === 'check-passed' || existing.kind === 'command-passed') &&
      existing.tests?.count === undefined &&
      claim.tests?.count !== undefined
    ) {
      out[at] = { ...existing, tests: claim.tests };
    }
  }
  return out;
}

function testsText(tests: TestCountClaim | undefined): string {
  if (tests === undefined) return '';
  if (tests.count !== undefined) return ` (${tests.all ? 'all ' : ''}${tests.count} test(s))`;
  return tests.all ? ' (all tests)' : '';
}

/** Describes a claim in one line (for messages). */
export function describeClaim(claim: Claim): string {
  switch (claim.kind) {
    case 'file-written':
      return `${claim.action} ${claim.file}`;
    case 'file-deleted':
      return `deleted ${claim.file}`;
    case 'file-moved':
      return `moved ${claim.from} to ${claim.to}`;
    case 'symbol-added':
      return `added ${claim.symbolKind === 'any' ? 'symbol' : claim.symbolKind} ${claim.name}${claim.file ? ` in ${claim.file}` : ''}`;
    case 'command-passed':
      return `\`${claim.argv.join(' ')}\` passed${testsText(claim.tests)}`;
    case 'check-passed':
      return `${claim.check} passed${testsText(claim.tests)}`;
    case 'git-commit':
      return claim.hash ? `committed ${claim.hash}` : 'committed';
    case 'git-branch':
      return `created branch ${claim.name}`;
    case 'git-tag':
      return `${claim.action === 'create' ? 'created' : 'deleted'} tag ${claim.name}${claim.target ? ` on ${claim.target}` : ''}`;
    case 'git-push':
      return `pushed${claim.branch ? ` ${claim.branch}` : ''}${claim.remote ? ` to ${claim.remote}` : ''}`;
    case 'dependency-installed':
      return claim.name ? `installed ${claim.name}` : 'installed the dependencies';
  }
}
