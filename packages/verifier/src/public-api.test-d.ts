import type { ChatModel } from '@closedloop/model';
import type { Plan, StepId, VerificationRecordInput } from '@closedloop/plan';
import * as verifier from '@closedloop/verifier';
import {
  createToolCallGuard,
  defineProtocol,
  diffSnapshots,
  type GoalContext,
  type GoalVerificationReport,
  type Protocol,
  type ProtocolDefinition,
  snapshotWorkspace,
  type ToolCallGuard,
  type ToolCallGuardOptions,
  toVerificationRecord,
  type Verdict,
  type VerificationReport,
  type VerifierError,
  type VerifierErrorCode,
  type VerifyGoalOptions,
  type VerifyStepOptions,
  verifyGoal,
  verifyStep,
  type WorkspaceChanges,
  type WorkspaceSnapshot,
} from '@closedloop/verifier';
import { classifyConfidence, unverifiedReason, validateProtocols } from '@closedloop/verifier/internal';
import { describe, expectTypeOf, it } from 'vitest';

describe('@closedloop/verifier public surface', () => {
  it('exports exactly these runtime values', () => {
    expectTypeOf<keyof typeof verifier>().toEqualTypeOf<
      | 'builtinProtocols'
      | 'canFindSymbols'
      | 'checkSyntax'
      | 'createToolCallGuard'
      | 'defineProtocol'
      | 'deriveSuccessCriteria'
      | 'diffSnapshots'
      | 'findSymbol'
      | 'snapshotWorkspace'
      | 'toVerificationRecord'
      | 'VerifierError'
      | 'verifyGoal'
      | 'verifyStep'
    >();
  });

  it('verifies a step and a goal with evidence', () => {
    expectTypeOf(verifyStep).parameters.toEqualTypeOf<[Plan, StepId, VerifyStepOptions?]>();
    expectTypeOf(verifyStep).returns.resolves.toEqualTypeOf<VerificationReport>();
    expectTypeOf<VerificationReport['verdict']>().toEqualTypeOf<Verdict>();
    expectTypeOf(toVerificationRecord).returns.toEqualTypeOf<VerificationRecordInput>();
    expectTypeOf(verifyGoal).parameters.toEqualTypeOf<[GoalContext, VerifyGoalOptions?]>();
    expectTypeOf(verifyGoal).returns.resolves.toEqualTypeOf<GoalVerificationReport>();
    expectTypeOf<VerifyStepOptions['model']>().toEqualTypeOf<ChatModel | undefined>();
  });

  it('defines protocols, guards tool calls and snapshots workspaces', () => {
    expectTypeOf(defineProtocol).parameter(0).toEqualTypeOf<ProtocolDefinition>();
    expectTypeOf(defineProtocol).returns.toEqualTypeOf<Protocol>();
    expectTypeOf(createToolCallGuard).parameter(0).toEqualTypeOf<ToolCallGuardOptions>();
    expectTypeOf(createToolCallGuard).returns.toEqualTypeOf<ToolCallGuard>();
    expectTypeOf(snapshotWorkspace).returns.toEqualTypeOf<WorkspaceSnapshot>();
    expectTypeOf(diffSnapshots).returns.toEqualTypeOf<WorkspaceChanges>();
    expectTypeOf<VerifierError['code']>().toEqualTypeOf<VerifierErrorCode>();
  });

  it('keeps check internals and cortex helpers out of the root', () => {
    // @ts-expect-error unverifiedReason is internal (@closedloop/verifier/internal)
    verifier.unverifiedReason;
    // @ts-expect-error runProtocols is not exported (verifyStep runs them)
    verifier.runProtocols;
    // @ts-expect-error parseTestCounts is not exported
    verifier.parseTestCounts;
    // @ts-expect-error decideVerdict is not exported
    verifier.decideVerdict;
    expectTypeOf(unverifiedReason).toBeFunction();
    expectTypeOf(classifyConfidence).toBeFunction();
    expectTypeOf(validateProtocols).toBeFunction();
  });
});
