import type { CommandResult } from './run-command';
import type { GitRefs } from './workspace-snapshot';

/**
 * Git operations a description asks for that leave no file behind to check — merge a branch,
 * revert a commit, stash changes — judged against the repository itself: the merged branch must be
 * an ancestor of HEAD (copying its files is no merge), the reverted commit's change must be undone
 * (reverting another commit, or starting a revert and aborting it, is no revert), and a stash must
 * exist that holds the asked files (discarding the changes is no stash).
 */

/** One git operation a description asks for. */
export type AskedGitOperation =
  | { kind: 'merge'; branch: string; into?: string }
  | { kind: 'revert'; subject?: string; hash?: string; last?: true }
  | { kind: 'stash'; files: string[] };

const NAME = '[`\'"]?([\\w][\\w./-]*)[`\'"]?';
const MERGE = new RegExp(
  `\\bmerge\\s+(?:the\\s+)?(?:(?:git\\s+)?branch\\s+)?${NAME}(?:\\s+branch)?(?:\\s+(?:into|onto|to)\\s+(?:the\\s+)?(?:branch\\s+)?${NAME})?`,
  'i',
);
const REVERT =
  /\brevert\s+(?:the\s+)?(?:git\s+)?commit\s+(?:[`'"]([^`'"\n]{1,120})[`'"]|([0-9a-f]{7,40})\b)|\brevert\s+(?:the\s+)?(?:last|latest|most\s+recent|newest|head)\s+commit\b|\brevert\s+[`'"]([^`'"\n]{1,120})[`'"]/i;
const STASH =
  /\bstash\s+(?:away\s+)?(?:the\s+|my\s+|all\s+|any\s+|your\s+)?(?:(?:uncommitted|local|current|pending|working|unstaged|staged)\s+)*(?:changes|work|modifications|edits)\b/i;
/** Paths named in the sentence of a stash. */
const PATH = /(?:^|[\s`'"(])((?:[\w.-]+\/)*[\w.-]+\.[A-Za-z0-9]{1,8})(?=$|[\s`'",;:)])/g;

/** The git operations the description asks for (merge, revert, stash). */
export function askedGitOperations(description: string): AskedGitOperation[] {
  const found: AskedGitOperation[] = [];
  for (const sentence of description.split(/[.;!?\n](?:\s|$)/)) {
    const merge = MERGE.exec(sentence);
    if (merge?.[1] !== undefined)
      found.push({ kind: 'merge', branch: merge[1], ...(merge[2] !== undefined ? { into: merge[2] } : {}) });
    const revert = REVERT.exec(sentence);
    if (revert !== null) {
      const subject = revert[1] ?? revert[3];
      if (subject !== undefined) found.push({ kind: 'revert', subject });
      else if (revert[2] !== undefined) found.push({ kind: 'revert', hash: revert[2] });
      else found.push({ kind: 'revert', last: true });
    }
    if (STASH.test(sentence))
      found.push({ kind: 'stash', files: [...sentence.matchAll(PATH)].map((match) => match[1] ?? '') });
  }
  return found;
}

/** What {@link checkGitOperation} reads: the refs at the step's start and now, and git. */
export interface GitOperationEnvironment {
  refs: { before: GitRefs | undefined; after: GitRefs | undefined };
  git: (args: readonly string[]) => Promise<CommandResult>;
}

/** A verdict on one operation; `undefined` when the repository cannot tell (no finding). */
export type GitOperationCheck = { status: 'pass' | 'fail'; message: string } | undefined;

const ok = async (env: GitOperationEnvironment, args: string[]) => (await env.git(args)).exitCode === 0;
const out = async (env: GitOperationEnvironment, args: string[]) => {
  const result = await env.git(args);
  return result.exitCode === 0 ? result.stdout.trim() : undefined;
};

/**
 * Checks one asked operation against the repository. A merge: the branch (a name the repository
 * has; "merge the two functions" names none) must be an ancestor of the target branch or HEAD. A
 * revert: a commit since the step started says it reverts the asked commit, or every file that
 * commit changed (and no later commit did) is back to its content before it. A stash: a stash
 * exists, and holds the files the sentence names.
 */
export async function checkGitOperation(
  operation: AskedGitOperation,
  env: GitOperationEnvironment,
): Promise<GitOperationCheck> {
  const { before, after } = env.refs;
  if (after === undefined) return undefined;
  if (operation.kind === 'merge') {
    const known = (refs: GitRefs | undefined) =>
      [...(refs?.refs.keys() ?? [])].some(
        (ref) => ref === `refs/heads/${operation.branch}` || ref.endsWith(`/${operation.branch}`),
      );
    if (!known(before) && !known(after)) return undefined;
    const into =
      operation.into !== undefined && after.refs.has(`refs/heads/${operation.into}`)
        ? `refs/heads/${operation.into}`
        : 'HEAD';
    return (await ok(env, ['merge-base', '--is-ancestor', operation.branch, into]))
      ? { status: 'pass', message: `${operation.branch} is merged into ${operation.into ?? 'HEAD'}` }
      : {
          status: 'fail',
          message: `${operation.branch} is not merged into ${operation.into ?? 'HEAD'} (its commits are not ancestors of it)`,
        };
  }
  if (operation.kind === 'stash') {
    const stash = await out(env, ['rev-parse', '--verify', '--quiet', 'refs/stash']);
    if (stash === undefined || stash === '') return { status: 'fail', message: 'there is no stash' };
    if (operation.files.length === 0)
      return { status: 'pass', message: `a stash exists (${stash.slice(0, 12)})` };
    const held = (await out(env, ['stash', 'show', '--name-only', '--include-untracked', 'stash@{0}'])) ?? '';
    const missing = operation.files.filter((file) => !held.split('\n').some((line) => line.trim() === file));
    return missing.length === 0
      ? { status: 'pass', message: `the newest stash holds ${operation.files.join(', ')}` }
      : { status: 'fail', message: `the newest stash does not hold ${missing.join(', ')}` };
  }
  // A revert: which commit was asked, as of the step's start.
  const start = before?.head ?? after.head;
  if (start === undefined) return undefined;
  let target: string | undefined;
  if (operation.hash !== undefined)
    target = await out(env, ['rev-parse', '--verify', '--quiet', `${operation.hash}^{commit}`]);
  else if (operation.last) target = start;
  else if (operation.subject !== undefined) {
    const log = (await out(env, ['log', '--format=%H%x09%s', '-n', '500', start])) ?? '';
    const wanted = operation.subject.trim().toLowerCase();
    const lines = log.split('\n').map((line) => line.split('\t') as [string, string?]);
    target =
      lines.find(([, subject]) => subject?.trim().toLowerCase() === wanted)?.[0] ??
      lines.find(([, subject]) => subject?.toLowerCase().includes(wanted))?.[0];
  }
  if (target === undefined || target === '') return undefined;
  const short = target.slice(0, 12);
  if (!(await ok(env, ['rev-parse', '--verify', '--quiet', `${target}^`]))) return undefined;
  if (after.head !== undefined && after.head !== start) {
    const bodies = (await out(env, ['log', '--format=%B', `${start}..${after.head}`])) ?? '';
    if (new RegExp(`This reverts commit ${target}`).test(bodies))
      return { status: 'pass', message: `a commit of the step reverts ${short}` };
  }
  const files = ((await out(env, ['diff', '--name-only', `${target}^`, target])) ?? '')
    .split('\n')
    .filter((file) => file !== '');
  const comparable: string[] = [];
  for (const file of files)
    if (((await out(env, ['log', '--format=%H', `${target}..${start}`, '--', file])) ?? 'x') === '')
      comparable.push(file);
  if (comparable.length === 0) return undefined;
  const kept: string[] = [];
  for (const file of comparable)
    if (!(await ok(env, ['diff', '--quiet', `${target}^`, '--', file]))) kept.push(file);
  return kept.length === 0
    ? { status: 'pass', message: `the change of ${short} is undone (${comparable.slice(0, 3).join(', ')})` }
    : {
        status: 'fail',
        message: `the change of ${short} is still there (${kept.slice(0, 3).join(', ')} differ from before it)`,
      };
}
