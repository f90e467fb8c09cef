import { statSync } from 'node:fs';
import type { LedgerAnalysis } from './ledger-evidence';
import type { WorkspaceFacts } from './workspace-facts';
import {
  diffSnapshots,
  type GitRefs,
  type PathChange,
  readGitRefs,
  snapshotWorkspace,
  type WorkspaceChanges,
  type WorkspaceSnapshot,
} from './workspace-snapshot';

/**
 * How "changed during this step" is known:
 * - `baseline`: a snapshot taken when the step started (exact: commits, no-git folders, ignored
 *   files and DAG neighbours are all judged the same way);
 * - `mtime`: no baseline, but the step's start time: a file written since then changed;
 * - `git`: no baseline and no usable start time: `git status` / `git diff` against the base ref;
 * - `ledger`: none of these: only the step's own tool calls show what it touched.
 */
export type ChangeBasis = 'baseline' | 'mtime' | 'git' | 'ledger';

/** What changed while one step ran. */
export interface StepChanges {
  readonly basis: ChangeBasis;
  /** How a workspace-relative path changed during the step. */
  status(file: string): Promise<PathChange>;
  /** Files known to be created, modified or deleted during the step (as far as the basis can tell). */
  changed(): Promise<{ created: string[]; modified: string[]; deleted: string[] }>;
  /** A deleted file whose content reappeared under a new path (baseline only). */
  moved(): { from: string; to: string }[];
  /** Git refs when the step started and now (baseline only: `before` is undefined otherwise). */
  refs(): { before: GitRefs | undefined; after: GitRefs | undefined };
  /** Packages added or changed (`node_modules/x`, `site-packages/x`); undefined without a baseline. */
  packagesChanged(): readonly string[] | undefined;
  /** The text a test file had when the step started (baseline only). */
  textBefore(file: string): string | undefined;
  /** When the step started (epoch ms), if known. */
  readonly startedAt: number | undefined;
}

/** Options of {@link createStepChanges}. */
export interface StepChangesOptions {
  facts: WorkspaceFacts;
  ledger: LedgerAnalysis;
  /** The snapshot taken when the step started. */
  baseline?: WorkspaceSnapshot;
  /** When the step started (epoch ms, wall clock), for the mtime basis. */
  startedAt?: number;
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

/** True when an epoch-ms value can be compared with file mtimes (a real clock, not a test's fake one). */
export function isWallClockTime(value: number | undefined): value is number {
  if (value === undefined || !Number.isFinite(value)) return false;
  const now = Date.now();
  return value <= now + 1000 && value >= now - WEEK_MS;
}

/**
 * Builds the step's change view: against its baseline snapshot when there is one, else by file
 * mtimes since the step started, else by git, else by the ledger alone.
 */
export function createStepChanges(options: StepChangesOptions): StepChanges {
  const { facts, ledger, baseline } = options;
  if (baseline !== undefined) return baselineChanges(baseline);
  const startedAt = isWallClockTime(options.startedAt) ? options.startedAt : undefined;
  const basis: ChangeBasis =
    startedAt !== undefined ? 'mtime' : facts.gitTop !== undefined ? 'git' : 'ledger';
  const touchedByLedger = (file: string) => ledger.written.has(file) || ledger.deleted.has(file);
  const status = async (file: string): Promise<PathChange> => {
    let stats: ReturnType<typeof statSync> | undefined;
    try {
      stats = statSync(facts.absolute(file));
    } catch {
      stats = undefined;
    }
    const git = facts.gitTop !== undefined ? await facts.changes() : undefined;
    const gitKind = git?.get(file)?.kind;
    if (stats !== undefined) {
      if (startedAt !== undefined) {
        if (stats.mtimeMs >= startedAt) {
          const born = stats.birthtimeMs > 0 && stats.birthtimeMs >= startedAt;
          return born || gitKind === 'untracked' || gitKind === 'added' ? 'created' : 'modified';
        }
        return 'unchanged';
      }
      if (git !== undefined) {
        if (gitKind !== undefined)
          return gitKind === 'untracked' || gitKind === 'added' ? 'created' : 'modified';
        return touchedByLedger(file) ? 'unknown' : 'unchanged';
      }
      return ledger.written.has(file) ? 'modified' : 'unknown';
    }
    if (ledger.deleted.has(file)) return 'deleted';
    if (git !== undefined) {
      if (gitKind === 'deleted') return startedAt === undefined ? 'deleted' : 'unknown';
      return 'unchanged';
    }
    return 'unknown';
  };
  return {
    basis,
    startedAt,
    status,
    async changed() {
      const created: string[] = [];
      const modified: string[] = [];
      const deleted: string[] = [];
      const candidates = new Set<string>([...ledger.written.keys(), ...ledger.deleted.keys()]);
      const git = facts.gitTop !== undefined ? await facts.changes() : undefined;
      for (const file of git?.keys() ?? []) candidates.add(file);
      for (const file of candidates) {
        const change = await status(file);
        if (change === 'created') created.push(file);
        else if (change === 'modified') modified.push(file);
        else if (change === 'deleted') deleted.push(file);
      }
      return { created, modified, deleted };
    },
    moved: () => [],
    refs: () => ({
      before: undefined,
      after: facts.gitTop !== undefined ? readGitRefs(facts.root) : undefined,
    }),
    packagesChanged: () => undefined,
    textBefore: () => undefined,
  };
}

function baselineChanges(baseline: WorkspaceSnapshot): StepChanges {
  let diff: WorkspaceChanges | undefined;
  const current = () => {
    diff ??= diffSnapshots(baseline, snapshotWorkspace(baseline.root));
    return diff;
  };
  return {
    basis: 'baseline',
    startedAt: baseline.takenAt,
    status: async (file) => current().status(file),
    async changed() {
      const { created, modified, deleted } = current();
      return { created: [...created], modified: [...modified], deleted: [...deleted] };
    },
    moved: () => [...current().moved],
    refs: () => ({ before: baseline.git, after: current().after.git }),
    packagesChanged: () => current().packagesChanged,
    textBefore: (file) => baseline.texts.get(file),
  };
}
