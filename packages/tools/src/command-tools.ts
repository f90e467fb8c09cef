import path from 'node:path';
import type { Redactor } from '@closedloop/model';
import { z } from 'zod';
import type { CommandPolicy } from './command-policy';
import { type CommandRunner, createCommandRunner } from './create-command-runner';
import { defineTool } from './define-tool';
import {
  findGitTop,
  findHiddenChanges,
  formatHiddenDiff,
  type GitRead,
  type HiddenBy,
  type HiddenChange,
  replaceBinarySections,
  textShownAsBinary,
} from './hidden-changes';
import { inspectInside } from './inspect-inside';
import { resolveInWorkspace, workspaceRelative } from './resolve-in-workspace';
import type { ResourceLimits } from './resource-limits';
import type { ProcessResult } from './run-process';
import type { SandboxMode, SandboxOptions } from './sandbox';
import type { AnyTool } from './tool';

/** Options the command and git tools share. */
export interface CommandToolsOptions {
  root: string;
  /** Which programs may run and what environment they get. */
  commands?: CommandPolicy;
  /** The bubblewrap sandbox: `'auto'` (default), `'required'`, `'off'`, or its options. */
  sandbox?: SandboxMode | SandboxOptions;
  /** Redaction of command output at the source (see `CommandRunnerOptions.redactor`). Default on. */
  redactor?: Redactor | false;
  /** What each command may use (see `CommandRunnerOptions.limits`). Default the runner's defaults. */
  limits?: ResourceLimits | false;
  /**
   * A runner to share (with the verifier, say). When given, `commands`, `sandbox`, `limits` and
   * `maxOutputBytes` are its business and are ignored here.
   */
  runner?: CommandRunner;
  /** Cap per stream (stdout, stderr); head and tail are kept. Default 64 KiB. */
  maxOutputBytes?: number;
  /** Timeout when the call gives none. Default 120 000 ms. */
  defaultTimeoutMs?: number;
  /** Upper bound for a call's `timeout_ms`. Default 600 000 ms. */
  maxTimeoutMs?: number;
}

