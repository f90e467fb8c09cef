import type { CommandResult } from './run-command';
import type { GitRefs } from './workspace-snapshot';

/** A git tag a step was asked to create or delete, or says it created or deleted. */
export interface TagAction {
  action: 'create' | 'delete';
  /** The tag's name (`v1.2.0`); undefined when the text names none ("tag the release"). */
  name?: string;
  /**
   * The commit it must point at, as named (`HEAD~1`, `3f2a9c1`); `HEAD` for "the latest commit"
   * (the step's starting HEAD or its HEAD now); undefined: any.
   */
  target?: string;
  /** An annotated tag was asked ("an annotated tag", "with the message …"): a lightweight one is not it. */
  annotated?: true;
}

/** Words that ask for an annotated tag object, not a lightweight ref. */
export function asksAnnotatedTag(text: string): boolean {
  return /\bannotated\b|\bsigned\s+tag\b|\btag\b(?:[^.;\n]|\.(?=\S))*\bwith\s+(?:the\s+|a\s+)?(?:message|annotation)\b/i.test(
    text,
  );
}

/** A tag name as people write them: a version (`v1.2.0`, `1.2`), or any name quoted. */
const NAME =
  '(?:[`\'"「]([\\w./+-]+)[`\'"」]|\\b(v?\\d+(?:\\.\\d+)*(?:[-+][\\w.]+)?|[A-Za-z][\\w+-]*[-/._]v?\\d[\\w.+-]*)(?![\\w/]))';

/**
 * The tag's name in `text`: after "tag", "as", "named", "called" or 标签 / タグ; with `loose`
 * (a CJK phrase, where the name may come first: "v1.3.0 というタグ"), anywhere.
 */
export function tagNameIn(text: string, options: { loose?: boolean } = {}): string | undefined {
  const match =
    new RegExp(String.raw`(?:\b(?:as|named|called|tag)\s+|(?:标签|標籤|タグ)\s*)${NAME}`, 'iu').exec(text) ??
    (options.loose ? new RegExp(NAME, 'u').exec(text) : null);
  const name = match?.[1] ?? match?.[2];
  return name?.replace(/[.,]+$/, '');
}

