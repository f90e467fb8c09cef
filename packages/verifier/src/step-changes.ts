import { createHash } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import type { CommandRunner } from '@closedloop/tools';
import { openedInside } from '@closedloop/tools/internal';
import type { LedgerAnalysis } from './ledger-evidence';
import { runCommand } from './run-command';
import { commitsMadeByStep } from './step-commits';
import type { WorkspaceFacts } from './workspace-facts';
import {
  diffSnapshots,
  type GitRefs,
  type PathChange,
  readGitRefs,
  snapshotAfter,
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
  /**
   * Installed entries added or changed, with their signatures now (packages and the programs of
   * `node_modules/.bin`); undefined without a baseline.
   */
  installedChanged(): ReadonlyMap<string, string> | undefined;
  /** The text a file had when the step started (the baseline's; without one, the last commit's). */
  textBefore(file: string): Promise<string | undefined>;
  /**
   * The workspace now, as the walk that compared it with the baseline saw it (its files and
   * folder listings): a check looking through the workspace need not walk it again. `undefined`
   * without a baseline.
   */
  after(): WorkspaceSnapshot | undefined;
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
  /**
   * Without a baseline: what files held before this step's own calls first touched them (path,
   * absolute or workspace-relative → sha256 of the content, `null` when it did not exist), e.g.
   * from a journal's dispatch snapshots. A file named here changed during the step exactly when
   * its content differs now — no clock involved, so a step continued on another machine from an
   * earlier attempt is judged the same whatever the machines' clocks say.
   */
  priorStates?: ReadonlyMap<string, string | null>;
  /** The process runner for git (share `run_command`'s). Default: default policy, `sandbox: 'auto'`. */
  runner?: CommandRunner;
}

const WEEK_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * The most a prior-state comparison hashes (cortex's dispatch snapshots hash files up to this
 * size, so a larger file cannot match a prior hash anyway).
 */
const MAX_HASH_BYTES = 256 * 1024 * 1024;
const HASH_CHUNK_BYTES = 1024 * 1024;

/**
 * The sha256 of a regular file whose real path is inside `realRoot`, read in chunks through a
 * descriptor opened without following a last-moment link and without blocking; undefined for a
 * link out of the workspace (a host file's content is never compared), a FIFO, socket or device,
 * a directory, a file the kernel opened outside (a folder above it swapped for a link out), or a
 * file over `maxBytes` (also one that grows past it while it is read).
 */
