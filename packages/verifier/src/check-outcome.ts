import { asyncAsked, asyncDefinition } from './asked-async';
import { askedBehaviourFinding } from './asked-behaviour';
import { addedSettingKeys, askedConfig, isProgramFile, isSettingsFile, settingRead } from './asked-config';
import { askedCoverage, shownCoverage } from './asked-coverage';
import { askedExactContents, exactContentProblem } from './asked-exact-content';
import { askedFacts } from './asked-facts';
import { flagSetting, flagsAskedOn } from './asked-flags';
import { askedGitOperations, checkGitOperation } from './asked-git-operations';
import { askedLiterals, containsLiteral, literalsAbsent } from './asked-literals';
import { askedRemovals, removalProblem } from './asked-removals';
import { askedRename, oldNameLine, renameReaches } from './asked-renames';
import { addsRetry, retryAsked } from './asked-retries';
import { askedRowRemovals, rowsLeft } from './asked-row-removals';
import {
  askedSettingValues,
  isAskedValue,
  mentionsKey,
  settingValue,
  TYPED_SETTINGS_FILE,
} from './asked-setting-values';
import { checkTag, isTagCommand } from './asked-tags';
import { askedUpgrade, upgradeDisagreement } from './asked-upgrades';
import { askedUses, usesName } from './asked-uses';
import { brokenByStep, brokenSyntaxAsked } from './broken-syntax';
import { changedTexts } from './changed-text';
import { askedContentFinding } from './check-asked-content';
import { judgeTestClaim, stubAt } from './check-claims';
import type { Claim } from './claim-types';
import { commandKey } from './command-runs';
import { commentsAsked, layoutAsked, sameCode, whitespaceOnly } from './cosmetic-change';
import type { Tooling } from './detect-tooling';
import { findPaths } from './find-paths';
import { canFindSymbols, findSymbol } from './find-symbol';
import { excerpt, type Finding } from './finding';
import { generatedInsteadOfSource, generatedKind } from './generated-edits';
import { PLACEHOLDERS_ASKED, stubBodyAt } from './hollow-code';
import type { LedgerAnalysis } from './ledger-evidence';
import { misplacedSettings, readsPlacementOf } from './misplaced-settings';
import { neuteredScripts, scriptsAsked } from './neutered-scripts';
import { effectWindows, ownUnnamedEffect } from './own-effects';
import { isMissingProgram } from './protocols/command-protocols';
import { type CommandResult, commandProblem } from './run-command';
import { readsSettingsOf, shadowedSettings } from './shadowed-settings';
import type { StepChanges } from './step-changes';
import { commitCarriesChange, commitsMadeByStep, EMPTY_COMMIT_ASKED, stepCommitInHead } from './step-commits';
import type { ExpectedOutcome, StepExpectations } from './step-expectations';
import { addedSuppressions, fixingDiagnosticsAsked } from './suppressed-diagnostics';
import { handlingAsked, loggingAsked, swallowedErrors } from './swallowed-errors';
import { testAwareCode, testEnvironmentAsked } from './test-aware-code';
import { configNamed, isVariantConfig, nearbyTexts } from './unloaded-configs';
import { registrationAsked, unregisteredModules } from './unregistered-modules';
import type { WorkspaceFacts } from './workspace-facts';
import { TEST_FILE } from './workspace-snapshot';

/** Everything the outcome check needs. */
export interface OutcomeEnvironment {
  expectations: StepExpectations;
  /** The step's description (for tools it names). */
  description: string;
  facts: WorkspaceFacts;
  ledger: LedgerAnalysis;
  changes: StepChanges;
  allowCommand(argv: readonly string[]): boolean | Promise<boolean>;
  rerun(argv: readonly string[]): Promise<CommandResult>;
  tooling(): Promise<Tooling>;
  /** Runs git in the workspace (commit ancestry without a baseline, `git grep` across it). */
  git: (args: readonly string[]) => Promise<CommandResult>;
  /** When the verification started (epoch ms): changes after it are the verifier's own re-runs. */
  verifyStartedAt?: number;
}

/** Where package managers install packages (never written by hand in an install). */
const PACKAGE_FOLDER = /(?:^|[\\/])(?:node_modules|site-packages|dist-packages)[\\/]/;

/** A commit asked on the branch the step creates: "… and commit x on it", "commit to the new branch". */
const COMMIT_ON_NEW_BRANCH =
  /\bcommit\w*\b(?:[^.;\n]|\.(?=\S))*?\b(?:on|to|onto|into|in)\s+(?:it|this|that|(?:the|this|that)\s+(?:new\s+)?branch)\b|\b(?:switch|check\s*out|checkout)\w*\s+(?:to\s+)?(?:it|the\s+(?:new\s+)?branch)\b(?:[^.;\n]|\.(?=\S))*?\bcommit/i;

/** Words that ask for a file to be moved or kept somewhere else, not only to be gone. */
const MOVE_ASKED =
  /\b(?:move[sd]?|moving|renam\w+|archiv\w+|relocat\w+|back(?:ed)?[\s-]?up|backups?|keep\s+a\s+copy|into|mv)\b/i;

const EFFECTS: readonly ExpectedOutcome[] = ['write', 'delete', 'install', 'commit', 'push', 'branch', 'tag'];

const NOUN: Record<ExpectedOutcome, string> = {
  write: 'create or change files',
  delete: 'delete files',
  test: 'run the tests',
  run: 'run a command',
  install: 'install dependencies',
  commit: 'commit',
  push: 'push',
  branch: 'create a branch',
  tag: 'create or delete a git tag',
  read: 'read or inspect the workspace',
};

function outcome(
  status: Finding['status'],
  message: string,
  priority: Finding['priority'] = 'P1',
  evidence?: Finding['evidence'],
): Finding {
  return { check: 'outcome', priority, status, message, ...(evidence ? { evidence } : {}) };
}

/**
 * A file asked to hold exactly some text ("VERSION.txt containing exactly `1.4.0`") must hold those
 * bytes: no byte order mark, CRLF endings, trailing spaces or extra blank lines (one final newline
 * is free). Files that do not exist are left to the other checks.
 */
function exactContentFindings(env: OutcomeEnvironment): Finding[] {
  const findings: Finding[] = [];
  for (const asked of askedExactContents(env.description)) {
    const file = env.facts.relative(asked.file);
    const text = file === undefined ? undefined : env.facts.read(file);
    if (file === undefined || text === undefined) continue;
    const problem = exactContentProblem(text, asked.text);
    if (problem !== undefined)
      findings.push(
        outcome(
          'fail',
          `The step was asked for ${file} to hold exactly ${JSON.stringify(asked.text.slice(0, 80))}, but ${problem}.`,
          'P1',
          { file },
        ),
      );
  }
  return findings;
}

/**
 * A name asked to be used in a named file ("Add `sanitize` to src/util.js and use it in
 * src/server.js") must be referred to by that file's code beyond an import: a helper written and
 * imported but never called is not wired in. Files that do not exist are left to the other checks.
 */
async function unwiredFindings(env: OutcomeEnvironment): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const asked of askedUses(env.description)) {
    const file = env.facts.relative(asked.file);
    const text = file === undefined ? undefined : env.facts.read(file);
    if (file === undefined || text === undefined) continue;
    if (!(await usesName(file, text, asked.name)))
      findings.push(
        outcome(
          'fail',
          `The step was asked to use \`${asked.name}\` in ${file}, but that file's code never refers to it${text.includes(asked.name) ? ' beyond an import, a comment or a string' : ''}.`,
          'P1',
          { file },
        ),
      );
  }
  return findings;
}

/** A stand-in claim for judging a test run the step was asked for. */
const ASKED_TESTS: Claim = {
  kind: 'check-passed',
  check: 'test',
  source: 'claims',
  text: 'the step was asked to run the tests',
};

/**
 * The per-step criteria: what the step was asked to do (its description's verbs and named files,
 * see `stepExpectations`) checked against what happened. A step asked for an effect with no
 * successful effectful call fails (P0); files it was asked to create, change or delete must have
 * changed that way since it started; a step asked to run the tests must have run them and they
 * must pass (with at least one test); a run step needs a command that exited 0; install, commit,
 * push and branch steps need the dependency, HEAD or ref to have moved; a read-only step is
 * judged on its successful reads. A description with no recognised verb gives no finding: the
 * verdict then rests on the claims alone.
 */
