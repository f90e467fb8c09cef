import { structuredPatch } from 'diff';
import type { WorkspaceSnapshot } from './snapshot-workspace';

/** One hunk of a unified diff; each line starts with ' ', '-' or '+'. */
export interface DiffHunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

/** How one file changed between two snapshots. */
export interface FileChange {
  path: string;
  change: 'added' | 'modified' | 'deleted';
  /** Text hunks; `null` when one side has no text (binary, too large) or the diff is too big. */
  hunks: DiffHunk[] | null;
  additions: number;
  deletions: number;
  /** Why there are no hunks. */
  withoutDiff?: 'binary' | 'too-large';
}

/** Edits beyond this many lines are reported without hunks (the diff would be unreadable anyway). */
const maxEditLength = 4000;

/** The files that differ between two snapshots, sorted by path. */
export function diffSnapshots(before: WorkspaceSnapshot, after: WorkspaceSnapshot): FileChange[] {
  const paths = new Set([...before.files.keys(), ...after.files.keys()]);
  const changes: FileChange[] = [];
  for (const path of [...paths].sort()) {
    const old = before.files.get(path);
    const next = after.files.get(path);
    if (old && next && old.hash === next.hash) continue;
    const change: FileChange['change'] = !old ? 'added' : !next ? 'deleted' : 'modified';
    const oldText = old ? old.text : '';
    const newText = next ? next.text : '';
    if (oldText === null || newText === null) {
      const reason = old?.withoutText === 'binary' || next?.withoutText === 'binary' ? 'binary' : 'too-large';
      changes.push({ path, change, hunks: null, additions: 0, deletions: 0, withoutDiff: reason });
      continue;
    }
    const patch = structuredPatch(path, path, oldText, newText, undefined, undefined, {
      context: 3,
      maxEditLength,
    });
    if (!patch) {
      changes.push({ path, change, hunks: null, additions: 0, deletions: 0, withoutDiff: 'too-large' });
      continue;
    }
    let additions = 0;
    let deletions = 0;
    const hunks = patch.hunks.map((hunk) => {
      for (const line of hunk.lines) {
        if (line.startsWith('+')) additions += 1;
        else if (line.startsWith('-')) deletions += 1;
      }
      return {
        oldStart: hunk.oldStart,
        oldLines: hunk.oldLines,
        newStart: hunk.newStart,
        newLines: hunk.newLines,
        lines: hunk.lines,
      };
    });
    changes.push({ path, change, hunks, additions, deletions });
  }
  return changes;
}
