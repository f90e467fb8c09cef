import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { checkTag, isTagCommand } from './asked-tags';
import { type Claim, describeClaim, type TestCountClaim } from './claim-types';
import { isTestCommand } from './command-runs';
import type { Tooling } from './detect-tooling';
import { escapeRegExp } from './escape-reg-exp';
import { canFindSymbols, findSymbol } from './find-symbol';
import { excerpt, type Finding } from './finding';
import { stubBodyAt } from './hollow-code';
import type { LedgerAnalysis } from './ledger-evidence';
import { hasLineEntry, isLineEntryFile } from './line-entries';
import { ownUnnamedEffect } from './own-effects';
import { parseTestCounts } from './parse-test-counts';
import { isMissingProgram, judgeTestRun } from './protocols/command-protocols';
import { type CommandResult, commandProblem } from './run-command';
import type { StepChanges } from './step-changes';
import { commitsMadeByStep, stepCommitInHead } from './step-commits';
import { folderInside, readInside, type WorkspaceFacts } from './workspace-facts';

/** Re-runs a command in the workspace (cached per argv for one verification). */
export type CommandRerun = (argv: readonly string[]) => Promise<CommandResult>;

/** Everything the claims check needs. */
export interface ClaimCheckEnvironment {
  facts: WorkspaceFacts;
  ledger: LedgerAnalysis;
  changes: StepChanges;
  /** Re-run claimed commands only when this allows them. */
  allowCommand(argv: readonly string[]): boolean | Promise<boolean>;
  rerun: CommandRerun;
  tooling(): Promise<Tooling>;
  /** Runs `git` read-only in the workspace. */
  git(args: readonly string[]): Promise<CommandResult>;
  /** When the verification started (epoch ms): changes after it are the verifier's own re-runs. */
  verifyStartedAt?: number;
}

/** A claim's finding. */
function claimFinding(
  claim: Claim,
  status: Finding['status'],
  message: string,
  extra: Finding['evidence'] = {},
  priority: Finding['priority'] = 'P1',
): Finding {
  return { check: 'claims', priority, status, message, evidence: { claim: claim.text, ...extra } };
}

function findByBasename(facts: WorkspaceFacts, base: string, candidates: Iterable<string>): string[] {
  const hits = new Set<string>();
  for (const candidate of candidates) {
    if (path.posix.basename(candidate) === base && facts.isFile(candidate)) hits.add(candidate);
  }
  if (hits.size > 0) return [...hits];
  let budget = 5000;
  const walk = (dir: string, rel: string, depth: number) => {
    if (depth > 6 || budget <= 0) return;
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (--budget <= 0) return;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'dist') continue;
        walk(path.join(dir, entry.name), childRel, depth + 1);
      } else if (entry.name === base) {
        hits.add(childRel);
      }
    }
  };
  walk(facts.root, '', 0);
  return [...hits];
}