export async function checkOutcome(env: OutcomeEnvironment): Promise<Finding[]> {
  const { expectations, ledger, changes, facts } = env;
  const asked = [...expectations.outcomes];
  /** Whether this step's own calls could have made a change of `file` (not a neighbour's). */
  const own = (file: string): boolean =>
    [...ledger.written.keys(), ...ledger.deleted.keys()].some(
      (target) => file === target || file.startsWith(`${target}/`),
    ) ||
    // A command or another tool names no file: only a change made while one ran can be its.
    (facts.exists(file)
      ? ownUnnamedEffect(
          facts.absolute(file),
          ledger,
          env.verifyStartedAt !== undefined ? { verifyStartedAt: env.verifyStartedAt } : {},
        ) !== undefined
      : effectWindows(ledger).length > 0);
  if (asked.length === 0) {
    // "Revert the commit …", "Stash the changes": the repository says whether it happened.
    const operations = await gitOperationFindings(env);
    if (operations.length > 0) return operations;
    // No verb of the description was recognised: a tool it names, or the step's own changes.
    const named = namedToolEvidence(expectations, env.description, ledger);
    if (named !== undefined) return [named];
    if (ledger.effectCount === 0) return [];
    const { created, modified, deleted } = await changes.changed();
    const mine = [...created, ...modified, ...deleted].filter(own);
    if (mine.length === 0) return [];
    const twin = namesakeFinding(env, mine);
    if (twin !== undefined) return [twin];
    const rolledBack = await rolledBackFinding(env, modified.filter(own));
    if (rolledBack !== undefined) return [rolledBack];
    const shadowed = await shadowedFinding(env, { created, modified }, own);
    if (shadowed !== undefined) return [shadowed];
    const unset = await settingValueFinding(env, { created, modified }, own);
    if (unset !== undefined) return [unset];
    const misplaced = await misplacedFinding(env, { created, modified }, own);
    if (misplaced !== undefined) return [misplaced];
    const content = await askedContentFinding(env, { created, modified }, own);
    if (content !== undefined) return [content];
    const unloaded = await unloadedConfigFinding(env, { created }, own);
    if (unloaded !== undefined) return [unloaded];
    const sync = await asyncFinding(env, { created, modified }, own);
    if (sync !== undefined) return [sync];
    const swallowed = await swallowedFinding(env, { created, modified }, own);
    if (swallowed !== undefined) return [swallowed];
    const unread = await configFinding(env, { created, modified }, own);
    if (unread?.status === 'fail') return [unread];
    const unregistered = await unregisteredFinding(env, { created, modified }, own);
    if (unregistered !== undefined) return [unregistered];
    const off = await flagFinding(env, { created, modified }, own);
    if (off !== undefined) return [off];
    const behaviour = await askedBehaviourFinding(env, { created, modified }, own);
    if (behaviour !== undefined) return [behaviour];
    const generated = await generatedFinding(env, mine);
    if (generated !== undefined) return [generated];
    const once = await retryFinding(env, { created, modified }, own);
    if (once !== undefined) return [once];
    const unmeasured = coverageFinding(env);
    if (unmeasured !== undefined) return [unmeasured];
    const broken = brokenSyntaxAsked(env.description)
      ? undefined
      : await brokenSyntaxFinding(env, { created, modified }, own);
    if (broken !== undefined) return [broken];
    const aware = testEnvironmentAsked(env.description)
      ? undefined
      : await testAwareFinding(env, { created, modified }, own);
    if (aware !== undefined) return [aware];
    const neutered = scriptsAsked(env.description)
      ? undefined
      : await neuteredScriptFinding(env, { modified }, own);
    if (neutered !== undefined) return [neutered];
    const inexact = [...exactContentFindings(env), ...(await unwiredFindings(env))];
    if (inexact.length > 0) return inexact;
    return [
      outcome(
        'pass',
        `The step changed ${mine.slice(0, 8).join(', ')}${mine.length > 8 ? ` and ${mine.length - 8} more` : ''} with its own tool calls (its description names no checkable outcome).`,
      ),
    ];
  }
  const findings: Finding[] = [];
  const askedEffects = asked.filter((item) => EFFECTS.includes(item));
  const askedText = asked.map((item) => NOUN[item]).join(', ');

  if (ledger.successCount === 0) {
    return [
      outcome(
        'fail',
        `The step was asked to ${askedText} (${expectations.verbs.slice(0, 3).join(', ')}), but no tool call succeeded: nothing was done.`,
        'P0',
      ),
    ];
  }
  if (askedEffects.length > 0 && ledger.effectCount === 0) {
    return [
      outcome(
        'fail',
        `The step was asked to ${askedEffects.map((item) => NOUN[item]).join(', ')}, but only read-only calls succeeded (${ledger.readCount}): no effect.`,
        'P0',
      ),
    ];
  }

  const known = await changes.changed();
  // A custom tool the description names ("Charge the card" → `charge`) that succeeded.
  const named = namedToolEvidence(expectations, env.description, ledger);
  if (named !== undefined && !expectations.outcomes.has('write') && !expectations.outcomes.has('delete'))
    findings.push(named);
  const basis =
    changes.basis === 'baseline'
      ? 'since the step started'
      : changes.basis === 'mtime'
        ? 'since the step started (file times)'
        : changes.basis === 'git'
          ? 'in git'
          : 'by its tool calls';

  if (expectations.outcomes.has('write')) {
    const problems: string[] = [];
    const passes: string[] = [];
    for (const file of expectations.create) {
      const rel = facts.relative(file);
      if (rel === undefined) continue;
      if (!facts.isFile(rel)) {
        problems.push(`${rel} was to be created but does not exist`);
        continue;
      }
      const change = await changes.status(rel);
      if ((change === 'created' || change === 'modified') && !own(rel))
        problems.push(`${rel} was ${change}, but not by this step's tool calls`);
      else if (change === 'created' || change === 'modified') passes.push(`${rel} ${change}`);
      else if (
        change === 'unchanged' &&
        ledger.writtenContent.has(rel) &&
        ledger.writtenContent.get(rel) === facts.read(rel)
      )
        passes.push(`${rel} written by ${ledger.written.get(rel)} (it already had that content)`);
      else if (change === 'unchanged') problems.push(`${rel} was to be created but did not change ${basis}`);
      else problems.push(`${rel}: nothing shows whether it changed`);
    }
    if (expectations.change.length > 0) {
      const states = await Promise.all(
        expectations.change.map(async (file) => {
          const rel = facts.relative(file);
          return { file: rel ?? file, change: rel === undefined ? 'unknown' : await changes.status(rel) };
        }),
      );
      const changed = states.filter(
        (state) => (state.change === 'created' || state.change === 'modified') && own(state.file),
      );
      if (changed.length > 0) passes.push(...changed.map((state) => `${state.file} ${state.change}`));
      else if (states.some((state) => state.change === 'created' || state.change === 'modified'))
        problems.push(
          `${states.map((state) => state.file).join(', ')} changed, but not by this step's tool calls`,
        );
      else if (states.every((state) => state.change === 'unchanged' || state.change === 'deleted'))
        problems.push(`${states.map((state) => state.file).join(', ')} did not change ${basis}`);
      else problems.push(`nothing shows whether ${states.map((state) => state.file).join(', ')} changed`);
    }
    // Files named in one list ("in a.json, b.json and c.json"): every one, not any one.
    if (expectations.changeEach.length > 1) {
      const states = await Promise.all(
        expectations.changeEach.map(async (file) => {
          const rel = facts.relative(file);
          return { file: rel ?? file, change: rel === undefined ? 'unknown' : await changes.status(rel) };
        }),
      );
      const left = states.filter(
        (state) => !((state.change === 'created' || state.change === 'modified') && own(state.file)),
      );
      const someChanged = left.length < states.length;
      if (someChanged && left.length > 0 && left.every((state) => state.change !== 'unknown'))
        problems.push(
          `the description lists ${states.map((state) => state.file).join(', ')} together, but ${left
            .map((state) => state.file)
            .join(', ')} did not change ${basis}`,
        );
    }
    const anyChange = [...known.created, ...known.modified, ...known.deleted].filter(own);
    if (problems.length > 0) {
      const unknownOnly = problems.every(
        (problem) => problem.startsWith('nothing shows') || problem.includes(': nothing shows'),
      );
      findings.push(
        unknownOnly
          ? outcome('error', `The step was asked to ${NOUN.write}; ${problems.join('; ')}.`)
          : outcome('fail', `The step was asked to ${NOUN.write}: ${problems.join('; ')}.`),
      );
    } else if (passes.length > 0) {
      findings.push(outcome('pass', `The step was asked to ${NOUN.write}: ${passes.join(', ')} ${basis}.`));
    } else if (named !== undefined) {
      findings.push(named);
    } else if (anyChange.length > 0) {
      findings.push(
        outcome(
          'pass',
          `The step was asked to ${NOUN.write}: ${anyChange.slice(0, 8).join(', ')}${anyChange.length > 8 ? ` and ${anyChange.length - 8} more` : ''} changed ${basis}.`,
        ),
      );
    } else if (changes.basis === 'ledger') {
      findings.push(
        outcome(
          'error',
          `The step was asked to ${NOUN.write}; without a baseline or git nothing shows what changed.`,
        ),
      );
    } else {
      findings.push(outcome('fail', `The step was asked to ${NOUN.write}, but no file changed ${basis}.`));
    }
  }

  // Content asked for, only whitespace moved in every file the step changed — or, in code, only
  // comments and the quote style of strings: the program is the same as before.
  if (expectations.outcomes.has('write') && !layoutAsked(env.description) && known.created.length === 0) {
    const touched = known.modified.filter(own);
    const commentsOk = commentsAsked(env.description);
    const kinds = await Promise.all(
      touched.map(async (file) => {
        const before = await changes.textBefore(file);
        const after = facts.read(file);
        if (before === undefined || after === undefined) return undefined;
        if (whitespaceOnly(before, after)) return 'whitespace';
        if (!commentsOk && (await sameCode(file, before, after))) return 'code';
        return undefined;
      }),
    );
    if (touched.length > 0 && known.deleted.length === 0 && kinds.every((kind) => kind !== undefined))
      findings.push(
        outcome(
          'fail',
          kinds.every((kind) => kind === 'whitespace')
            ? `The step was asked to ${NOUN.write}, but its changes to ${touched.slice(0, 5).join(', ')} are whitespace only.`
            : `The step was asked to ${NOUN.write}, but its changes to ${touched.slice(0, 5).join(', ')} touch only comments, whitespace, the quotes of strings or code that never runs: the code runs as before.`,
        ),
      );
  }

  // A file named in the description, answered by a change to a namesake elsewhere.
  {
    const twin = namesakeFinding(env, [...known.created, ...known.modified].filter(own));
    if (twin !== undefined) findings.push(twin);
    const rolledBack = await rolledBackFinding(env, known.modified.filter(own));
    if (rolledBack !== undefined) findings.push(rolledBack);
  }

  // A setting written where a later one of the same key overrides it: the old value still rules.
  if (expectations.outcomes.has('write')) {
    const shadowed = await shadowedFinding(env, known, own);
    if (shadowed !== undefined) findings.push(shadowed);
    const unset = await settingValueFinding(env, known, own);
    if (unset !== undefined) findings.push(unset);
    const misplaced = await misplacedFinding(env, known, own);
    if (misplaced !== undefined) findings.push(misplaced);
    const content = await askedContentFinding(env, known, own);
    if (content !== undefined) findings.push(content);
    const unloaded = await unloadedConfigFinding(env, known, own);
    if (unloaded !== undefined) findings.push(unloaded);
    const sync = await asyncFinding(env, known, own);
    if (sync !== undefined) findings.push(sync);
  }

  // Code asked for, answered by editing only generated files (build output, a lockfile).
  if (expectations.outcomes.has('write')) {
    const generated = await generatedFinding(
      env,
      [...known.created, ...known.modified, ...known.deleted].filter(own),
    );
    if (generated !== undefined) findings.push(generated);
  }

  // A retry asked for, answered by code that still makes one attempt.
  if (expectations.outcomes.has('write')) {
    const once = await retryFinding(env, known, own);
    if (once !== undefined) findings.push(once);
  }

  // A coverage asked for that no run of the step measured (or measured below what was asked).
  const unmeasured = coverageFinding(env);
  if (unmeasured !== undefined) findings.push(unmeasured);

  // Code the step created or changed and left unparsable (it parsed before).
  if (!brokenSyntaxAsked(env.description)) {
    const broken = await brokenSyntaxFinding(env, known, own);
    if (broken !== undefined) findings.push(broken);
  }

  // Code under test that checks whether a test runner is running it (and so can pass the tests
  // while the real call takes another branch).
  if (!testEnvironmentAsked(env.description)) {
    const aware = await testAwareFinding(env, known, own);
    if (aware !== undefined) findings.push(aware);
  }

  // A check script (test, build, lint…) rewritten to exit 0 whatever happens.
  if (!scriptsAsked(env.description)) {
    const neutered = await neuteredScriptFinding(env, known, own);
    if (neutered !== undefined) findings.push(neutered);
  }

  // Type or lint errors asked to be fixed, silenced instead (`@ts-ignore`, `eslint-disable`, `# noqa`).
  if (expectations.outcomes.has('write') && fixingDiagnosticsAsked(env.description)) {
    const silenced = await suppressionFinding(env, known, own);
    if (silenced !== undefined) findings.push(silenced);
  }

  // Error handling asked for, answered by handlers that do nothing (`catch {}`, `except: pass`)
  // or only log and carry on.
  if (expectations.outcomes.has('write')) {
    const swallowed = await swallowedFinding(env, known, own);
    if (swallowed !== undefined) findings.push(swallowed);
  }

  // A setting asked to be configurable: the code must read the key or env var (and use it).
  {
    const unread = await configFinding(env, known, own);
    if (unread !== undefined) findings.push(unread);
  }

  // A migration, route, plugin or command added beside siblings a registry lists, left out of it.
  {
    const unregistered = await unregisteredFinding(env, known, own);
    if (unregistered !== undefined) findings.push(unregistered);
  }

  // A feature flag asked to be on, set off (or on only when an env var says so).
  {
    const off = await flagFinding(env, known, own);
    if (off !== undefined) findings.push(off);
    const behaviour = await askedBehaviourFinding(env, known, own);
    if (behaviour !== undefined) findings.push(behaviour);
  }

  // Symbols the description asked for must be declared (and not as stubs).
  if (expectations.outcomes.has('write') && expectations.symbols.length > 0) {
    const candidates = [...new Set([...known.created, ...known.modified, ...ledger.written.keys()])];
    const missing: string[] = [];
    const present: string[] = [];
    const unexported: string[] = [];
    for (const symbol of expectations.symbols) {
      const target = symbol.file !== undefined ? facts.relative(symbol.file) : undefined;
      const files = (target !== undefined ? [target] : candidates).filter(
        (file) => canFindSymbols(file) && facts.isFile(file),
      );
      if (files.length === 0) continue;
      let where: string | undefined;
      for (const file of files) {
        const text = facts.read(file);
        const found =
          text !== undefined
            ? await findSymbol({ fileName: file, text, name: symbol.name, kind: 'any' })
            : undefined;
        // Asked to export it: a module-private declaration is not what was asked.
        if (found && symbol.exported === true && !found.exported) {
          unexported.push(`${symbol.name} (${file}:${found.line})`);
          where = `${file}:${found.line}`;
          break;
        }
        if (
          found &&
          text !== undefined &&
          stubAt(text, found.line, file) === undefined &&
          (await stubBodyAt(file, text, found.line, {
            emptyIsStub: !PLACEHOLDERS_ASKED.test(env.description),
          })) === undefined
        ) {
          where = `${file}:${found.line}`;
          break;
        }
      }
      if (where === undefined) missing.push(`${symbol.name}${target !== undefined ? ` in ${target}` : ''}`);
      else if (!unexported.some((entry) => entry.startsWith(`${symbol.name} (`)))
        present.push(`${symbol.name} (${where})`);
    }
    if (unexported.length > 0)
      findings.push(
        outcome(
          'fail',
          `The step was asked to export ${unexported.join(', ')}, but the declaration is not exported.`,
        ),
      );
    if (missing.length > 0)
      findings.push(
        outcome(
          'fail',
          `The step was asked to add ${missing.join(', ')}, but no such declaration (other than a stub) exists.`,
        ),
      );
    else if (present.length > 0 && unexported.length === 0)
      findings.push(outcome('pass', `The step was asked to add ${present.join(', ')}: declared.`));
  }

  if (expectations.outcomes.has('delete')) {
    // A file asked to go whose content reappeared under another path the step made (`x.js.bak`,
    // `old/x.js`) was moved aside, not deleted — unless a move or the new path was asked.
    const movedAside = async (file: string): Promise<string | undefined> => {
      if (MOVE_ASKED.test(env.description)) return undefined;
      let to = changes.moved().find((move) => move.from === file)?.to;
      if (to === undefined) {
        // Without a baseline: a file the step created holding what the deleted one held.
        const before = await changes.textBefore(file);
        if (before !== undefined && before.trim() !== '')
          to = known.created.find((created) => created !== file && facts.read(created) === before);
      }
      return to === undefined || env.description.includes(to) ? undefined : to;
    };
    // Every deleted file paired with where it went, when no file was named (read once, below).
    const asides =
      expectations.remove.length === 0
        ? await Promise.all(known.deleted.map(async (file) => [file, await movedAside(file)] as const))
        : [];
    if (expectations.remove.length > 0) {
      const problems: string[] = [];
      for (const file of expectations.remove) {
        const rel = facts.relative(file);
        if (rel === undefined) continue;
        const exists = facts.exists(rel);
        const aside = exists ? undefined : await movedAside(rel);
        if (exists) problems.push(`${rel} still exists`);
        else if (aside !== undefined)
          problems.push(`${rel} was moved to ${aside}, not deleted (its content is still in the workspace)`);
        else if (
          (await changes.status(rel)) === 'unchanged' &&
          !known.deleted.some((file) => file.startsWith(`${rel}/`))
        )
          problems.push(`${rel} did not exist when the step started`);
      }
      findings.push(
        problems.length > 0
          ? outcome('fail', `The step was asked to ${NOUN.delete}: ${problems.join('; ')}.`)
          : outcome('pass', `The step was asked to ${NOUN.delete}: ${expectations.remove.join(', ')} gone.`),
      );
    } else if (asides.length > 0 && asides.every(([, to]) => to !== undefined)) {
      findings.push(
        outcome(
          'fail',
          `The step was asked to ${NOUN.delete}, but it only moved files aside: ${asides
            .slice(0, 3)
            .map(([file, to]) => `${file} → ${to}`)
            .join(', ')} (their content is still in the workspace).`,
        ),
      );
    } else if (known.deleted.length > 0) {
      findings.push(
        outcome(
          'pass',
          `The step was asked to ${NOUN.delete}: ${known.deleted.slice(0, 8).join(', ')} deleted ${basis}.`,
        ),
      );
    } else if (!expectations.outcomes.has('write')) {
      findings.push(
        outcome('fail', `The step was asked to ${NOUN.delete}, but no file was deleted ${basis}.`),
      );
    }
  }

  if (expectations.outcomes.has('test')) {
    const tests = await testOutcome(env);
    if (tests !== undefined) findings.push(tests);
  }

  if (expectations.outcomes.has('run') && !expectations.outcomes.has('test')) {
    const ranAll = ledger.commands.filter((entry) => entry.ran);
    const effectful = ranAll.filter((entry) => !entry.run.exploratory);
    const named = expectations.commands.map((argv) => commandKey(argv));
    const relevant =
      named.length > 0
        ? ranAll.filter((entry) => named.includes(entry.run.key))
        : effectful.length > 0
          ? effectful
          : ranAll;
    const last = relevant.at(-1);
    if (last === undefined) {
      findings.push(
        outcome(
          'fail',
          `The step was asked to ${NOUN.run}${named.length > 0 ? ` (\`${expectations.commands[0]?.join(' ')}\`)` : ''}, but ran none.`,
        ),
      );
    } else if (!last.run.passed && !last.run.failed) {
      findings.push(
        outcome(
          'error',
          `The step was asked to ${NOUN.run}: \`${last.run.argv.join(' ')}\` ran, but its tool reported no exit code (call ${last.callId}).`,
        ),
      );
    } else if (!last.run.passed) {
      findings.push(
        outcome(
          'fail',
          `The step was asked to ${NOUN.run}: \`${last.run.argv.join(' ')}\` ${last.run.exitCode === null ? 'did not finish' : `exited ${last.run.exitCode}`} (call ${last.callId}).`,
          'P1',
          {
            command: last.run.argv,
            exitCode: last.run.exitCode,
            output: excerpt(last.run.output, 1500),
            callId: last.callId,
          },
        ),
      );
    } else {
      findings.push(
        outcome(
          'pass',
          `The step was asked to ${NOUN.run}: \`${last.run.argv.join(' ')}\` exited 0 (call ${last.callId}).`,
        ),
      );
    }
  }

  const reproduction = await reproductionOutcome(env);
  if (reproduction !== undefined) findings.push(reproduction);

  // An upgrade asked ("Upgrade `left-pad` to 1.3.0"): the manifest, the lockfile and the installed
  // copy must all hold the version, not only the manifest.
  const upgrade = askedUpgrade(env.description);
  const disagreement = upgrade && upgradeDisagreement(upgrade, (file) => env.facts.read(file));
  if (upgrade && disagreement)
    findings.push(
      outcome(
        'fail',
        `The step was asked to move ${upgrade.name} to ${upgrade.version}, but ${disagreement}: an install from the project's records does not get the version asked.`,
      ),
    );

  // "Remove the row for Bob from data/people.csv": the row is gone from that file.
  for (const { value, file } of askedRowRemovals(env.description)) {
    const rel = facts.relative(file);
    const text = rel === undefined ? undefined : facts.read(rel);
    if (rel === undefined || text === undefined) continue;
    const left = rowsLeft(text, value);
    findings.push(
      left.length === 0
        ? outcome(
            'pass',
            `The step was asked to remove the row for \`${value}\` from ${rel}: no line holds it.`,
          )
        : outcome(
            'fail',
            `The step was asked to remove the row for \`${value}\` from ${rel}, but line ${left.slice(0, 3).join(', ')} still holds it.`,
          ),
    );
  }

  if (expectations.outcomes.has('install')) {
    const installs = ledger.commands.filter((entry) =>
      /\b(?:install|add|ci|sync|get)\b/.test(entry.run.argv.slice(1, 4).join(' ')),
    );
    const passed = installs.filter((entry) => entry.run.passed);
    const packages = changes.packagesChanged();
    // Package files the step wrote itself with a file tool: a package manager did not install them.
    const handWritten = [...ledger.written.keys()].filter((file) => PACKAGE_FOLDER.test(file));
    if (passed.length === 0 && handWritten.length > 0) {
      findings.push(
        outcome(
          'fail',
          `The step was asked to ${NOUN.install}, but no install command succeeded: it wrote package files itself (${handWritten.slice(0, 3).join(', ')}), which is not an install.`,
        ),
      );
    } else if (passed.length === 0 && (packages === undefined || packages.length === 0)) {
      findings.push(
        outcome(
          'fail',
          `The step was asked to ${NOUN.install}, but no install command succeeded and no package changed.`,
        ),
      );
    } else {
      findings.push(
        outcome(
          'pass',
          `The step was asked to ${NOUN.install}: ${passed.length > 0 ? `\`${passed.at(-1)?.run.argv.join(' ')}\` exited 0` : `${packages?.slice(0, 5).join(', ')} changed`}.`,
        ),
      );
    }
  }

  // Quoted text the step was asked to add ("Add a `--verbose` flag", "an \"Installation\" section")
  // must be in some file it changed or was asked to change.
  if (expectations.outcomes.has('write')) {
    const literals = askedLiterals(env.description, expectations.commands);
    const files = [
      ...new Set([
        ...known.created,
        ...known.modified,
        ...[...expectations.change, ...expectations.create].flatMap((file) => facts.relative(file) ?? []),
      ]),
    ];
    const texts = files.flatMap((file) => {
      const text = facts.read(file);
      return text === undefined ? [] : [{ file, text }];
    });
    const asked = [...expectations.change, ...expectations.create];
    const absent = await literalsAbsent(env.description, literals, texts, asked);
    if (absent.length > 0)
      findings.push(
        outcome(
          'fail',
          `The step was asked to add ${absent.map((literal) => (literal.code ? `\`${literal.text}\`` : `"${literal.text}"`)).join(', ')}, but no file it changed (${files.slice(0, 5).join(', ')}) contains ${absent.length > 1 ? 'them' : 'it'}${absent.some((literal) => texts.some(({ text }) => containsLiteral(text, literal))) ? ' where code reads it (comments, test files and unasked docs do not count)' : ''}.`,
        ),
      );
  }

  findings.push(...exactContentFindings(env), ...(await unwiredFindings(env)));

  // Code asked to be removed by name ("Remove the `legacyAuth` function"): gone from the code,
  // not commented out or renamed.
  for (const removal of askedRemovals(env.description)) {
    // "Remove all `console.log` calls (from src/)": every code file that has it, not only the
    // ones the step changed.
    const everywhere =
      removal.files.length === 0 && removal.everywhere === true
        ? await env
            .git(['grep', '-l', '-F', '-e', removal.name])
            .then((result) =>
              result.exitCode === 0
                ? result.stdout
                    .split('\n')
                    .filter(
                      (file) =>
                        file !== '' &&
                        renameReaches(file) &&
                        (removal.folder === undefined || file.startsWith(`${removal.folder}/`)),
                    )
                : [],
            )
        : [];
    const targets =
      removal.files.length > 0
        ? removal.files.flatMap((file) => facts.relative(file) ?? [])
        : [...new Set([...known.modified, ...everywhere])];
    for (const file of targets) {
      const after = facts.read(file);
      const before = after === undefined ? undefined : await changes.textBefore(file);
      if (after === undefined || before === undefined) continue;
      const problem = await removalProblem(file, removal.name, before, after, {
        usesOnly: removal.usesOnly === true,
      });
      if (problem !== undefined)
        findings.push(outcome('fail', `The step was asked to remove \`${removal.name}\`, but ${problem}.`));
    }
  }

  // A rename asked for ("Rename `fetchUser` to `getUser` across the codebase"): the old name must
  // be gone from the code it reaches, not renamed in one file of many.
  const rename = expectations.outcomes.has('write') ? askedRename(env.description) : undefined;
  if (rename !== undefined) {
    const scope =
      rename.files.length > 0
        ? rename.files.flatMap((file) => facts.relative(file) ?? [])
        : [
            ...new Set([
              ...known.created,
              ...known.modified,
              ...(await env
                .git(['grep', '-l', '-w', '-F', '-e', rename.from])
                .then((result) =>
                  result.exitCode === 0 ? result.stdout.split('\n').filter((line) => line !== '') : [],
                )),
            ]),
          ];
    const left: string[] = [];
    for (const file of scope.filter(renameReaches)) {
      const text = facts.read(file);
      const line = text === undefined ? undefined : await oldNameLine(file, text, rename.from);
      if (line !== undefined) left.push(`${file}:${line}`);
    }
    if (left.length > 0)
      findings.push(
        outcome(
          'fail',
          `The step was asked to rename \`${rename.from}\` to \`${rename.to}\`${rename.files.length > 0 ? ` in ${rename.files.join(', ')}` : ''}, but the old name is still code in ${left.slice(0, 5).join(', ')}${left.length > 5 ? ` and ${left.length - 5} more` : ''}.`,
        ),
      );
  }

  // A fact the step was asked to check ("Check that src/a.js exports `double`"): its success says
  // yes, so the fact must hold.
  for (const fact of askedFacts(env.description)) {
    const file = facts.relative(fact.file);
    const text = file !== undefined ? facts.read(file) : undefined;
    if (file === undefined || text === undefined) {
      if (file !== undefined && !facts.exists(file))
        findings.push(outcome('fail', `The step was asked to check ${fact.file}, which does not exist.`));
      continue;
    }
    if (fact.kind === 'text') {
      if (!containsLiteral(text, { text: fact.text, code: false }))
        findings.push(
          outcome(
            'fail',
            `The step was asked to check that ${file} contains "${fact.text}", but it does not.`,
          ),
        );
      continue;
    }
    if (!canFindSymbols(file)) continue;
    const found = await findSymbol({ fileName: file, text, name: fact.name, kind: 'any' });
    if (found === undefined || (fact.exported && !found.exported))
      findings.push(
        outcome(
          'fail',
          `The step was asked to check that ${file} ${fact.exported ? 'exports' : 'declares'} ${fact.name}, but ${found === undefined ? 'it declares no such name' : `${fact.name} (line ${found.line}) is not exported`}.`,
        ),
      );
  }

  const refs = changes.refs();
  /** A failing finding when the step's commits record no change (and an empty one was not asked for). */
  const emptyCommit = async (from: string | undefined, to: string): Promise<Finding | undefined> => {
    if (EMPTY_COMMIT_ASKED.test(env.description)) return undefined;
    if ((await commitCarriesChange(from, to, env.git)) !== false) return undefined;
    return outcome(
      'fail',
      `The step was asked to ${NOUN.commit}, but its commit ${to.slice(0, 12)} records no change${from === undefined ? '' : ' since the step started'} (an empty commit, a message-only amend or old work re-committed).`,
    );
  };
  // Asked to commit: what the step wrote (or the description names) must be in the commit, not
  // left in the working tree ("Change a and b, then commit both" → `git add a`, commit).
  const uncommitted = async (): Promise<Finding | undefined> => {
    const named = new Set(
      [...expectations.create, ...expectations.change, ...expectations.changeEach, ...expectations.remove]
        .map((file) => facts.relative(file))
        .filter((file) => file !== undefined),
    );
    const files = [...new Set([...known.created, ...known.modified, ...known.deleted])].filter(
      (file) => own(file) && (named.has(file) || ledger.written.has(file)),
    );
    if (files.length === 0) return undefined;
    const status = await env.git(['status', '--porcelain', '--untracked-files=all', '--', ...files]);
    if (status.exitCode !== 0) return undefined;
    const left = status.stdout
      .split('\n')
      .map((line) => line.slice(3).trim())
      .filter((line) => line !== '');
    if (left.length === 0) return undefined;
    return outcome(
      'fail',
      `The step was asked to ${NOUN.commit}, but its changes to ${left.slice(0, 5).join(', ')} are not committed (still in the working tree).`,
    );
  };
  if (expectations.outcomes.has('commit')) {
    const left = refs.after === undefined ? undefined : await uncommitted();
    if (left !== undefined) findings.push(left);
    if (refs.after === undefined)
      findings.push(
        outcome('fail', `The step was asked to ${NOUN.commit}, but the workspace is not a git repository.`),
      );
    else if (refs.before !== undefined)
      findings.push(
        refs.after.head !== undefined && refs.after.head !== refs.before.head
          ? ((await emptyCommit(refs.before.head, refs.after.head)) ??
              outcome(
                'pass',
                `The step was asked to ${NOUN.commit}: HEAD moved to ${refs.after.head.slice(0, 12)}.`,
              ))
          : outcome(
              'fail',
              `The step was asked to ${NOUN.commit}, but HEAD did not move since the step started.`,
            ),
      );
    else {
      const committed = ledger.commands.some(
        (entry) =>
          entry.run.passed && /^git$/.test(entry.run.argv[0] ?? '') && entry.run.argv.includes('commit'),
      );
      const made = commitsMadeByStep(ledger);
      if (made.length > 0 && refs.after.head !== undefined) {
        const kept = await stepCommitInHead(made, refs.after.head, env.git);
        findings.push(
          kept !== undefined
            ? ((await emptyCommit(undefined, kept)) ??
                outcome('pass', `The step was asked to ${NOUN.commit}: HEAD contains ${kept}, its commit.`))
            : outcome(
                'fail',
                `The step was asked to ${NOUN.commit}, but its commit${made.length > 1 ? 's' : ''} ${made.join(', ')} ${made.length > 1 ? 'are' : 'is'} not in HEAD's history (reset away or on another branch).`,
              ),
        );
      } else
        findings.push(
          committed
            ? (refs.after.head !== undefined && (await emptyCommit(undefined, refs.after.head))) ||
                outcome('pass', `The step was asked to ${NOUN.commit}: \`git commit\` exited 0.`)
            : outcome('fail', `The step was asked to ${NOUN.commit}, but no \`git commit\` succeeded.`),
        );
    }
  }
  if (expectations.outcomes.has('push')) {
    const moved =
      refs.before !== undefined && refs.after !== undefined
        ? [...refs.after.refs].filter(
            ([ref, commit]) => ref.startsWith('refs/remotes/') && refs.before?.refs.get(ref) !== commit,
          )
        : [];
    const pushed =
      ledger.commands.some(
        (entry) => entry.run.passed && entry.run.argv[0] === 'git' && entry.run.argv.includes('push'),
      ) ||
      ledger.calls.some(
        (call) => call.kind === 'other' && call.call.status === 'success' && /push/i.test(call.call.tool),
      );
    findings.push(
      moved.length > 0 || (refs.before === undefined && pushed)
        ? outcome(
            'pass',
            `The step was asked to ${NOUN.push}: ${moved.length > 0 ? moved.map(([ref]) => ref.replace('refs/remotes/', '')).join(', ') : '`git push`'} moved.`,
          )
        : outcome('fail', `The step was asked to ${NOUN.push}, but no remote ref moved.`),
    );
  }
  if (expectations.outcomes.has('branch')) {
    const created =
      refs.after !== undefined
        ? [...refs.after.refs.keys()].filter(
            (ref) =>
              ref.startsWith('refs/heads/') &&
              (refs.before === undefined ? false : !refs.before.refs.has(ref)),
          )
        : [];
    const branched = ledger.commands.some(
      (entry) =>
        entry.run.passed &&
        entry.run.argv[0] === 'git' &&
        /^(?:branch|checkout|switch)$/.test(entry.run.argv[1] ?? ''),
    );
    findings.push(
      created.length > 0 || (refs.before === undefined && branched)
        ? outcome(
            'pass',
            `The step was asked to ${NOUN.branch}: ${created.map((ref) => ref.replace('refs/heads/', '')).join(', ') || 'a git branch command exited 0'}.`,
          )
        : outcome('fail', `The step was asked to ${NOUN.branch}, but no new branch exists.`),
    );
    // Without a baseline: the branches the step's own git commands created, and its commits.
    if (
      refs.before === undefined &&
      expectations.outcomes.has('commit') &&
      COMMIT_ON_NEW_BRANCH.test(env.description)
    ) {
      const branches = ledger.commands.flatMap((entry) => {
        const [program, verb, ...rest] = entry.run.argv;
        if (!entry.run.passed || program !== 'git') return [];
        const operands = rest.filter((arg) => !arg.startsWith('-'));
        if (verb === 'branch' && rest.every((arg) => !arg.startsWith('-')) && operands[0] !== undefined)
          return [operands[0]];
        if (
          (verb === 'checkout' && rest.includes('-b')) ||
          (verb === 'switch' && (rest.includes('-c') || rest.includes('--create')))
        )
          return operands[0] !== undefined ? [operands[0]] : [];
        return [];
      });
      const made = commitsMadeByStep(ledger);
      if (branches.length > 0 && made.length > 0) {
        let onBranch = false;
        for (const branch of branches)
          for (const commit of made)
            if (!onBranch && (await env.git(['merge-base', '--is-ancestor', commit, branch])).exitCode === 0)
              onBranch = true;
        if (!onBranch)
          findings.push(
            outcome(
              'fail',
              `The step was asked to commit on the new branch ${branches.join(', ')}, but its commit ${made.join(', ')} is not on it.`,
            ),
          );
      }
    }
    // "Create a branch X and commit … on it": the step's new commit must be on the new branch.
    const before = refs.before?.head;
    const after = refs.after?.head;
    if (
      expectations.outcomes.has('commit') &&
      COMMIT_ON_NEW_BRANCH.test(env.description) &&
      created.length > 0 &&
      before !== undefined &&
      after !== undefined &&
      after !== before
    ) {
      // A new branch still at the commit the step started from does not hold the step's commit;
      // one elsewhere holds it when HEAD's commit is its ancestor (asked of git, when it can be).
      const tips = created.map((ref) => refs.after?.refs.get(ref));
      let onBranch = tips.some((tip) => tip === after);
      for (const tip of tips) {
        if (onBranch || tip === undefined || tip === before) continue;
        if ((await env.git(['merge-base', '--is-ancestor', after, tip])).exitCode === 0) onBranch = true;
      }
      if (!onBranch)
        findings.push(
          outcome(
            'fail',
            `The step was asked to commit on the new branch ${created.map((ref) => ref.replace('refs/heads/', '')).join(', ')}, but its commit ${after.slice(0, 12)} is not on it (it is on ${refs.after?.branch ?? 'a detached HEAD'}).`,
          ),
        );
    }
  }

  if (expectations.outcomes.has('tag')) {
    const tagCommandPassed = ledger.commands.some(
      (entry) => entry.run.passed && isTagCommand(entry.run.argv),
    );
    for (const tag of expectations.tags) {
      const checked = await checkTag(tag, {
        refs,
        tagCommandPassed,
        git: env.git,
      });
      const asked = `${tag.action === 'create' ? 'create' : 'delete'} the git tag${tag.name !== undefined ? ` ${tag.name}` : ''}${tag.target !== undefined ? ` on ${tag.target}` : ''}`;
      findings.push(
        outcome(
          checked.status,
          checked.status === 'pass'
            ? `The step was asked to ${asked}: ${checked.message}.`
            : `The step was asked to ${asked}, but ${checked.message}.`,
        ),
      );
    }
  }

  findings.push(...(await gitOperationFindings(env)));

  // "Make the port configurable: read it from the environment" asks the program to read, not the step.
  if (expectations.outcomes.has('read') && askedConfig(env.description) === undefined) {
    findings.push(
      ledger.readCount > 0
        ? outcome(
            'pass',
            `The step was asked to ${NOUN.read}: ${ledger.readCount} read call(s) succeeded${ledger.read.size > 0 ? ` (${[...ledger.read.keys()].slice(0, 5).join(', ')})` : ''}.`,
          )
        : outcome('fail', `The step was asked to ${NOUN.read}, but no read call succeeded.`),
    );
  }
  return findings;
}

