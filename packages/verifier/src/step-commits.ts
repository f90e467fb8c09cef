import type { LedgerAnalysis } from './ledger-evidence';
import type { CommandResult } from './run-command';

/** `git commit`'s summary line: `[main 1a2b3c4] message`, `[main (root-commit) 1a2b3c4] …`. */
const COMMIT_SUMMARY = /^\[[^\]\n]*?\s([0-9a-f]{7,40})\]\s/gm;

/**
 * The commits this step's own successful `git commit` calls reported making (abbreviated
 * hashes, in ledger order): read from git's summary line in the tool's result.
 */
export function commitsMadeByStep(ledger: LedgerAnalysis): string[] {
  const made: string[] = [];
  for (const entry of ledger.commands) {
    if (!entry.run.passed || entry.run.argv[0] !== 'git' || !entry.run.argv.includes('commit')) continue;
    for (const match of entry.run.output.matchAll(COMMIT_SUMMARY)) if (match[1]) made.push(match[1]);
  }
  return made;
}

/**
 * The commit of `made` that HEAD is, or descends from; `undefined` when the step's commits are
 * not in HEAD's history (reset away, made on another branch and switched back).
 */
export async function stepCommitInHead(
  made: readonly string[],
  head: string,
  git: (args: readonly string[]) => Promise<CommandResult>,
): Promise<string | undefined> {
  const latestFirst = [...made].reverse();
  const exact = latestFirst.find((hash) => head.startsWith(hash));
  if (exact !== undefined) return exact;
  for (const hash of latestFirst) {
    const result = await git(['merge-base', '--is-ancestor', hash, 'HEAD']);
    if (result.exitCode === 0) return hash;
  }
  return undefined;
}

/** A description that asks for a commit without changes (to trigger CI, mark a release). */
export const EMPTY_COMMIT_ASKED = /\b(?:empty|blank)\s+commit|--allow-empty\b/i;

/**
 * Whether the commits from `from` (exclusive; the step's start) to `to` record any change of the
 * tree: `false` for an empty commit (`git commit --allow-empty`), a message-only `--amend` or a
 * `reset --soft` and re-commit of old work — HEAD moved, yet nothing was committed. Without `from`
 * (no baseline) `to` is compared with its own parent (a root commit with the empty tree; a merge
 * counts as a change). `undefined` when git cannot tell.
 */
export async function commitCarriesChange(
  from: string | undefined,
  to: string,
  git: (args: readonly string[]) => Promise<CommandResult>,
): Promise<boolean | undefined> {
  if (from !== undefined) {
    const diff = await git(['diff', '--quiet', from, to, '--']);
    return diff.exitCode === 0 ? false : diff.exitCode === 1 ? true : undefined;
  }
  const parents = await git(['rev-list', '--parents', '-n', '1', to]);
  if (parents.exitCode !== 0) return undefined;
  const hashes = parents.stdout.trim().split(/\s+/);
  if (hashes.length > 2) return true;
  const diff =
    hashes.length === 2
      ? await git(['diff', '--quiet', hashes[1] as string, to, '--'])
      : await git(['diff-tree', '--quiet', '--root', '-r', to]);
  return diff.exitCode === 0 ? false : diff.exitCode === 1 ? true : undefined;
}