const STUB =
  /\braise\s+NotImplementedError\b|\bunimplemented!|\btodo!\(|(?:\/\/|#)\s*TODO:?\s*implement|throw\s+new\s+Error\(\s*['"`](?:todo|not (?:yet )?implemented|unimplemented|stub)\b|['"`]not (?:yet )?implemented['"`]/i;

/** An ambient declaration: a signature with no implementation. */
const AMBIENT = /^\s*(?:export\s+)?(?:default\s+)?declare\s+(?:async\s+)?(?:function|const|let|var|class)\b/;

/**
 * A stub marker in the first lines of a declaration ("not implemented", `todo!()`…) or an ambient
 * `declare` at its line (not in a `.d.ts` file), if any.
 */
export function stubAt(text: string, line: number, fileName = ''): string | undefined {
  const lines = text.split('\n').slice(Math.max(0, line - 1), line + 6);
  // An ambient `declare function f(): T;` states a type and implements nothing (outside a .d.ts).
  if (!/\.d\.[cm]?ts$/.test(fileName) && AMBIENT.test(lines[0] ?? '')) return lines[0]?.trim().slice(0, 80);
  const hit = lines.find((candidate) => STUB.test(candidate));
  return hit?.trim().slice(0, 80);
}

/** Judges a test run for a claim: exit code, zero tests, claimed counts. */
export function judgeTestClaim(
  result: CommandResult,
  claim: Claim,
  tests: TestCountClaim | undefined,
  label: string,
): Finding {
  const evidence = {
    claim: claim.text,
    command: [...result.argv],
    exitCode: result.exitCode,
    output: excerpt(result.output),
  };
  const judged = judgeTestRun(result, { check: 'claims', priority: 'P1', evidence }, 'Tests');
  const counts = parseTestCounts(result.output);
  if (judged.status !== 'pass' && judged.status !== 'warn')
    return { ...judged, message: `Claim "${label}" is false: ${judged.message}` };
  if (counts !== undefined && counts.total - counts.skipped === 0) {
    return {
      ...judged,
      status: 'fail',
      message: `Claim "${label}" is false: the runner ran 0 tests (exit ${result.exitCode}).`,
    };
  }
  if (judged.status === 'warn')
    return { ...judged, status: 'fail', message: `Claim "${label}" is false: ${judged.message}` };
  if (counts === undefined) {
    return {
      ...judged,
      status: 'error',
      message: `Claim "${label}" could not be checked: \`${result.argv.join(' ')}\` exited 0 but printed no test summary, so nothing shows a test ran.`,
    };
  }
  if (tests?.count !== undefined) {
    if (counts === undefined) {
      return {
        ...judged,
        status: 'error',
        message: `Claim "${label}" could not be checked: the runner's output has no test count to compare with ${tests.count}.`,
      };
    }
    if (counts.passed < tests.count) {
      return {
        ...judged,
        status: 'fail',
        message: `Claim "${label}" is false: ${tests.count} passing test(s) claimed, the runner reports ${counts.passed} passed, ${counts.failed} failed of ${counts.total}.`,
      };
    }
  }
  return { ...judged, message: `Claim "${label}" holds: ${judged.message}` };
}

const INSTALLED_MANIFESTS = [
  'package.json',
  'requirements.txt',
  'pyproject.toml',
  'Pipfile',
  'go.mod',
  'Cargo.toml',
];
const LOCKFILES = [
  'package-lock.json',
  'pnpm-lock.yaml',
  'yarn.lock',
  'bun.lockb',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'go.sum',
  'Cargo.lock',
];

function normalisePackage(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * Finds an installed package: `node_modules/<name>` or a virtualenv's `site-packages/<name>`,
 * inside the real root `root` (a folder linked out of it installs nothing here).
 *
 * @internal Exported for tests.
 */
export function packageInstalled(root: string, name: string): string | undefined {
  const installed = folderInside(root, path.join(root, 'node_modules', name));
  if (installed !== undefined && existsSync(path.join(installed, 'package.json')))
    return `node_modules/${name}`;
  const wanted = normalisePackage(name);
  for (const venv of ['.venv', 'venv', 'env', '.env']) {
    // A virtualenv linked out of the workspace (the system's site-packages) installs nothing here.
    const lib = folderInside(root, path.join(root, venv, 'lib'));
    if (lib === undefined) continue;
    let pythons: string[] = [];
    try {
      pythons = readdirSync(lib).filter((entry) => entry.startsWith('python'));
    } catch {
      continue;
    }
    for (const python of pythons) {
      const site = folderInside(root, path.join(lib, python, 'site-packages'));
      if (site === undefined) continue;
      let entries: string[] = [];
      try {
        entries = readdirSync(site);
      } catch {
        continue;
      }
      const hit = entries.find((entry) => {
        const base = normalisePackage(
          entry.replace(/-[\d.]+[^-]*\.(?:dist|egg)-info$/, '').replace(/\.(?:dist|egg)-info$/, ''),
        );
        return base === wanted;
      });
      if (hit) return `${venv}/lib/${python}/site-packages/${hit}`;
    }
  }
  return undefined;
}

/** Lockfiles of big projects run to megabytes. */
const MANIFEST_MAX_BYTES = 32 * 1024 * 1024;

/**
 * The manifest (inside the real root `root`, not through a link out) that lists `name`.
 *
 * @internal Exported for tests.
 */
export function manifestLists(root: string, name: string): string | undefined {
  for (const manifest of INSTALLED_MANIFESTS) {
    // Not through a link out of the workspace, and never blocking on a FIFO.
    const text = readInside(root, path.join(root, manifest), MANIFEST_MAX_BYTES);
    if (text === undefined) continue;
    if (manifest === 'package.json') {
      try {
        const json = JSON.parse(text) as Record<string, Record<string, string> | undefined>;
        for (const key of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'])
          if (json[key]?.[name] !== undefined) return manifest;
      } catch {
        // not JSON: ignore
      }
      continue;
    }
    const pattern = new RegExp(
      `(?:^|[\\s"'\\[,])${escapeRegExp(name).replace(/[-_.]/g, '[-_.]')}(?:$|[\\s"'=<>~!;,\\]\\[])`,
      'im',
    );
    if (pattern.test(text)) return manifest;
  }
  return undefined;
}

/**
 * Checks every claim against the workspace, judged against the step's own change basis (its
 * baseline snapshot when there is one): files created / modified / deleted / moved by this step,
 * symbols in the parsed source of a file this step changed, commands and test suites really
 * re-run (counts parsed; 0 tests fails a test claim), commits, branches and pushes from the git
 * refs, installed packages on disk. A claim that cannot be checked (the command policy refuses
 * the re-run, no parser for the language, the runner is missing or hangs, nothing shows what
 * changed) is an `error`, never a pass.
 */
export async function checkClaims(claims: readonly Claim[], env: ClaimCheckEnvironment): Promise<Finding[]> {
  const { facts, ledger, changes } = env;
  const known = await changes.changed();
  const changedSet = new Set([...known.created, ...known.modified]);
  const candidates = new Set<string>([...changedSet, ...ledger.written.keys()]);
  for (const claim of claims) {
    const file = 'file' in claim ? claim.file : undefined;
    const rel = file !== undefined ? facts.relative(file) : undefined;
    if (rel !== undefined) candidates.add(rel);
  }
  const effectCommands = ledger.commands.filter((entry) => entry.ran && !entry.run.exploratory);

  /** Resolves a claimed path: relative to the root, else a unique file with that name. */
  const resolve = (file: string): { rel?: string; note?: string } => {
    const rel = facts.relative(file);
    if (rel === undefined) return { note: `${file} is outside the workspace` };
    if (facts.exists(rel) || file.includes('/')) return { rel };
    const hits = findByBasename(facts, path.posix.basename(rel), candidates);
    if (hits.length === 1) return { rel: hits[0] as string };
    if (hits.length > 1) {
      const changed = hits.filter((hit) => changedSet.has(hit) || ledger.written.has(hit));
      if (changed.length === 1) return { rel: changed[0] as string };
    }
    return { rel };
  };

  /** Whether this step's own calls could have produced a change of `rel`. */
  const attributed = (rel: string, kind: 'write' | 'delete'): string | undefined => {
    const direct = (kind === 'write' ? ledger.written : ledger.deleted).get(rel);
    if (direct !== undefined) return direct;
    for (const [target, callId] of kind === 'write' ? ledger.written : ledger.deleted) {
      if (rel.startsWith(`${target}/`)) return callId;
    }
    // A command or another tool names no file: it gets the credit only for a change made while
    // it ran (a parallel step's write between this step's calls is not this step's work).
    if (kind === 'write')
      return ownUnnamedEffect(
        facts.absolute(rel),
        ledger,
        env.verifyStartedAt !== undefined ? { verifyStartedAt: env.verifyStartedAt } : {},
      );
    const command = effectCommands.at(-1);
    if (command !== undefined) return command.callId;
    const other = ledger.calls.find((call) => call.kind === 'other' && call.call.status === 'success');
    return other?.call.callId;
  };

  const basis =
    changes.basis === 'baseline'
      ? 'since the step started'
      : changes.basis === 'mtime'
        ? 'since the step started (file times)'
        : changes.basis === 'git'
          ? 'in git'
          : 'in the ledger';

  const checkCommand = async (
    claim: Claim,
    argv: readonly string[],
    label: string,
    isTest: boolean,
    tests?: TestCountClaim,
  ): Promise<Finding> => {
    if (!(await env.allowCommand(argv))) {
      return claimFinding(
        claim,
        'error',
        `Claim "${label}" could not be checked: \`${argv.join(' ')}\` neither ran in this step nor is a command of the workspace, so it is not re-run (claims alone never run commands) and nothing confirms it.`,
        { command: [...argv] },
      );
    }
    const result = await env.rerun(argv);
    const evidence = { command: [...argv], exitCode: result.exitCode, output: excerpt(result.output) };
    const problem = commandProblem(result);
    if (problem !== undefined || (result.exitCode !== 0 && isMissingProgram(result))) {
      return claimFinding(
        claim,
        'error',
        `Claim "${label}" could not be checked: \`${argv.join(' ')}\` ${problem ?? `could not run its program (exit ${result.exitCode})`}.`,
        evidence,
      );
    }
    if (isTest) return judgeTestClaim(result, claim, tests, label);
    return result.exitCode === 0
      ? claimFinding(claim, 'pass', `Claim "${label}" holds: \`${argv.join(' ')}\` exits 0.`, evidence)
      : claimFinding(
          claim,
          'fail',
          `Claim "${label}" is false: \`${argv.join(' ')}\` exits ${result.exitCode}.`,
          evidence,
        );
  };

  const checkWritten = async (claim: Claim, file: string, label: string): Promise<Finding> => {
    const { rel, note } = resolve(file);
    if (rel === undefined)
      return claimFinding(claim, 'fail', `Claim "${label}" is false: ${note}.`, { file });
    if (!facts.isFile(rel))
      return claimFinding(claim, 'fail', `Claim "${label}" is false: ${rel} does not exist.`, { file: rel });
    const change = await changes.status(rel);
    if (change === 'unchanged') {
      // Written again with the content it already had (e.g. a step re-run after a crash).
      const callId = ledger.written.get(rel);
      if (
        claim.kind === 'file-written' &&
        claim.action !== 'modified' &&
        callId !== undefined &&
        ledger.writtenContent.get(rel) === facts.read(rel)
      )
        return claimFinding(
          claim,
          'pass',
          `Claim "${label}" holds: tool call ${callId} wrote ${rel}, which already had that content.`,
          { file: rel, callId },
        );
      return claimFinding(
        claim,
        'fail',
        `Claim "${label}" is false: ${rel} exists but did not change ${basis}.`,
        { file: rel },
      );
    }
    if (change === 'unknown') {
      return claimFinding(
        claim,
        'error',
        `Claim "${label}" could not be checked: ${rel} exists, but nothing shows whether this step changed it (no baseline, no git, no tool call naming it).`,
        { file: rel },
      );
    }
    const callId = attributed(rel, 'write');
    if (callId === undefined) {
      return claimFinding(
        claim,
        'fail',
        `Claim "${label}" is false: ${rel} changed ${basis}, but none of this step's tool calls wrote it (another step's work).`,
        { file: rel },
      );
    }
    return claimFinding(
      claim,
      'pass',
      `Claim "${label}" holds: ${rel} was ${change} ${basis} (tool call ${callId}).`,
      { file: rel, callId },
    );
  };

  const checkOne = async (claim: Claim): Promise<Finding> => {
    const label = describeClaim(claim);
    switch (claim.kind) {
      case 'file-written':
        return checkWritten(claim, claim.file, label);
      case 'file-deleted': {
        const { rel, note } = resolve(claim.file);
        if (rel === undefined)
          return claimFinding(claim, 'fail', `Claim "${label}" is false: ${note}.`, { file: claim.file });
        if (facts.exists(rel))
          return claimFinding(claim, 'fail', `Claim "${label}" is false: ${rel} still exists.`, {
            file: rel,
          });
        const change = await changes.status(rel);
        if (change === 'deleted') {
          const callId = attributed(rel, 'delete');
          return callId === undefined
            ? claimFinding(
                claim,
                'fail',
                `Claim "${label}" is false: ${rel} was deleted ${basis}, but by none of this step's tool calls.`,
                { file: rel },
              )
            : claimFinding(
                claim,
                'pass',
                `Claim "${label}" holds: ${rel} existed when the step started and is gone (tool call ${callId}).`,
                { file: rel, callId },
              );
        }
        if (change === 'unchanged') {
          return claimFinding(
            claim,
            'fail',
            `Claim "${label}" is false: ${rel} did not exist when the step started (nothing was deleted).`,
            { file: rel },
          );
        }
        return claimFinding(
          claim,
          'error',
          `Claim "${label}" could not be checked: ${rel} does not exist, but nothing shows it existed when the step started.`,
          { file: rel },
        );
      }
      case 'file-moved': {
        const from = facts.relative(claim.from);
        const to = facts.relative(claim.to);
        if (from === undefined || to === undefined)
          return claimFinding(claim, 'fail', `Claim "${label}" is false: a path is outside the workspace.`);
        if (facts.exists(from))
          return claimFinding(claim, 'fail', `Claim "${label}" is false: ${from} still exists.`, {
            file: from,
          });
        if (!facts.exists(to))
          return claimFinding(claim, 'fail', `Claim "${label}" is false: ${to} does not exist.`, {
            file: to,
          });
        const [fromChange, toChange] = await Promise.all([changes.status(from), changes.status(to)]);
        if (fromChange === 'unchanged')
          return claimFinding(
            claim,
            'fail',
            `Claim "${label}" is false: ${from} did not exist when the step started.`,
            { file: from },
          );
        if (toChange === 'unchanged')
          return claimFinding(
            claim,
            'fail',
            `Claim "${label}" is false: ${to} already existed unchanged before the step.`,
            { file: to },
          );
        if (fromChange === 'unknown' || toChange === 'unknown')
          return claimFinding(
            claim,
            'error',
            `Claim "${label}" could not be checked: nothing shows what ${from} and ${to} were when the step started.`,
            { file: to },
          );
        return claimFinding(
          claim,
          'pass',
          `Claim "${label}" holds: ${from} is gone and ${to} was ${toChange} ${basis}.`,
          { file: to },
        );
      }
      case 'symbol-added': {
        const files: string[] = [];
        if (claim.file !== undefined) {
          const { rel, note } = resolve(claim.file);
          if (rel === undefined)
            return claimFinding(claim, 'fail', `Claim "${label}" is false: ${note}.`, { file: claim.file });
          if (!facts.isFile(rel))
            return claimFinding(claim, 'fail', `Claim "${label}" is false: ${rel} does not exist.`, {
              file: rel,
            });
          if (!canFindSymbols(rel) && isLineEntryFile(rel)) {
            const text = facts.read(rel) ?? '';
            const before = await changes.textBefore(rel);
            const change = await changes.status(rel);
            if (!hasLineEntry(rel, text, claim.name))
              return claimFinding(
                claim,
                'fail',
                `Claim "${label}" is false: ${rel} has no ${claim.name} entry.`,
                {
                  file: rel,
                },
              );
            if (
              change === 'unchanged' ||
              (change !== 'created' && before !== undefined && hasLineEntry(rel, before, claim.name))
            )
              return claimFinding(
                claim,
                'fail',
                `Claim "${label}" is false: ${rel} already had the ${claim.name} entry when the step started.`,
                { file: rel },
              );
            if (change === 'unknown' || (change === 'modified' && before === undefined))
              return claimFinding(
                claim,
                'error',
                `Claim "${label}" could not be checked: nothing shows what ${rel} was when the step started.`,
                { file: rel },
              );
            return claimFinding(
              claim,
              'pass',
              `Claim "${label}" holds: ${rel} has a new ${claim.name} entry (${change}).`,
              {
                file: rel,
              },
            );
          }
          if (!canFindSymbols(rel)) {
            return claimFinding(
              claim,
              'error',
              `Claim "${label}" could not be checked: no parser for ${rel}.`,
              { file: rel },
            );
          }
          files.push(rel);
        } else {
          for (const candidate of candidates) {
            if (canFindSymbols(candidate) && facts.isFile(candidate)) files.push(candidate);
          }
          if (files.length === 0) {
            return claimFinding(
              claim,
              'error',
              `Claim "${label}" could not be checked: it names no file and this step changed no file a parser can read.`,
            );
          }
        }
        for (const file of files) {
          const text = facts.read(file);
          if (text === undefined) continue;
          const found = await findSymbol({ fileName: file, text, name: claim.name, kind: claim.symbolKind });
          if (!found) continue;
          const change = await changes.status(file);
          const before = await changes.textBefore(file);
          const earlier =
            change === 'modified' && before !== undefined
              ? await findSymbol({ fileName: file, text: before, name: claim.name, kind: claim.symbolKind })
              : undefined;
          // Declared before only as a stub and implemented now: the body is what the step added
          // ("implemented daysIn" over `function daysIn() { throw new Error('TODO') }`).
          const implemented =
            earlier !== undefined &&
            before !== undefined &&
            (stubAt(before, earlier.line, file) ?? (await stubBodyAt(file, before, earlier.line))) !==
              undefined &&
            stubAt(text, found.line, file) === undefined &&
            (await stubBodyAt(file, text, found.line)) === undefined;
          if (implemented)
            return claimFinding(
              claim,
              'pass',
              `Claim "${label}" holds: ${file}:${found.line} implements ${claim.name}, a stub when the step started (file ${change} ${basis}).`,
              { file },
            );
          if (earlier !== undefined) {
            return claimFinding(
              claim,
              'fail',
              `Claim "${label}" is false: ${file} already declared ${claim.name} when the step started (it was not added now).`,
              { file },
            );
          }
          const stub =
            stubAt(text, found.line, file) ??
            (await stubBodyAt(file, text, found.line, { emptyIsStub: false }));
          if (stub !== undefined) {
            return claimFinding(
              claim,
              'fail',
              `Claim "${label}" is false: ${file}:${found.line} declares ${claim.name}, but only as a stub (${stub}).`,
              { file },
            );
          }
          if (change === 'unchanged') {
            if (claim.file === undefined) continue;
            return claimFinding(
              claim,
              'fail',
              `Claim "${label}" is false: ${claim.name} exists in ${file}, but the file did not change ${basis} (it was not added now).`,
              { file },
            );
          }
          if (change === 'unknown') {
            return claimFinding(
              claim,
              'error',
              `Claim "${label}" could not be checked: ${file} declares ${claim.name}, but nothing shows this step added it.`,
              { file },
            );
          }
          return claimFinding(
            claim,
            'pass',
            `Claim "${label}" holds: ${file}:${found.line} declares ${found.declaration} ${claim.name} (file ${change} ${basis}).`,
            { file },
          );
        }
        return claimFinding(
          claim,
          'fail',
          `Claim "${label}" is false: no ${claim.symbolKind === 'any' ? 'declaration' : claim.symbolKind} named ${claim.name} in ${files.join(', ')}.`,
          files.length === 1 ? { file: files[0] as string } : {},
        );
      }
      case 'command-passed': {
        const isTest = isTestCommand(claim.argv) || claim.tests !== undefined;
        return checkCommand(claim, claim.argv, label, isTest, claim.tests);
      }
      case 'check-passed': {
        let command = (await env.tooling()).commands[claim.check]?.argv;
        if (command === undefined) {
          // No workspace command: the step's own last run of such a command, re-run.
          const own = [...ledger.commands]
            .reverse()
            .find((entry) =>
              claim.check === 'test'
                ? entry.run.test
                : !entry.run.exploratory &&
                  new RegExp(claim.check === 'typecheck' ? 'tsc|type-?check|mypy' : claim.check).test(
                    entry.run.argv.join(' '),
                  ),
            );
          command = own?.run.argv;
        }
        if (command === undefined) {
          return claimFinding(
            claim,
            'error',
            `Claim "${label}" could not be checked: the workspace has no ${claim.check} command and the step ran none.`,
          );
        }
        return checkCommand(claim, command, label, claim.check === 'test', claim.tests);
      }
      case 'git-commit':
        return checkCommit(claim, label);
      case 'git-branch': {
        const { before, after } = changes.refs();
        if (after === undefined)
          return claimFinding(
            claim,
            'fail',
            `Claim "${label}" is false: the workspace is not a git repository.`,
          );
        const ref = `refs/heads/${claim.name}`;
        const now = after.refs.get(ref);
        if (now === undefined)
          return claimFinding(claim, 'fail', `Claim "${label}" is false: there is no branch ${claim.name}.`);
        if (before !== undefined && before.refs.get(ref) === now)
          return claimFinding(
            claim,
            'fail',
            `Claim "${label}" is false: branch ${claim.name} already existed, unchanged, when the step started.`,
          );
        return claimFinding(
          claim,
          'pass',
          `Claim "${label}" holds: branch ${claim.name} is at ${now.slice(0, 12)}.`,
        );
      }
      case 'git-tag': {
        const checked = await checkTag(claim, {
          refs: changes.refs(),
          git: env.git,
          tagCommandPassed: ledger.commands.some((entry) => entry.run.passed && isTagCommand(entry.run.argv)),
        });
        return claimFinding(
          claim,
          checked.status,
          checked.status === 'pass'
            ? `Claim "${label}" holds: ${checked.message}.`
            : checked.status === 'error'
              ? `Claim "${label}" could not be checked: ${checked.message}.`
              : `Claim "${label}" is false: ${checked.message}.`,
        );
      }
      case 'git-push': {
        const { before, after } = changes.refs();
        if (after === undefined)
          return claimFinding(
            claim,
            'fail',
            `Claim "${label}" is false: the workspace is not a git repository.`,
          );
        const branch = claim.branch ?? after.branch;
        const remotes = [...after.refs.keys()].filter(
          (ref) => ref.startsWith('refs/remotes/') && !ref.endsWith('/HEAD'),
        );
        const wanted = remotes.filter(
          (ref) =>
            (claim.remote === undefined || ref.startsWith(`refs/remotes/${claim.remote}/`)) &&
            (branch === undefined || ref.endsWith(`/${branch}`)),
        );
        if (wanted.length === 0)
          return claimFinding(
            claim,
            'fail',
            `Claim "${label}" is false: no remote-tracking ref for ${branch ?? 'the branch'}${claim.remote ? ` on ${claim.remote}` : ''}.`,
          );
        const local = branch !== undefined ? after.refs.get(`refs/heads/${branch}`) : after.head;
        for (const ref of wanted) {
          const now = after.refs.get(ref);
          const moved = before === undefined ? true : before.refs.get(ref) !== now;
          if (moved && now !== undefined && (local === undefined || now === local))
            return claimFinding(
              claim,
              'pass',
              `Claim "${label}" holds: ${ref.replace('refs/remotes/', '')} moved to ${now.slice(0, 12)}${local ? ', the local branch head' : ''}.`,
            );
        }
        return claimFinding(
          claim,
          'fail',
          `Claim "${label}" is false: ${wanted.map((ref) => ref.replace('refs/remotes/', '')).join(', ')} did not move to the local ${branch ?? 'HEAD'} ${before === undefined ? '' : 'since the step started'}.`,
        );
      }
      case 'dependency-installed':
        return checkDependency(claim, label);
    }
  };

  const checkCommit = async (
    claim: Extract<Claim, { kind: 'git-commit' }>,
    label: string,
  ): Promise<Finding> => {
    const { before, after } = changes.refs();
    if (after === undefined)
      return claimFinding(claim, 'fail', `Claim "${label}" is false: the workspace is not a git repository.`);
    if (claim.hash !== undefined) {
      const exists = await env.git(['cat-file', '-e', `${claim.hash}^{commit}`]);
      if (exists.exitCode !== 0)
        return claimFinding(claim, 'fail', `Claim "${label}" is false: there is no commit ${claim.hash}.`);
      const base = before?.head;
      if (base !== undefined) {
        const old = await env.git(['merge-base', '--is-ancestor', claim.hash, base]);
        if (old.exitCode === 0)
          return claimFinding(
            claim,
            'fail',
            `Claim "${label}" is false: ${claim.hash} was already in the history when the step started.`,
          );
      } else if (changes.startedAt !== undefined) {
        const time = await env.git(['show', '-s', '--format=%ct', claim.hash]);
        const seconds = Number(time.stdout.trim());
        if (Number.isFinite(seconds) && seconds * 1000 < changes.startedAt - 1000)
          return claimFinding(
            claim,
            'fail',
            `Claim "${label}" is false: ${claim.hash} was committed before the step started.`,
          );
      }
      return claimFinding(claim, 'pass', `Claim "${label}" holds: commit ${claim.hash} exists and is new.`);
    }
    if (before !== undefined) {
      if (after.head !== undefined && after.head !== before.head)
        return claimFinding(
          claim,
          'pass',
          `Claim "${label}" holds: HEAD moved from ${before.head?.slice(0, 12) ?? '(no commit)'} to ${after.head.slice(0, 12)}.`,
        );
      return claimFinding(
        claim,
        'fail',
        `Claim "${label}" is false: HEAD did not move since the step started (no new commit).`,
      );
    }
    if (after.head === undefined)
      return claimFinding(claim, 'fail', `Claim "${label}" is false: the repository has no commit.`);
    // No baseline: the commits the step's own `git commit` calls printed must still be HEAD's history.
    const made = commitsMadeByStep(ledger);
    if (made.length > 0) {
      const kept = await stepCommitInHead(made, after.head, env.git);
      return kept !== undefined
        ? claimFinding(
            claim,
            'pass',
            `Claim "${label}" holds: HEAD contains ${kept}, committed by this step.`,
          )
        : claimFinding(
            claim,
            'fail',
            `Claim "${label}" is false: the step's commit${made.length > 1 ? 's' : ''} ${made.join(', ')} ${made.length > 1 ? 'are' : 'is'} not in HEAD's history (reset away or on another branch).`,
          );
    }
    if (changes.startedAt !== undefined) {
      const time = await env.git(['show', '-s', '--format=%ct', 'HEAD']);
      const seconds = Number(time.stdout.trim());
      if (Number.isFinite(seconds) && seconds * 1000 >= changes.startedAt - 1000)
        return claimFinding(
          claim,
          'pass',
          `Claim "${label}" holds: HEAD ${after.head.slice(0, 12)} was committed during the step.`,
        );
      return claimFinding(
        claim,
        'fail',
        `Claim "${label}" is false: the last commit is older than the step.`,
      );
    }
    return claimFinding(
      claim,
      'error',
      `Claim "${label}" could not be checked: no baseline shows where HEAD was when the step started.`,
    );
  };

  const checkDependency = async (
    claim: Extract<Claim, { kind: 'dependency-installed' }>,
    label: string,
  ): Promise<Finding> => {
    const root = facts.root;
    const changedPackages = changes.packagesChanged();
    if (claim.name === undefined) {
      const lockChanged = [];
      for (const file of [...LOCKFILES, ...INSTALLED_MANIFESTS]) {
        if (!facts.exists(file)) continue;
        const change = await changes.status(file);
        if (change === 'created' || change === 'modified') lockChanged.push(file);
      }
      if ((changedPackages?.length ?? 0) > 0 || lockChanged.length > 0)
        return claimFinding(
          claim,
          'pass',
          `Claim "${label}" holds: ${[...(changedPackages ?? []).slice(0, 5), ...lockChanged].join(', ')} changed ${basis}.`,
        );
      const installed = ledger.commands.some(
        (entry) =>
          entry.run.passed && /\b(?:install|add|ci|sync)\b/.test(entry.run.argv.slice(1, 3).join(' ')),
      );
      if (installed && changedPackages === undefined && facts.exists('node_modules'))
        return claimFinding(
          claim,
          'pass',
          `Claim "${label}" holds: an install command of this step exited 0 and node_modules exists.`,
        );
      return claimFinding(
        claim,
        'fail',
        `Claim "${label}" is false: no package, lockfile or manifest changed ${basis}.`,
      );
    }
    const installed = packageInstalled(root, claim.name);
    const listed = manifestLists(root, claim.name);
    if (installed === undefined && listed === undefined)
      return claimFinding(
        claim,
        'fail',
        `Claim "${label}" is false: ${claim.name} is neither installed (node_modules, site-packages) nor listed in a manifest.`,
      );
    if (installed === undefined)
      return claimFinding(
        claim,
        'fail',
        `Claim "${label}" is false: ${listed} lists ${claim.name}, but it is not installed (no node_modules/${claim.name}, no site-packages entry).`,
      );
    if (changedPackages !== undefined) {
      const key = installed.startsWith('node_modules/')
        ? installed
        : `site-packages/${path.posix.basename(installed)}`;
      const fresh = changedPackages.some(
        (entry) =>
          entry === key ||
          normalisePackage(entry).startsWith(normalisePackage(`site-packages/${claim.name}`)),
      );
      const manifestChanged =
        listed !== undefined && ['created', 'modified'].includes(await changes.status(listed));
      if (!fresh && !manifestChanged)
        return claimFinding(
          claim,
          'fail',
          `Claim "${label}" is false: ${claim.name} was already installed when the step started and its manifest did not change.`,
        );
    }
    return claimFinding(
      claim,
      'pass',
      `Claim "${label}" holds: ${installed}${listed ? ` (listed in ${listed})` : ''}.`,
    );
  };

  const findings: Finding[] = [];
  for (const claim of claims) findings.push(await checkOne(claim));
  return findings;
}