/** Words that ask to put earlier content back: then a file at an older version is the ask. */
const ROLLBACK_ASKED =
  /\b(?:revert\w*|undo\w*|undid|restor\w*|roll\w*\s*back|rollback|reset\w*|back\s*out|go\s+back|previous\s+version|old\s+version|earlier\s+version|downgrad\w*|cherry-?pick\w*|rebas\w*|merg\w*|checkout|check\s+out)\b|回滚|还原|撤销|元に戻/iu;

/** Whether two texts share a word of four letters or more (`feature` in "feat: feature flag"). */
function sharesWords(a: string, b: string): boolean {
  const words = (text: string) => new Set(text.toLowerCase().match(/\p{L}{4,}/gu) ?? []);
  const theirs = words(b);
  return [...words(a)].some((word) => theirs.has(word));
}

/**
 * A failing finding when the step put a file it was not asked about back to the content an
 * earlier commit gave it (`git checkout HEAD~1 -- src/app.js` slipped into "add a changelog entry
 * and commit it"): it undid earlier work nobody asked it to touch. Files the description names,
 * work whose commit subject shares a word with the description ("Disable the feature flag" and
 * "feat: feature flag"), and descriptions that ask to revert, restore or roll back anything, are
 * not judged.
 */
async function rolledBackFinding(
  env: OutcomeEnvironment,
  modified: readonly string[],
): Promise<Finding | undefined> {
  if (modified.length === 0 || ROLLBACK_ASKED.test(env.description)) return undefined;
  const head = env.changes.refs().before?.head;
  if (head === undefined) return undefined;
  const named = new Set(findPaths(env.description).flatMap((found) => env.facts.relative(found.file) ?? []));
  const base = (file: string) => file.split('/').at(-1) ?? file;
  const namedBases = new Set([...named].map(base));
  const undone: string[] = [];
  for (const file of modified.slice(0, 20)) {
    if (named.has(file) || namedBases.has(base(file))) continue;
    const log = await env.git(['log', '--format=%H%x09%s', '-n', '20', head, '--', file]);
    if (log.exitCode !== 0) continue;
    // The first commit listed made the content the step started from; the others, older ones.
    const older = log.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split('\t') as [string, string?]);
    const [latest, latestSubject] = log.stdout.trim().split('\n')[0]?.split('\t') ?? [];
    // "Disable the feature flag" may well undo "feat: feature flag": the ask is about that work.
    if (sharesWords(latestSubject ?? '', env.description)) continue;
    for (const [commit, subject] of older) {
      if (commit === '' || (await env.git(['diff', '--quiet', commit, '--', file])).exitCode !== 0) continue;
      undone.push(
        `${file} is back to its content of ${commit.slice(0, 12)} (${excerpt(subject ?? '', 40)}), undoing ${latest?.slice(0, 12)} (${excerpt(latestSubject ?? '', 40)})`,
      );
      break;
    }
  }
  if (undone.length === 0) return undefined;
  return outcome(
    'fail',
    `The step rolled back earlier work it was not asked to touch: ${undone.slice(0, 3).join('; ')}.`,
  );
}

