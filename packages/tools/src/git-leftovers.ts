import { rm } from 'node:fs/promises';
import path from 'node:path';
import { gitControlEntries } from './git-control-fingerprint';
import { gitDirectoryHazards } from './git-directory-hazards';
import {
  gitPointerFiles,
  refuseGitDirectory,
  refusePointerFiles,
  refuseSequencerFiles,
} from './nested-repositories';

/**
 * After a sandboxed command, what it left in the git directory `gitDir` (a real path it could
 * write) for git run later — the user's own, outside the sandbox, or the next command's — is moved
 * aside (`<name>.refused-by-closedloop`) or, when it would hold git, removed; and returned as
 * `path (why)` relative to `base`:
 * - of the control entries it `changed` (see `gitControlEntries`): a configuration with keys that
 *   run programs or a `core.worktree` outside `confines`, hooks that are not samples, a paused
 *   rebase's steps that run a program, an `alternates`, `commondir` or `grafts` that sends git
 *   outside `confines`;
 * - whatever its state before: an entry that would hold git until a timeout (a FIFO, a link to a
 *   device, a file too big to read; see `gitDirectoryHazards`).
 */
export async function refuseGitLeftovers(
  gitDir: string,
  base: string,
  changed: ReadonlySet<string>,
  confines: readonly string[],
): Promise<string[]> {
  const refused: string[] = [];
  for (const hazard of await gitDirectoryHazards(gitDir)) {
    const target = path.join(gitDir, hazard.entry);
    // Removed, not renamed: under `refs/` any name is a ref git reads (`git log --all`), and a
    // FIFO or a link holds nothing to keep.
    await rm(target, { force: true });
    refused.push(`${path.relative(base, target)} (${hazard.why}: git would wait on it; removed)`);
  }
  const files = ['config', 'config.worktree'].filter((name) => changed.has(name));
  refused.push(...(await refuseGitDirectory(gitDir, base, { files, hooks: changed.has('hooks'), confines })));
  const steps = gitControlEntries.filter(
    (name) => /^(?:rebase-merge|sequencer)\//.test(name) && changed.has(name),
  );
  refused.push(...(await refuseSequencerFiles(gitDir, base, steps)));
  const pointers = gitPointerFiles.filter((name) => changed.has(name));
  refused.push(...(await refusePointerFiles(gitDir, base, pointers, confines)));
  return refused;
}