/** A revision a tag is asked to point at: `HEAD~1`, a hash, "the previous commit". */
export function tagTargetIn(text: string): string | undefined {
  const named =
    /(?:\b(?:on|at|to|for)\s+(?:the\s+)?(?:commit\s+)?|\bcommit\s+|\(\s*|\btag(?:ged)?\s+)[`'"]?(HEAD(?:[~^]\d*)+|[0-9a-f]{7,64})\b/i.exec(
      text,
    )?.[1];
  if (named !== undefined) return named;
  if (
    /\b(?:previous|prior|parent)\s+commit\b|\bcommit\s+before\s+(?:the\s+)?(?:last|latest)\b|上一个提交|上一個提交|直前のコミット/iu.test(
      text,
    )
  )
    return 'HEAD~1';
  if (
    /\b(?:last|latest|current|most\s+recent|newest|head)\s+commit\b/i.test(text) ||
    /\bHEAD\b(?![~^])/.test(text)
  )
    return 'HEAD';
  return undefined;
}

/** What {@link checkTag} reads: the refs at the step's start and now, and git. */
export interface TagCheckEnvironment {
  refs: { before: GitRefs | undefined; after: GitRefs | undefined };
  git?: (args: readonly string[]) => Promise<CommandResult>;
  /** Whether a `git tag` command of the step exited 0 (the evidence when no baseline is known). */
  tagCommandPassed: boolean;
}

/**
 * Checks a tag action against the real repository (its `refs/tags` and `packed-refs`, read when
 * the step started and now): a created tag must exist and be new or moved since the step started,
 * on the named commit when one was named (annotated tags peeled; `HEAD…` taken as the step's
 * starting HEAD); a deleted one must be gone, and have been there.
 */
export async function checkTag(
  tag: TagAction,
  env: TagCheckEnvironment,
): Promise<{ status: 'pass' | 'fail' | 'error'; message: string }> {
  const { before, after } = env.refs;
  if (after === undefined) return { status: 'fail', message: 'the workspace is not a git repository' };
  const tagsOf = (refs: GitRefs | undefined) =>
    new Map([...(refs?.refs ?? [])].filter(([ref]) => ref.startsWith('refs/tags/')));
  const was = tagsOf(before);
  const now = tagsOf(after);
  if (tag.action === 'delete') {
    if (tag.name === undefined) {
      const gone = [...was.keys()].filter((ref) => !now.has(ref));
      if (before === undefined)
        return env.tagCommandPassed
          ? { status: 'pass', message: 'a `git tag` command exited 0' }
          : { status: 'fail', message: 'no tag was deleted' };
      return gone.length > 0
        ? { status: 'pass', message: `${gone.map((ref) => ref.slice(10)).join(', ')} deleted` }
        : { status: 'fail', message: 'no tag was deleted since the step started' };
    }
    const ref = `refs/tags/${tag.name}`;
    if (now.has(ref)) return { status: 'fail', message: `tag ${tag.name} still exists` };
    if (before !== undefined && !was.has(ref))
      return { status: 'fail', message: `there was no tag ${tag.name} to delete when the step started` };
    return { status: 'pass', message: `tag ${tag.name} is gone` };
  }
  let ref: string | undefined;
  if (tag.name !== undefined) {
    ref = `refs/tags/${tag.name}`;
    const id = now.get(ref);
    if (id === undefined) return { status: 'fail', message: `there is no tag ${tag.name}` };
    if (before !== undefined && was.get(ref) === id)
      return { status: 'fail', message: `tag ${tag.name} already existed, unchanged, when the step started` };
  } else {
    const made = [...now].filter(([name, id]) => was.get(name) !== id).map(([name]) => name);
    if (before === undefined) {
      if (!env.tagCommandPassed || now.size === 0) return { status: 'fail', message: 'no tag was created' };
      return { status: 'pass', message: 'a `git tag` command exited 0' };
    }
    if (made.length === 0) return { status: 'fail', message: 'no tag was created since the step started' };
    if (tag.target === undefined || made.length > 1)
      return { status: 'pass', message: `${made.map((name) => name.slice(10)).join(', ')} created` };
    ref = made[0];
  }
  if (tag.annotated && ref !== undefined) {
    if (env.git === undefined)
      return { status: 'error', message: `whether tag ${ref.slice(10)} is annotated could not be read` };
    const kind = await env.git(['cat-file', '-t', ref]);
    if (kind.exitCode !== 0 || kind.stdout.trim() !== 'tag')
      return {
        status: 'fail',
        message: `tag ${ref.slice(10)} is a lightweight tag (a ${kind.stdout.trim() || 'missing'} ref), not the annotated tag asked`,
      };
  }
  if (tag.target === undefined || ref === undefined)
    return { status: 'pass', message: `tag ${tag.name} is at ${now.get(ref ?? '')?.slice(0, 12)}` };
  if (env.git === undefined)
    return { status: 'error', message: `which commit tag ${ref.slice(10)} is on could not be read` };
  // `HEAD~1` means the step's starting HEAD's parent, wherever HEAD went since.
  const target =
    before?.head !== undefined && /^HEAD(?![\w-])/.test(tag.target)
      ? before.head + tag.target.slice(4)
      : tag.target;
  const [tagged, wanted] = await Promise.all([
    env.git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]),
    env.git(['rev-parse', '--verify', '--quiet', `${target}^{commit}`]),
  ]);
  if (tagged.exitCode !== 0)
    return { status: 'fail', message: `tag ${ref.slice(10)} does not point at a commit` };
  if (wanted.exitCode !== 0) return { status: 'fail', message: `there is no commit ${tag.target}` };
  const on = tagged.stdout.trim();
  // "The latest commit": HEAD when the step started, or HEAD now (a step that commits, then tags).
  const current =
    tag.target === 'HEAD'
      ? (await env.git(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'])).stdout.trim()
      : '';
  return on === wanted.stdout.trim() || (current !== '' && on === current)
    ? { status: 'pass', message: `tag ${ref.slice(10)} is on ${tag.target} (${on.slice(0, 12)})` }
    : {
        status: 'fail',
        message: `tag ${ref.slice(10)} is on ${on.slice(0, 12)}, not on ${tag.target} (${wanted.stdout.trim().slice(0, 12)})`,
      };
}

/** Whether a ledger command is a successful `git tag` (create or delete). */
export function isTagCommand(argv: readonly string[]): boolean {
  return argv[0] === 'git' && argv.slice(1).find((arg) => !arg.startsWith('-')) === 'tag';
}