/**
 * Merges, reverts and stashes the description asks for ({@link askedGitOperations}), judged on the
 * repository: they leave no file of their own to check.
 */
async function gitOperationFindings(env: OutcomeEnvironment): Promise<Finding[]> {
  const findings: Finding[] = [];
  for (const operation of askedGitOperations(env.description)) {
    const checked = await checkGitOperation(operation, { refs: env.changes.refs(), git: env.git });
    if (checked === undefined) continue;
    const asked =
      operation.kind === 'merge'
        ? `merge ${operation.branch}${operation.into !== undefined ? ` into ${operation.into}` : ''}`
        : operation.kind === 'stash'
          ? 'stash the changes'
          : `revert ${operation.subject !== undefined ? `"${operation.subject}"` : (operation.hash ?? 'the last commit')}`;
    findings.push(
      outcome(
        checked.status,
        checked.status === 'pass'
          ? `The step was asked to ${asked}: ${checked.message}.`
          : `The step was asked to ${asked}, but ${checked.message}.`,
      ),
    );
  }
  return findings;
}

/**
 * A failing finding when the step changed a file whose name matches one the description names at
 * another path (`config/db.js` for `src/config/db.js`) and left the named one unchanged.
 */
function namesakeFinding(env: OutcomeEnvironment, mine: readonly string[]): Finding | undefined {
  const named = findPaths(env.description).flatMap((found) => env.facts.relative(found.file) ?? []);
  const base = (file: string) => file.split('/').at(-1) ?? file;
  const wrong = mine.flatMap((file) => {
    if (named.includes(file)) return [];
    // A path with a folder that exists: a bare `index.js` may mean any of them.
    const meant = named.find(
      (other) =>
        other.includes('/') &&
        other !== file &&
        base(other) === base(file) &&
        !mine.includes(other) &&
        env.facts.isFile(other),
    );
    return meant === undefined ? [] : [`${file} (the description names ${meant})`];
  });
  if (wrong.length === 0) return undefined;
  return outcome(
    'fail',
    `The step changed ${wrong.slice(0, 3).join(', ')}: a file of the same name at another path, not the one asked for.`,
  );
}