/** What `run_command` returns. A non-zero exit is a result, not an error: the verifier decides. */
export interface CommandResult extends ProcessResult {
  argv: string[];
  /** Relative to the workspace root. */
  cwd: string;
  /** Whether it ran inside the bubblewrap sandbox. */
  sandboxed: boolean;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Plain-text rendering of a command result for the model. */
export function formatCommandResult(result: CommandResult): string {
  const status = result.timedOut
    ? `timed out after ${result.durationMs} ms (killed)`
    : result.signal
      ? `killed by ${result.signal}`
      : `exit code ${result.exitCode}`;
  const lines = [
    `$ ${result.argv.map(quote).join(' ')}`,
    `(cwd: ${result.cwd}, ${status}, ${result.durationMs} ms)`,
  ];
  if (result.stdout !== '') lines.push('--- stdout ---', result.stdout.replace(/\n$/, ''));
  if (result.stderr !== '') lines.push('--- stderr ---', result.stderr.replace(/\n$/, ''));
  if (result.stdout === '' && result.stderr === '') lines.push('(no output)');
  if (result.truncated) lines.push('(output was truncated)');
  return lines.join('\n');
}

/** Builds `run_command`, `git_status` and `git_diff` for `root`. */
export function commandTools(options: CommandToolsOptions): AnyTool[] {
  const { root } = options;
  const runner =
    options.runner ??
    createCommandRunner({
      root,
      ...(options.commands !== undefined ? { policy: options.commands } : {}),
      ...(options.sandbox !== undefined ? { sandbox: options.sandbox } : {}),
      ...(options.maxOutputBytes !== undefined ? { maxOutputBytes: options.maxOutputBytes } : {}),
      ...(options.redactor !== undefined ? { redactor: options.redactor } : {}),
      ...(options.limits !== undefined ? { limits: options.limits } : {}),
    });
  const defaultTimeoutMs = options.defaultTimeoutMs ?? 120_000;
  const maxTimeoutMs = options.maxTimeoutMs ?? 600_000;

  const runCommand = defineTool({
    name: 'run_command',
    description: [
      'Run a program in the workspace and get its exit code, stdout and stderr.',
      'argv is the program and its arguments as an array, e.g. ["npm", "test"] or ["git", "log", "-n", "5"].',
      'There is no shell: pipes, redirects, globs, environment assignments and && do not work.',
      `Allowed programs: ${[...runner.policy.allow].join(', ')}. Write options in full (no abbreviations).`,
      'A non-zero exit code is reported, not treated as a tool error.',
    ].join(' '),
    input: z.object({
      argv: z.array(z.string()).min(1).describe('Program and arguments, e.g. ["npx", "vitest", "run"]'),
      cwd: z.string().optional().describe('Folder relative to the workspace root (default: the root)'),
      timeout_ms: z
        .number()
        .int()
        .positive()
        .max(maxTimeoutMs)
        .optional()
        .describe('Kill the command after this long'),
    }),
    destructive: true,
    toText: formatCommandResult,
    async execute(input, { signal, onProcess, processTag }): Promise<CommandResult> {
      const result = await runner.run(input.argv, {
        cwd: input.cwd ?? '.',
        timeoutMs: input.timeout_ms ?? defaultTimeoutMs,
        signal,
        ...(onProcess ? { onSpawn: (pid: number) => onProcess({ pid }) } : {}),
        ...(processTag !== undefined ? { processTag } : {}),
      });
      const { output: _interleaved, ...rest } = result;
      return rest;
    },
  });

  /** Runs git through the runner (hardened); throws with stderr on a non-zero exit. */
  const git = async (args: string[], signal: AbortSignal): Promise<string> => {
    const result = await runner.run(['git', '--no-pager', ...args], {
      timeoutMs: defaultTimeoutMs,
      maxOutputBytes: (options.maxOutputBytes ?? 64 * 1024) * 4,
      signal,
    });
    if (result.timedOut) throw new Error(`git ${args[0]} timed out.`);
    if (result.exitCode !== 0) {
      const message = result.stderr.trim() || `exit code ${result.exitCode}`;
      if (/not a git repository/i.test(message)) {
        throw new Error('The workspace is not a git repository (run_command ["git", "init"] to create one).');
      }
      throw new Error(`git ${args[0]} failed: ${message}`);
    }
    if (result.truncated) return `${result.stdout}\n(output was truncated)`;
    return result.stdout;
  };

  /** git for {@link findHiddenChanges}: the exit code is the caller's to judge. */
  const gitRead =
    (signal: AbortSignal): GitRead =>
    async (args, stdin) => {
      const result = await runner.run(['git', '--no-pager', ...args], {
        timeoutMs: defaultTimeoutMs,
        maxOutputBytes: 16 * 1024 * 1024,
        signal,
        ...(stdin !== undefined ? { stdin } : {}),
      });
      return {
        exitCode: result.timedOut || result.truncated ? null : result.exitCode,
        stdout: result.stdout,
      };
    };

  /**
   * The changes under the workspace git does not show (index bits, ignore rules not committed),
   * with the repository's top and the workspace's folder in it (`''` at the top).
   */
  const hiddenChanges = async (
    signal: AbortSignal,
  ): Promise<{ hidden: HiddenChange[]; gitTop: string | undefined; prefix: string }> => {
    const realRoot = await resolveInWorkspace(root, '.');
    const gitTop = findGitTop(realRoot);
    if (gitTop === undefined) return { hidden: [], gitTop, prefix: '' };
    const prefix = path.relative(gitTop, realRoot).split(path.sep).join('/');
    const hidden = (await findHiddenChanges(gitTop, gitRead(signal))).filter(
      (change) => prefix === '' || change.path.startsWith(`${prefix}/`),
    );
    return { hidden, gitTop, prefix };
  };

  const gitStatus = defineTool({
    name: 'git_status',
    description:
      'Show the git status of the workspace: branch, upstream, ahead/behind counts and changed files (index and work-tree status letters as in `git status --porcelain`).',
    input: z.object({}),
    idempotent: true,
    async execute(_input, { signal }) {
      const out = await git(
        ['status', '--porcelain=v1', '-z', '--branch', '--untracked-files=all', '--ignore-submodules=none'],
        signal,
      );
      const status = parseGitStatus(out);
      const { hidden } = await hiddenChanges(signal);
      const listed = new Set(status.files.map((file) => file.path));
      for (const change of hidden) {
        if (listed.has(change.path)) continue;
        const letter = change.kind === 'deleted' ? 'D' : change.kind === 'untracked' ? '?' : 'M';
        status.files.push({
          path: change.path,
          index: change.kind === 'untracked' ? '?' : ' ',
          workTree: letter,
          kind: change.kind === 'other' ? 'type-changed' : change.kind,
          hiddenBy: change.hiddenBy,
          ...(change.rule !== undefined ? { rule: change.rule } : {}),
        });
      }
      status.clean = status.files.length === 0;
      return status;
    },
  });

  const gitDiff = defineTool({
    name: 'git_diff',
    description:
      'Show changes in the workspace as a unified diff (or a --stat summary). By default the work tree against the index; staged=true for the index against HEAD; ref to compare the work tree with a commit.',
    input: z.object({
      paths: z.array(z.string().min(1)).optional().describe('Limit to these paths (relative to the root)'),
      staged: z.boolean().default(false).describe('Diff the index (staged changes) against HEAD'),
      stat: z.boolean().default(false).describe('Only a per-file summary of changed lines'),
      ref: z
        .string()
        .regex(/^[A-Za-z0-9_./~^@{}-]+$/, 'a commit, branch or tag name')
        .refine((ref) => !ref.startsWith('-'), 'must not start with "-"')
        .optional()
        .describe('Compare with this commit, branch or tag (e.g. HEAD~1)'),
    }),
    idempotent: true,
    async execute(input, { signal }) {
      const realRoot = await resolveInWorkspace(root, '.');
      const paths: string[] = [];
      for (const userPath of input.paths ?? []) {
        paths.push(workspaceRelative(realRoot, await resolveInWorkspace(root, userPath)));
      }
      const args = ['diff', '--no-ext-diff', '--no-textconv', '--no-color', '--ignore-submodules=none'];
      if (input.staged) args.push('--cached');
      if (input.stat) args.push('--stat');
      if (input.ref !== undefined) args.push(input.ref);
      let out = await git([...args, '--', ...paths], signal);
      const { hidden, gitTop, prefix } = await hiddenChanges(signal);
      if (gitTop !== undefined && !input.stat) {
        // A text file an attribute marks binary (`-diff`, `binary`: a command can write them).
        const asText = textShownAsBinary(out, gitTop).filter(
          (file) => prefix === '' || file.startsWith(`${prefix}/`),
        );
        if (asText.length > 0) {
          const text = await git(
            [...args, '--text', '--', ...asText.map((file) => path.join(gitTop, file))],
            signal,
          );
          out = replaceBinarySections(out, text, asText);
        }
      }
      // Only the work tree hides index-bit changes: the staged view (index against HEAD) is whole.
      if (!input.staged && gitTop !== undefined) {
        const wanted = (repoPath: string) =>
          paths.length === 0 ||
          paths.some((item) => {
            const full = prefix === '' ? item : item === '.' ? prefix : `${prefix}/${item}`;
            return repoPath === full || repoPath.startsWith(`${full}/`) || full === '.';
          });
        for (const change of hidden) {
          if (change.hiddenBy === 'ignore-rule' || !wanted(change.path)) continue;
          if (input.stat) {
            out += ` ${change.path} | ${change.kind} (not shown by git: the index's ${change.hiddenBy} bit hides it)\n`;
            continue;
          }
          const before =
            change.oid === undefined ? undefined : await gitRead(signal)(['cat-file', 'blob', change.oid]);
          const now = inspectInside(gitTop, path.join(gitTop, change.path), 2 * 1024 * 1024);
          out += formatHiddenDiff({
            path: change.path,
            hiddenBy: change.hiddenBy,
            before: before?.exitCode === 0 ? before.stdout : undefined,
            after: now.type === 'file' ? now.content.toString('utf8') : undefined,
          });
        }
      }
      return out === '' ? '(no changes)' : out;
    },
  });

  return [runCommand, gitStatus, gitDiff];
}

/** One changed path in {@link GitStatus}. */
export interface GitStatusEntry {
  path: string;
  /** The path before a rename or copy. */
  originalPath?: string;
  /** Index status letter (`M`, `A`, `D`, `R`, `C`, `U`, `?`, `!`, or ` `). */
  index: string;
  /** Work-tree status letter. */
  workTree: string;
  kind:
    | 'modified'
    | 'added'
    | 'deleted'
    | 'renamed'
    | 'copied'
    | 'untracked'
    | 'ignored'
    | 'conflicted'
    | 'type-changed';
  /**
   * Set when git's own status does not show this change (see `HiddenBy`): the index's
   * `assume-unchanged` / `skip-worktree` bit, or an ignore rule that is not committed.
   */
  hiddenBy?: HiddenBy;
  /** The ignore rule that hides it, `<source>:<line>:<pattern>` (`hiddenBy: 'ignore-rule'`). */
  rule?: string;
}

/** What `git_status` returns. */
export interface GitStatus {
  /** `null` on a detached HEAD. */
  branch: string | null;
  upstream: string | null;
  ahead: number;
  behind: number;
  /** True when there is no commit yet. */
  noCommits: boolean;
  clean: boolean;
  files: GitStatusEntry[];
}

function kindOf(index: string, workTree: string): GitStatusEntry['kind'] {
  const pair = index + workTree;
  if (pair === '??') return 'untracked';
  if (pair === '!!') return 'ignored';
  if (index === 'U' || workTree === 'U' || pair === 'AA' || pair === 'DD') return 'conflicted';
  if (index === 'R' || workTree === 'R') return 'renamed';
  if (index === 'C' || workTree === 'C') return 'copied';
  if (index === 'D' || workTree === 'D') return 'deleted';
  if (index === 'A') return 'added';
  if (index === 'T' || workTree === 'T') return 'type-changed';
  return 'modified';
}

/** Parses `git status --porcelain=v1 -z --branch` output. */
export function parseGitStatus(output: string): GitStatus {
  const records = output.split('\0');
  const status: GitStatus = {
    branch: null,
    upstream: null,
    ahead: 0,
    behind: 0,
    noCommits: false,
    clean: true,
    files: [],
  };
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? '';
    if (record === '') continue;
    if (record.startsWith('## ')) {
      let header = record.slice(3);
      const counts = /\s\[(.*)\]$/.exec(header);
      if (counts) {
        header = header.slice(0, counts.index);
        status.ahead = Number(/ahead (\d+)/.exec(counts[1] ?? '')?.[1] ?? 0);
        status.behind = Number(/behind (\d+)/.exec(counts[1] ?? '')?.[1] ?? 0);
      }
      const initial = /^(?:No commits yet on|Initial commit on) (.+)$/.exec(header);
      if (initial) {
        status.noCommits = true;
        status.branch = initial[1] ?? null;
      } else if (header.startsWith('HEAD (no branch)')) {
        status.branch = null;
      } else {
        const [branch, upstream] = header.split('...');
        status.branch = branch ?? null;
        status.upstream = upstream ?? null;
      }
      continue;
    }
    const index = record[0] ?? ' ';
    const workTree = record[1] ?? ' ';
    const entry: GitStatusEntry = { path: record.slice(3), index, workTree, kind: kindOf(index, workTree) };
    if (index === 'R' || index === 'C') {
      const original = records[i + 1];
      if (original !== undefined) entry.originalPath = original;
      i++;
    }
    status.files.push(entry);
  }
  status.clean = status.files.length === 0;
  return status;
}