function hashInside(realRoot: string, file: string, maxBytes = MAX_HASH_BYTES): string | undefined {
  let fd: number | undefined;
  try {
    const real = realpathSync(file);
    const inside = path.relative(realRoot, real);
    if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) return undefined;
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    const info = fstatSync(fd);
    if (!info.isFile() || info.size > maxBytes || !openedInside(realRoot, fd)) return undefined;
    const hash = createHash('sha256');
    const chunk = Buffer.allocUnsafe(Math.min(HASH_CHUNK_BYTES, Math.max(1, maxBytes + 1)));
    let total = 0;
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0) break;
      total += read;
      if (total > maxBytes) return undefined;
      hash.update(chunk.subarray(0, read));
    }
    return hash.digest('hex');
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** How far a file's mtime may trail the wall clock (the kernel stamps files with a coarse clock). */
const COARSE_CLOCK_MS = 50;

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
  /** A path (or a folder above it) one of this step's own effectful calls acted on. */
  const touched = (file: string) => {
    for (const target of ledger.touched.keys())
      if (file === target || file.startsWith(`${target}/`)) return true;
    return false;
  };
  const git = async (args: string[]) =>
    facts.gitTop === undefined
      ? undefined
      : runCommand({
          argv: ['git', ...args],
          cwd: facts.root,
          timeoutMs: 30_000,
          env: { GIT_OPTIONAL_LOCKS: '0' },
          ...(options.runner ? { runner: options.runner } : {}),
        });
  let madeCommits: boolean | undefined;
  const committed = () => {
    madeCommits ??= commitsMadeByStep(ledger).length > 0;
    return madeCommits;
  };
  // One `git ls-files` for the whole step (a clean tracked file is the committed one).
  let trackedFiles: Promise<Set<string>> | undefined;
  const inHead = async (file: string) => {
    trackedFiles ??= git(['ls-files', '-z']).then(
      (result) => new Set(result?.exitCode === 0 ? result.stdout.split('\0').filter(Boolean) : []),
    );
    return (await trackedFiles).has(file);
  };
  const priorStates = new Map<string, string | null>();
  for (const [file, sha256] of options.priorStates ?? []) {
    const rel = facts.relative(file);
    if (rel !== undefined && !priorStates.has(rel)) priorStates.set(rel, sha256);
  }
  const status = async (file: string): Promise<PathChange> => {
    let stats: ReturnType<typeof statSync> | undefined;
    try {
      stats = statSync(facts.absolute(file));
    } catch {
      stats = undefined;
    }
    // Its content before this step's calls is known: compare contents, not clocks.
    // Only a regular file inside the workspace is hashed, in bounded chunks: a link out of it (to a
    // host file), a FIFO or device swapped in, or a file too big to hash falls to the clocks below.
    const prior = priorStates.get(file);
    if (prior !== undefined && (stats === undefined || stats.isFile())) {
      if (stats === undefined) return prior === null ? 'unchanged' : 'deleted';
      if (prior === null) return 'created';
      const now = hashInside(facts.root, facts.absolute(file));
      if (now !== undefined) return now === prior ? 'unchanged' : 'modified';
    }
    const changes = facts.gitTop !== undefined ? await facts.changes() : undefined;
    const gitKind = changes?.get(file)?.kind;
    const fresh = gitKind === 'untracked' || gitKind === 'added' || gitKind === 'renamed';
    if (stats !== undefined) {
      if (startedAt !== undefined) {
        if (stats.mtimeMs >= startedAt) {
          // Written during the step, yet git sees the committed content again and the step
          // committed nothing: the change was reverted (`git checkout -- file`, `git stash`).
          if (changes !== undefined && gitKind === undefined && !committed() && (await inHead(file)))
            return 'unchanged';
          // Born during the step is no proof it is new: an atomic save (write_file, editors,
          // `sed -i`) renames a new inode over the old file. Git (tracked and modified) or the
          // write's own result (it overwrote the file) says it was there before.
          const born =
            stats.birthtimeMs > 0 &&
            stats.birthtimeMs >= startedAt &&
            gitKind !== 'modified' &&
            !ledger.overwritten.has(file);
          return born || fresh ? 'created' : 'modified';
        }
        // The file clock is coarser than the plan's: a write by one of this step's own calls can
        // carry an mtime a few ms before its call started; a rename keeps the old mtime.
        if (
          touched(file) &&
          (stats.mtimeMs >= startedAt - COARSE_CLOCK_MS ||
            gitKind !== undefined ||
            ledger.writtenContent.get(file) === facts.read(file))
        )
          return fresh ? 'created' : 'modified';
        return 'unchanged';
      }
      if (changes !== undefined) {
        if (gitKind !== undefined) return fresh ? 'created' : 'modified';
        return touched(file) ? 'unknown' : 'unchanged';
      }
      return ledger.written.has(file) ? 'modified' : 'unknown';
    }
    if (ledger.deleted.has(file) || (touched(file) && gitKind === 'deleted')) return 'deleted';
    // Neither git nor a baseline: a missing path a write of this step created is gone now; a
    // missing command operand may never have existed (`node missing.mjs` deletes nothing).
    if (changes === undefined) return ledger.written.has(file) ? 'deleted' : 'unknown';
    if (gitKind === 'deleted') return startedAt === undefined || touched(file) ? 'deleted' : 'unknown';
    if (touched(file)) {
      const inHead = await git(['cat-file', '-e', `HEAD:${file}`]);
      if (inHead?.exitCode === 0) return 'deleted';
    }
    return 'unchanged';
  };
  const headTexts = new Map<string, Promise<string | undefined>>();
  return {
    basis,
    startedAt,
    status,
    async changed() {
      const created: string[] = [];
      const modified: string[] = [];
      const deleted: string[] = [];
      const candidates = new Set<string>([
        ...ledger.written.keys(),
        ...ledger.deleted.keys(),
        ...ledger.touched.keys(),
      ]);
      const changes = facts.gitTop !== undefined ? await facts.changes() : undefined;
      for (const file of changes?.keys() ?? []) candidates.add(file);
      // A command's effects are not in the ledger (and a workspace need not be a git repository):
      // by file times, any file written since the step started is a candidate. A stat-only walk.
      if (startedAt !== undefined) {
        const { files } = snapshotWorkspace(facts.root, { maxHashBytes: -1 });
        for (const [file, state] of files)
          if (state.mtimeMs >= startedAt - COARSE_CLOCK_MS) candidates.add(file);
      }
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
    installedChanged: () => undefined,
    after: () => undefined,
    // Without a baseline, the last commit's version stands in for "before the step".
    textBefore(file) {
      let text = headTexts.get(file);
      if (text === undefined) {
        text = git(['show', `HEAD:${file}`]).then((result) =>
          result?.exitCode === 0 ? result.stdout : undefined,
        );
        headTexts.set(file, text);
      }
      return text;
    },
  };
}

function baselineChanges(baseline: WorkspaceSnapshot): StepChanges {
  let diff: WorkspaceChanges | undefined;
  const current = () => {
    diff ??= diffSnapshots(baseline, snapshotAfter(baseline));
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
    installedChanged: () => current().installedChanged,
    textBefore: async (file) => baseline.texts.get(file),
    after: () => current().after,
  };
}