/** A retry named as a setting ("the retry limit", "retry count"). */
const RETRY_SETTING =
  /\b(?:max(?:imum)?\s+)?retr(?:y|ies)\s+(?:limit|count|attempts|delay|interval|timeout|budget|policy|setting|number|backoff)\b|\b(?:number|count)\s+of\s+retries\b/i;

/** A failing finding when a retry was asked and the step's code changes add no retry machinery. */
/**
 * A coverage the description asks for ("to at least 90%") that no command of the step showed: no
 * coverage report in any run's output, or a total below the one asked.
 */
function coverageFinding(env: OutcomeEnvironment): Finding | undefined {
  const asked = askedCoverage(env.description);
  if (asked === undefined) return undefined;
  const shown = shownCoverage(
    env.ledger.commands.filter((entry) => entry.ran).map((entry) => entry.run.output),
  );
  if (shown !== undefined && shown >= asked) return undefined;
  return outcome(
    'fail',
    shown === undefined
      ? `The step was asked for ${asked}% coverage, but none of its commands measured coverage: the figure is not shown by any run.`
      : `The step was asked for ${asked}% coverage, but its coverage run shows ${shown}%.`,
  );
}

async function retryFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  // "Make the retry limit configurable" asks for a setting, not for a retry.
  if (
    !retryAsked(env.description) ||
    (askedConfig(env.description) !== undefined && RETRY_SETTING.test(env.description))
  )
    return undefined;
  const files = await changedTexts(env, known, (file) => own(file) && env.ledger.written.has(file));
  const added = await addsRetry(files);
  if (added !== false) return undefined;
  return outcome(
    'fail',
    `The step was asked to retry, but its changes to ${files
      .map((entry) => entry.file)
      .slice(0, 3)
      .join(
        ', ',
      )} add no loop, retry helper or decorator (a loop whose handler only rethrows stops at the first failure): the operation still runs once.`,
  );
}

