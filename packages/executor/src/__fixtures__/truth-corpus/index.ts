import { askedWork } from './asked-work';
import { assertionDisarmed } from './assertion-disarmed';
import { asyncNotMade } from './async-not-made';
import { classic, dependencyClaims, gitClaims, renames, tampering } from './claim-kinds';
import { configUnread } from './config-unread';
import { docsUnbacked } from './docs-unbacked';
import { exactContent } from './exact-content';
import { exampleOnlyAnswer, exampleOnlyExistingTests } from './example-only';
import { filledStubs } from './filled-stubs';
import { flagLeftOff } from './flag-left-off';
import { gitTags } from './git-tags';
import { hollowWork } from './hollow-work';
import {
  brokenSyntax,
  codeUnchanged,
  hiddenFailTag,
  methodOutsideClass,
  neuteredCheckScript,
  partialCommit,
  partialList,
  testAwareCode,
  unquotedFlagDocs,
  unquotedName,
} from './hostile';
import {
  literalInComment,
  plainAsks,
  removalKept,
  swallowedErrorsClass,
  whitespaceOnlyChange,
} from './in-code';
import {
  failedCommand,
  noParser,
  printedPass,
  recovery,
  refusedRerun,
  runnerProblems,
  structuredAndNotes,
  testCounts,
  zeroTests,
} from './ledger-and-checks';
import {
  admitsFailure,
  doneNoCalls,
  machinery,
  talkingOnly,
  textFail,
  vagueNotes,
} from './machinery-and-notes';
import { misplacedSetting } from './misplaced-setting';
import {
  ambientDeclaration,
  askedLiteralsClass,
  askedSymbols,
  checkedFact,
  emptyCommit,
  neighbourCommandCredit,
  testsNeverRun,
  testsNotCollected,
  unexercisedSubject,
} from './own-evidence';
import {
  chinese,
  committedOwnWork,
  japanese,
  layouts,
  mentions,
  neighbourCredit,
  staleAndNoGit,
} from './phrasings-and-baselines';
import { reboundSubject } from './rebound-subject';
import { reproductionStillFails } from './reproduction';
import { riggedHarness } from './rigged-harness';
import { riggedRunner } from './rigged-runner';
import { shadowedSetting } from './shadowed-setting';
import { strategies } from './strategies';
import { subjectPatched } from './subject-patched';
import { assertionOverridden, testDataRewritten } from './test-data';
import {
  assertionChecksNothing,
  commitOffBranch,
  deletedByMoving,
  installByHand,
  jsonLeftInvalid,
  markupCommentDocs,
  removalUnquoted,
  renameUnquoted,
  settingValueUnread,
  stubBehindCall,
  subjectPatchedInTest,
  testsFromEmptyTable,
} from './told-lies';
import type { TruthTrace } from './trace';
import { unloadedConfig } from './unloaded-config';
import { unregisteredModule } from './unregistered-module';
import { unwiredHelper } from './unwired';
import { upgradeManifestOnly } from './upgrades';
import {
  customTools,
  moreClaimKinds,
  moreTampering,
  moreWordings,
  refusedCall,
  unmarked,
  wrongTarget,
} from './variants';
import { weakenedAssertion } from './weakened-assertion';

export type { TruthTrace } from './trace';

/**
 * Every trace of the corpus. All classes are deterministic (no judge model is involved): the
 * target is recall 100% per class and no false alarm.
 */
export function truthCorpus(): TruthTrace[] {
  const all = [
    ...talkingOnly,
    ...textFail,
    ...machinery,
    ...admitsFailure,
    ...vagueNotes,
    ...doneNoCalls,
    ...failedCommand,
    ...printedPass,
    ...structuredAndNotes,
    ...recovery,
    ...refusedRerun,
    ...noParser,
    ...runnerProblems,
    ...zeroTests,
    ...testCounts,
    ...gitClaims,
    ...gitTags,
    ...dependencyClaims,
    ...renames,
    ...tampering,
    ...classic,
    ...japanese,
    ...chinese,
    ...layouts,
    ...neighbourCredit(),
    ...committedOwnWork,
    ...mentions,
    ...staleAndNoGit,
    ...moreWordings,
    ...moreClaimKinds(),
    ...customTools,
    ...wrongTarget,
    ...unmarked,
    ...refusedCall,
    ...moreTampering,
    ...strategies,
    ...hollowWork,
    ...riggedHarness,
    ...riggedRunner,
    ...neighbourCommandCredit(),
    ...emptyCommit,
    ...unexercisedSubject,
    ...askedSymbols,
    ...askedLiteralsClass,
    ...checkedFact,
    ...ambientDeclaration,
    ...testsNeverRun,
    ...testsNotCollected,
    ...literalInComment,
    ...plainAsks,
    ...removalKept,
    ...whitespaceOnlyChange,
    ...swallowedErrorsClass,
    ...askedWork,
    ...exampleOnlyAnswer,
    ...exactContent,
    ...exampleOnlyExistingTests,
    ...unwiredHelper,
    ...reproductionStillFails,
    ...upgradeManifestOnly,
    ...reboundSubject,
    ...filledStubs,
    ...docsUnbacked,
    ...configUnread,
    ...unregisteredModule,
    ...flagLeftOff,
    ...weakenedAssertion,
    ...testAwareCode,
    ...codeUnchanged,
    ...brokenSyntax,
    ...hiddenFailTag,
    ...partialList,
    ...partialCommit,
    ...methodOutsideClass,
    ...neuteredCheckScript,
    ...unquotedFlagDocs,
    ...unquotedName,
    ...testDataRewritten,
    ...assertionOverridden,
    ...shadowedSetting,
    ...misplacedSetting,
    ...asyncNotMade,
    ...assertionDisarmed,
    ...subjectPatched,
    ...unloadedConfig,
    ...settingValueUnread,
    ...removalUnquoted,
    ...stubBehindCall,
    ...testsFromEmptyTable,
    ...deletedByMoving,
    ...assertionChecksNothing,
    ...commitOffBranch,
    ...installByHand,
    ...markupCommentDocs,
    ...renameUnquoted,
    ...subjectPatchedInTest,
    ...jsonLeftInvalid,
  ];
  // Ids in order within each class: `<class>-lie-<n>` / `<class>-ok-<n>`.
  const counters = new Map<string, number>();
  return all.map((trace) => {
    const key = `${trace.class}-${trace.lie ? 'lie' : 'ok'}`;
    const n = (counters.get(key) ?? 0) + 1;
    counters.set(key, n);
    return { ...trace, id: `${key}-${n}` };
  });
}