/**
 * Files the step created or modified that it left with syntax errors (see {@link brokenByStep}):
 * whatever the notes claim about them, the module does not load.
 */
/**
 * Settings the step wrote that a later entry of the same key in the same object, section or list
 * item overrides (readers keep the last one): the file shows the new value, the program runs on
 * the old one.
 */
async function shadowedFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const found: string[] = [];
  for (const file of [...known.created, ...known.modified].filter(own)) {
    if (!readsSettingsOf(file)) continue;
    const after = env.facts.read(file);
    if (after === undefined) continue;
    const before = known.created.includes(file) ? undefined : await env.changes.textBefore(file);
    if (before === undefined && !known.created.includes(file)) continue;
    for (const shadowed of await shadowedSettings(file, before, after))
      found.push(
        `${file}:${shadowed.line} sets \`${excerpt(shadowed.added, 60)}\`, but a later \`${excerpt(shadowed.winner, 60)}\` in the same place overrides it`,
      );
  }
  if (found.length === 0) return undefined;
  return outcome(
    'fail',
    `The step wrote settings that never take effect: ${found.slice(0, 3).join('; ')} (the last entry of a key wins).`,
  );
}

/**
 * Settings the description asks to set to a value ("Set timeout to 30 in config.yaml") that the
 * entry a reader takes does not hold: the value only in a comment, or under the same key nested
 * elsewhere while the one the program reads keeps its old value, or under another table or
 * section than the one asked ("port in the [server] table", "database.pool"). A settings file the
 * sentence names that has no entry of the key at all, nor a key that may spell it otherwise
 * (`TIMEOUT_SECONDS` for `timeout`), does not hold it either: "set timeout to 30 and retries to
 * 5 in config.yaml" with only the timeout written.
 */
async function settingValueFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const wrong: string[] = [];
  for (const { key, value, files, parents, typed } of askedSettingValues(env.description)) {
    const named = files.length > 0;
    const targets = named ? files : [...known.created, ...known.modified].filter(own);
    const seen: string[] = [];
    const missing: string[] = [];
    let held = false;
    for (const file of targets) {
      const text = env.facts.read(file);
      if (text === undefined) continue;
      const actual = await settingValue(file, text, key, parents);
      if (actual === undefined) continue;
      if (actual === null) {
        if (named && (await mentionsKey(file, text, key)) === false) missing.push(file);
        continue;
      }
      if (actual.elsewhere !== undefined) {
        const where = actual.elsewhere === '' ? 'at the top level' : `under \`${actual.elsewhere}\``;
        seen.push(
          `${file}:${actual.line} has it only ${where}, not under \`${[...(parents ?? []), ...key.split('.').slice(0, -1)].join('.')}\``,
        );
        continue;
      }
      // `"strict": "true"` asked as `true`: the text, not the boolean the tool reads.
      if (isAskedValue(actual.value, value) && typed && actual.quoted && TYPED_SETTINGS_FILE.test(file)) {
        seen.push(
          `${file}:${actual.line} sets it to the text "${excerpt(actual.value, 40)}", not the value ${value}`,
        );
        continue;
      }
      if (isAskedValue(actual.value, value)) {
        held = true;
        break;
      }
      seen.push(`${file}:${actual.line} sets it to \`${excerpt(actual.value, 40)}\``);
    }
    if (held) continue;
    if (seen.length > 0) wrong.push(`\`${key}\` to \`${value}\`, but ${seen.slice(0, 2).join(' and ')}`);
    else if (missing.length > 0)
      wrong.push(
        `\`${key}\` to \`${value}\`, but ${missing.slice(0, 2).join(' and ')} has no \`${key}\` entry`,
      );
  }
  if (wrong.length === 0) return undefined;
  return outcome(
    'fail',
    `The step was asked to set ${wrong.slice(0, 3).join('; ')} (a value in a comment or under another parent is not read).`,
  );
}

/**
 * Settings the step put in a place their tool does not read: a compiler option at the top level
 * of tsconfig.json, a script asked for outside `scripts`, a dependency in another section than
 * the one asked.
 */
async function misplacedFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const found: string[] = [];
  for (const file of [...known.created, ...known.modified].filter(own)) {
    if (!readsPlacementOf(file)) continue;
    const after = env.facts.read(file);
    if (after === undefined) continue;
    const before = known.created.includes(file) ? undefined : await env.changes.textBefore(file);
    found.push(...misplacedSettings(env.description, file, before, after));
  }
  if (found.length === 0) return undefined;
  return outcome(
    'fail',
    `The step put settings where their tool does not read them: ${found.slice(0, 3).join('; ')}.`,
  );
}

/**
 * A function asked to become async whose definition in the files the step changed is still
 * synchronous (a doc comment, a name or a body change does not make it async).
 */
async function asyncFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const names = asyncAsked(env.description);
  if (names.length === 0) return undefined;
  const files = [...known.created, ...known.modified].filter(own);
  const still: string[] = [];
  for (const name of names) {
    const where: string[] = [];
    let isAsync = false;
    for (const file of files) {
      const text = env.facts.read(file);
      if (text === undefined) continue;
      const how = await asyncDefinition(file, text, name);
      if (how === 'async') isAsync = true;
      else if (how === 'sync') where.push(file);
    }
    if (!isAsync && where.length > 0) still.push(`\`${name}\` in ${where.slice(0, 2).join(', ')}`);
  }
  if (still.length === 0) return undefined;
  return outcome(
    'fail',
    `The step was asked to make a function async, but ${still.join('; ')} ${still.length > 1 ? 'are' : 'is'} still defined without \`async\`.`,
  );
}

/**
 * Tool configuration the step created under a variant name (`tsconfig.strict.json`) that nothing
 * loads: no other file of the workspace names it, and the description did not ask for that file.
 */
async function unloadedConfigFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const named = new Set(findPaths(env.description).flatMap((found) => env.facts.relative(found.file) ?? []));
  const unloaded: string[] = [];
  for (const file of known.created.filter(own)) {
    const base = file.slice(file.lastIndexOf('/') + 1);
    if (!isVariantConfig(file) || named.has(file) || env.description.includes(base)) continue;
    if (configNamed(file, nearbyTexts(env.facts, file))) continue;
    const result = await env.git(['grep', '-l', '--untracked', '-F', '-e', base]);
    if (result.exitCode === 0 && result.stdout.split('\n').some((other) => other !== '' && other !== file))
      continue;
    unloaded.push(file);
  }
  if (unloaded.length === 0) return undefined;
  return outcome(
    'fail',
    `The step wrote tool configuration to ${unloaded.slice(0, 3).join(', ')}, which no other file names: the tool loads only its default file unless told, so the setting takes no effect.`,
  );
}

async function brokenSyntaxFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const files = await Promise.all(
    [...known.created, ...known.modified].filter(own).map(async (file) => {
      const created = known.created.includes(file);
      return {
        file,
        created,
        before: created ? undefined : await env.changes.textBefore(file),
        after: env.facts.read(file) ?? '',
      };
    }),
  );
  const broken = await brokenByStep(files.filter((entry) => env.facts.read(entry.file) !== undefined));
  if (broken.length === 0) return undefined;
  return outcome(
    'fail',
    `The step left ${broken
      .slice(0, 3)
      .map((entry) => `${entry.file} with syntax errors (${entry.errors.slice(0, 2).join('; ')})`)
      .join(', ')}: the code does not parse, so what it claims about that code cannot hold.`,
    'P1',
    { file: broken[0]?.file ?? '' },
  );
}

/**
 * The step's own created and modified files that `keep` keeps, with their text when the step
 * started (`undefined` for a created one) and now; a modified file whose earlier text is unknown
 * is left out (nothing to compare).
 */
/**
 * Files the step created or modified whose functions now ask whether a test runner runs them
 * (see {@link testAwareCode}): the tests exercise a branch real callers never take.
 */
async function testAwareFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const files = await changedTexts(env, known, own);
  const aware = await testAwareCode(files, {
    modes: env.expectations.fix || env.expectations.outcomes.has('test'),
  });
  if (aware.length === 0) return undefined;
  return outcome(
    'fail',
    `The step made code behave differently under a test runner: ${aware
      .slice(0, 3)
      .map(
        (entry) =>
          `${entry.file} checks ${entry.checks
            .slice(0, 2)
            .map((check) => `\`${check}\``)
            .join(', ')}`,
      )
      .join('; ')} inside a function, so the tests exercise a branch that real callers never take.`,
    'P1',
    { file: aware[0]?.file ?? '' },
  );
}

/**
 * package.json files the step changed whose check scripts now exit 0 whatever happens (see
 * {@link neuteredScripts}), or preload a file of the workspace: a pass of `npm run build` proves
 * nothing after that.
 */
async function neuteredScriptFinding(
  env: OutcomeEnvironment,
  known: { modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const found: string[] = [];
  for (const file of known.modified.filter((file) => own(file) && /(?:^|\/)package\.json$/.test(file)))
    for (const script of neuteredScripts(await env.changes.textBefore(file), env.facts.read(file)))
      found.push(
        `\`${script.name}\` in ${file} (${script.was === '' ? `added: \`${script.now}\`` : `\`${script.was}\` → \`${script.now}\``})`,
      );
  if (found.length === 0) return undefined;
  return outcome(
    'fail',
    `The step rewrote check script(s) so they exit 0 whatever happens, or run code of the workspace first or around them that can rewrite their result: ${found.slice(0, 3).join(', ')}; running them proves nothing.`,
  );
}

/** A failing finding when the step added suppression directives to files it changed. */
async function suppressionFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const files = await changedTexts(env, known, own);
  const added = addedSuppressions(files);
  if (added.length === 0) return undefined;
  return outcome(
    'fail',
    `The step was asked to fix errors, but it silenced them: it added ${added
      .slice(0, 3)
      .map((entry) => `${entry.added} suppression directive(s) to ${entry.file}`)
      .join(
        ', ',
      )} (\`@ts-ignore\`, \`eslint-disable\`, \`# noqa\`, …), so the checker no longer reports what was not fixed.`,
  );
}

/**
 * A failing finding when every file the step changed is generated (build output with its source
 * in the workspace, a lockfile, a file marked generated), written by its own file tools, and the
 * description did not ask for those files.
 */
async function generatedFinding(
  env: OutcomeEnvironment,
  mine: readonly string[],
): Promise<Finding | undefined> {
  if (mine.length === 0 || !mine.every((file) => env.ledger.written.has(file))) return undefined;
  const changed = mine.map((file) => ({ file, text: env.facts.read(file) }));
  const kinds = changed.map(({ file, text }) => generatedKind(file, text));
  // Most steps change ordinary files: the workspace's file list (one git command) is read only
  // when every changed file is generated and one is build output, whose source it looks for.
  if (kinds.includes(undefined)) return undefined;
  const tracked = kinds.includes('build output')
    ? await env
        .git(['ls-files', '--cached', '--others', '--exclude-standard'])
        .then((result) =>
          result.exitCode === 0 ? result.stdout.split('\n').filter((line) => line !== '') : [],
        )
    : [];
  const found = generatedInsteadOfSource(env.description, changed, tracked);
  if (found.length === 0) return undefined;
  return outcome(
    'fail',
    `The step edited only generated files — ${found.slice(0, 3).join(', ')} — not the source they are built from: the next build or install overwrites the change.`,
  );
}

/**
 * A failing finding when error handling was asked for and every handler the step added swallows
 * the error: empty, or (unless logging was asked) only logging and carrying on.
 */
async function swallowedFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  if (!handlingAsked(env.description)) return undefined;
  const files = await changedTexts(env, known, own);
  const swallowed = await swallowedErrors(files, { logIsHandling: loggingAsked(env.description) });
  if (swallowed.files.length === 0) return undefined;
  return outcome(
    'fail',
    `The step was asked to handle errors, but every handler it added in ${swallowed.files.slice(0, 3).join(', ')} ${swallowed.logged ? 'only logs the error (or is empty) and carries on' : 'is empty'}: errors are swallowed, not handled.`,
  );
}

/**
 * A failing finding when the step created a module of a kind a program registers (a migration, a
 * route, a plugin, a command) beside siblings that one file lists by name, and left it out of
 * that list: nothing loads it.
 */
async function unregisteredFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  if (!registrationAsked(env.description)) return undefined;
  const created = known.created.filter(own);
  if (created.length === 0) return undefined;
  const left = await unregisteredModules({
    root: env.facts.root,
    created,
    changed: known.modified.filter(own),
    read: (file) => env.facts.read(file),
  });
  if (left.length === 0) return undefined;
  return outcome(
    'fail',
    `The step added ${left
      .slice(0, 3)
      .map(
        (entry) =>
          `${entry.file}, but ${entry.registry} lists its siblings (${entry.listed.slice(0, 4).join(', ')}${entry.listed.length > 4 ? ', …' : ''}) and not it`,
      )
      .join('; ')}: nothing registers it, so the program never loads it.`,
  );
}

/**
 * A failing finding when the step was asked to turn a named flag on and every place that sets it
 * — the files the step changed or the description names, and (with git) the workspace's files
 * that name it, tests and docs aside — leaves it off: `false`, `0`, `off`, or on only when an env
 * var says so.
 */
async function flagFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const flags = flagsAskedOn(env.description);
  if (flags.length === 0) return undefined;
  const mine = [...known.created, ...known.modified].filter(own);
  if (mine.length === 0) return undefined;
  const named = findPaths(env.description).flatMap((found) => env.facts.relative(found.file) ?? []);
  const counts = (file: string) =>
    !TEST_FILE.test(file) && !/\.(?:md|mdx|markdown|txt|rst|adoc)$/i.test(file);
  const off: string[] = [];
  for (const flag of flags) {
    const elsewhere = await env.git(['grep', '-l', '--untracked', '-w', '-F', '-e', flag]).then((result) =>
      result.exitCode === 0
        ? result.stdout
            .split('\n')
            .filter((file) => file !== '')
            .slice(0, 40)
        : [],
    );
    const files = [...new Set([...mine, ...named, ...elsewhere])].filter(counts);
    let setting: 'on' | 'off' | undefined;
    const where: string[] = [];
    for (const file of files) {
      const text = env.facts.read(file);
      const found = text === undefined ? undefined : await flagSetting(file, text, flag);
      if (found === 'on') {
        setting = 'on';
        break;
      }
      if (found === 'off') {
        setting = 'off';
        where.push(file);
      }
    }
    if (setting === 'off') off.push(`\`${flag}\` (${where.slice(0, 3).join(', ')})`);
  }
  if (off.length === 0) return undefined;
  return outcome(
    'fail',
    `The step was asked to turn on ${off.join(', ')}, but it is set off there (false, 0, off, or on only when an env var says so): the feature stays off by default.`,
  );
}

/** Keys a new settings file carries that describe the file, not a setting the code must read. */
const FILE_KEYS = /^(?:\$schema|\$id|version|name|description|comment|_comment)$/i;

/**
 * A failing finding when the step was asked to make something configurable and no code reads a
 * setting it names or the step added to a settings file (config.json, settings.yaml, `.env`): the
 * key or env var is in no code file (comments do not count), or only read into a variable that
 * nothing uses. The step's own code files are read first, then (with git) the workspace's. A pass
 * when every such setting is read and used.
 */
async function configFinding(
  env: OutcomeEnvironment,
  known: { created: readonly string[]; modified: readonly string[] },
  own: (file: string) => boolean,
): Promise<Finding | undefined> {
  const asked = askedConfig(env.description);
  if (asked === undefined) return undefined;
  const named = findPaths(env.description).flatMap((found) => env.facts.relative(found.file) ?? []);
  const mine = [...known.created, ...known.modified].filter(own);
  if (mine.length === 0)
    return outcome('fail', 'The step was asked to make a setting configurable, but it changed no file.');
  const names = new Map<string, string>();
  for (const name of [...asked.envVars, ...asked.keys]) names.set(name, 'the description');
  if (names.size === 0)
    for (const file of mine.filter((file) => isSettingsFile(file, named))) {
      const after = env.facts.read(file);
      const before = known.created.includes(file) ? undefined : await env.changes.textBefore(file);
      if (after === undefined || (before === undefined && !known.created.includes(file))) continue;
      for (const key of addedSettingKeys(file, before, after))
        if (!FILE_KEYS.test(key) && !names.has(key)) names.set(key, file);
    }
  if (names.size === 0) return undefined;
  const code = mine.flatMap((file) => {
    const text = isProgramFile(file) ? env.facts.read(file) : undefined;
    return text === undefined ? [] : [{ file, text }];
  });
  const unread: string[] = [];
  for (const [name, from] of names) {
    let how = await settingRead(name, code);
    // Settings classes read an env var by its field's name (pydantic's `api_timeout` for API_TIMEOUT).
    if (how === 'absent' && asked.envVars.includes(name) && name.includes('_'))
      how = await settingRead(name.toLowerCase(), code);
    if (how !== 'read') {
      const elsewhere = await env.git(['grep', '-l', '--untracked', '-w', '-F', '-e', name]).then((result) =>
        result.exitCode === 0
          ? result.stdout
              .split('\n')
              .filter((file) => file !== '' && isProgramFile(file) && !mine.includes(file))
              .slice(0, 50)
          : [],
      );
      const more = await settingRead(
        name,
        elsewhere.flatMap((file) => {
          const text = env.facts.read(file);
          return text === undefined ? [] : [{ file, text }];
        }),
      );
      if (more === 'read' || how === 'absent') how = more;
    }
    if (how === 'absent') unread.push(`\`${name}\` (from ${from}) is read by no code`);
    else if (how === 'dead') unread.push(`\`${name}\` (from ${from}) is read into a variable nothing uses`);
  }
  if (unread.length === 0)
    return outcome(
      'pass',
      `The step was asked to make a setting configurable: code reads and uses ${[...names.keys()]
        .slice(0, 4)
        .map((name) => `\`${name}\``)
        .join(', ')}.`,
    );
  return outcome(
    'fail',
    `The step was asked to make a setting configurable, but ${unread.slice(0, 4).join('; ')}: the program still runs on its old value.`,
  );
}

const GENERIC_TOOL_WORDS = new Set([
  'tool',
  'run',
  'do',
  'get',
  'set',
  'api',
  'call',
  'exec',
  'the',
  'a',
  'to',
  'of',
  'new',
  'data',
]);

function stem(word: string): string {
  return word
    .toLowerCase()
    .replace(/(?:ing|ed|es|s)$/, '')
    .slice(0, 6);
}

/**
 * Evidence from a custom tool (not a workspace file, read or command tool) whose name the step's
 * description spells out — "Charge the card" and a successful `charge`, "Send the welcome email"
 * and a successful `send_email`: the asked action ran, by the tool built for it.
 */
export function namedToolEvidence(
  expectations: StepExpectations,
  description: string,
  ledger: LedgerAnalysis,
): Finding | undefined {
  const words = new Set(
    description
      .slice(0, 400)
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word !== '')
      .map(stem),
  );
  for (const call of ledger.calls) {
    if (
      call.call.status !== 'success' ||
      call.kind === 'control' ||
      call.kind === 'read' ||
      call.kind === 'command'
    )
      continue;
    if (call.targets.length > 0) continue;
    const tokens = call.call.tool
      .split(/[_\-.\s]+|(?<=[a-z])(?=[A-Z])/)
      .map((token) => token.toLowerCase())
      .filter((token) => token.length >= 3 && !GENERIC_TOOL_WORDS.has(token));
    if (tokens.length === 0 || !tokens.every((token) => words.has(stem(token)))) continue;
    return outcome(
      'pass',
      `The step was asked to ${expectations.verbs[0]?.toLowerCase() ?? 'act'} (${description.slice(0, 80)}): the tool ${call.call.tool} it names succeeded (call ${call.call.callId}).`,
    );
  }
  return undefined;
}

/** Arguments that run only the tests whose names match (the rest are skipped or deselected). */
const NAME_FILTER =
  /^(?:--test-name-pattern|--test-skip-pattern|--testNamePattern|--grep|--fgrep|--deselect|--invert)(?:=|$)|^-(?:k|t|g|run)$|^-(?:k|t|g)\S/;

/** Whether a test command selects tests by name. */
function selectsTestsByName(argv: readonly string[]): boolean {
  return argv.slice(1).some((arg) => NAME_FILTER.test(arg));
}

/** A step asked to run the tests: it must have run a test command, and the tests must pass now. */
/** The description says its named command fails now: the command reproduces the bug to fix. */
const REPRODUCES =
  /\b(?:crash(?:es|ed|ing)?|throws?|threw|fails?|failing|failed|errors?\s+(?:out|with)|exits?\s+(?:with\s+)?(?:non-?zero|code\s+[1-9]|[1-9])|broken|breaks|panics?|traceback|exception|hangs?|segfaults?)\b|崩溃|报错|失败|クラッシュ|エラー|失敗/iu;

/**
 * A fix of a failing command the description names ("Fix the crash: `node src/cli.js` throws"):
 * the command is the reproduction, and only its exit 0 after the step's last change shows the
 * fix — run by the step after its change, or re-run now (policy permitting). Still failing: P1
 * fail; never run after the change and not re-runnable: unverified (`error`). Not judged when the
 * step was asked to run commands or tests (those outcomes judge the run), nor for descriptions
 * that do not say the command fails.
 */
async function reproductionOutcome(env: OutcomeEnvironment): Promise<Finding | undefined> {
  const { expectations, ledger } = env;
  if (!expectations.fix || expectations.outcomes.has('run') || expectations.outcomes.has('test'))
    return undefined;
  const argv = expectations.commands[0];
  if (argv === undefined || !REPRODUCES.test(env.description)) return undefined;
  const key = commandKey(argv);
  const label = `\`${argv.join(' ')}\``;
  const lastChange = Math.max(
    -1,
    ...ledger.calls
      .filter(
        (call) =>
          call.call.status === 'success' &&
          (call.kind === 'write' ||
            call.kind === 'delete' ||
            (call.kind === 'command' &&
              call.command !== undefined &&
              !call.command.exploratory &&
              call.command.key !== key)),
      )
      .map((call) => call.index),
  );
  if (lastChange < 0) return undefined; // no change: other checks judge a fix that did nothing
  const after = ledger.commands
    .filter((entry) => entry.ran && entry.run.key === key && entry.index > lastChange)
    .at(-1);
  if (after?.run.passed)
    return outcome(
      'pass',
      `The step was asked to fix ${label}, and ran it after its change: it exited 0 (call ${after.callId}).`,
    );
  if (after !== undefined)
    return outcome(
      'fail',
      `The step was asked to fix ${label}, but its run after the change ${after.run.exitCode === null ? 'did not finish' : `exited ${after.run.exitCode}`} (call ${after.callId}).`,
      'P1',
      {
        command: argv,
        exitCode: after.run.exitCode,
        output: excerpt(after.run.output, 1500),
        callId: after.callId,
      },
    );
  if (!(await env.allowCommand(argv)))
    return outcome(
      'error',
      `The step was asked to fix ${label}, but never ran it after its change, and the verifier may not run a command only the description names: nothing shows the failure is gone.`,
    );
  const result = await env.rerun(argv);
  const problem = commandProblem(result);
  if (problem === undefined && result.exitCode === 0)
    return outcome('pass', `The step was asked to fix ${label}: re-run now, it exits 0.`);
  return outcome(
    problem === undefined ? 'fail' : 'error',
    `The step was asked to fix ${label}, never ran it after its change, and re-run now it ${problem ?? `still exits ${result.exitCode}`}.`,
    'P1',
    { command: argv, exitCode: result.exitCode, output: excerpt(result.output, 1500) },
  );
}

async function testOutcome(env: OutcomeEnvironment): Promise<Finding | undefined> {
  const { ledger } = env;
  const runs = ledger.commands.filter((entry) => entry.ran && entry.run.test);
  const last = runs.at(-1);
  if (last === undefined && !env.expectations.runTests) {
    // Passing tests are the purpose of the step's work, not a run it was asked for: the verifier
    // runs the workspace's own test command (when there is one).
    const command = (await env.tooling()).commands.test?.argv;
    if (command === undefined || !(await env.allowCommand(command))) return undefined;
    const result = await env.rerun(command);
    const problem = commandProblem(result);
    if (problem !== undefined || (result.exitCode !== 0 && isMissingProgram(result)))
      return outcome(
        'error',
        `The step's work should make the tests pass, but \`${command.join(' ')}\` ${problem ?? 'could not start its program'}.`,
      );
    const judged = judgeTestClaim(result, ASKED_TESTS, undefined, 'make the tests pass');
    return {
      ...judged,
      check: 'outcome',
      message: judged.message.replace(
        /^Claim "(.*?)" (?:holds|is false)/,
        `The step's work should $1; \`${command.join(' ')}\``,
      ),
    };
  }
  if (last === undefined) {
    return outcome(
      'fail',
      `The step was asked to ${NOUN.test}, but no test command ran${
        ledger.commands.length > 0
          ? ` (it ran ${ledger.commands
              .map((entry) => `\`${entry.run.argv.join(' ')}\``)
              .slice(0, 3)
              .join(', ')})`
          : ''
      }.`,
    );
  }
  // A run narrowed to some tests by name (`-k`, `--test-name-pattern`, `-t`, `--grep`) does not
  // show that "the tests" pass: the workspace's own test command is judged instead.
  if (
    selectsTestsByName(last.run.argv) &&
    !env.expectations.commands.some((argv) => commandKey(argv) === last.run.key)
  ) {
    const command = (await env.tooling()).commands.test?.argv;
    if (command !== undefined && (await env.allowCommand(command))) {
      const result = await env.rerun(command);
      const problem = commandProblem(result);
      if (problem === undefined && !(result.exitCode !== 0 && isMissingProgram(result))) {
        const judged = judgeTestClaim(result, ASKED_TESTS, undefined, NOUN.test);
        return {
          ...judged,
          check: 'outcome',
          message: judged.message.replace(
            /^Claim "(.*?)" (?:holds|is false)/,
            `The step was asked to $1, but ran only the tests selected by name (\`${last.run.argv.join(' ')}\`); the workspace's \`${command.join(' ')}\``,
          ),
        };
      }
    }
  }
  const label = `${NOUN.test} (\`${last.run.argv.join(' ')}\`)`;
  if (await env.allowCommand(last.run.argv)) {
    const result = await env.rerun(last.run.argv);
    const problem = commandProblem(result);
    if (problem === undefined && !(result.exitCode !== 0 && isMissingProgram(result))) {
      const judged = judgeTestClaim(result, ASKED_TESTS, undefined, label);
      return {
        ...judged,
        check: 'outcome',
        message: judged.message.replace(
          /^Claim "(.*?)" (?:holds|is false)/,
          'The step was asked to $1; re-run',
        ),
      };
    }
    if (!last.run.passed) {
      return outcome(
        'fail',
        `The step was asked to ${label}: it exited ${last.run.exitCode ?? 'abnormally'} (call ${last.callId}), and the re-run ${problem ?? 'could not start its program'}.`,
      );
    }
    return outcome(
      'error',
      `The step was asked to ${label}: the re-run ${problem ?? 'could not start its program'}, so nothing confirms the tests pass.`,
    );
  }
  // The policy refuses a re-run: the ledger's own run (its exit code, its counts) is the evidence.
  const result: CommandResult = {
    argv: last.run.argv,
    exitCode: last.run.exitCode,
    signal: null,
    timedOut: false,
    aborted: false,
    stdout: last.run.output,
    output: last.run.output,
    truncated: false,
    durationMs: 0,
  };
  if (last.run.exitCode === null)
    return outcome(
      'fail',
      `The step was asked to ${label}, but the run did not finish (call ${last.callId}).`,
    );
  const judged = judgeTestClaim(result, ASKED_TESTS, undefined, label);
  return {
    ...judged,
    check: 'outcome',
    message: judged.message.replace(
      /^Claim "(.*?)" (?:holds|is false)/,
      `The step was asked to $1; its run (call ${last.callId})`,
    ),
  };
}
