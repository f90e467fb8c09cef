import type { Protocol } from './protocol';
import {
  buildProtocol,
  e2eTestProtocol,
  integrationTestProtocol,
  lintProtocol,
  testProtocol,
  typecheckProtocol,
} from './protocols/command-protocols';
import { coverageProtocol } from './protocols/coverage-protocol';
import { crashFreeProtocol } from './protocols/crash-free-protocol';
import { documentationProtocol } from './protocols/documentation-protocol';
import { functionalityProtocol } from './protocols/functionality-protocol';
import { humanReviewProtocol } from './protocols/human-review-protocol';
import { architectProtocol, llmJudgeProtocol } from './protocols/judge-protocols';
import { securityScanProtocol } from './protocols/security-scan-protocol';
import { errorFreeProtocol, syntaxProtocol, todoProtocol } from './protocols/static-protocols';

/** Names of the built-in protocols. */
export type BuiltinProtocolName =
  | 'BUILD'
  | 'TYPECHECK'
  | 'SYNTAX'
  | 'SECURITY_SCAN'
  | 'LINT'
  | 'TEST'
  | 'TODO'
  | 'ERROR_FREE'
  | 'CRASH_FREE'
  | 'DOCUMENTATION'
  | 'COVERAGE'
  | 'INTEGRATION_TEST'
  | 'FUNCTIONALITY'
  | 'LLM_JUDGE'
  | 'ARCHITECT'
  | 'E2E_TEST'
  | 'HUMAN_REVIEW';

/**
 * The built-in protocols, by name. Execution groups: 1 BUILD/TYPECHECK/SYNTAX → 2 LINT/TEST/
 * TODO/ERROR_FREE/CRASH_FREE/SECURITY_SCAN/DOCUMENTATION → 3 FUNCTIONALITY/ARCHITECT/LLM_JUDGE/
 * INTEGRATION_TEST/COVERAGE → 4 E2E_TEST → 5 HUMAN_REVIEW.
 */
export const builtinProtocols: Readonly<Record<BuiltinProtocolName, Protocol>> = Object.freeze({
  BUILD: buildProtocol,
  TYPECHECK: typecheckProtocol,
  SYNTAX: syntaxProtocol,
  SECURITY_SCAN: securityScanProtocol,
  LINT: lintProtocol,
  TEST: testProtocol,
  TODO: todoProtocol,
  ERROR_FREE: errorFreeProtocol,
  CRASH_FREE: crashFreeProtocol,
  DOCUMENTATION: documentationProtocol,
  COVERAGE: coverageProtocol,
  INTEGRATION_TEST: integrationTestProtocol,
  FUNCTIONALITY: functionalityProtocol,
  LLM_JUDGE: llmJudgeProtocol,
  ARCHITECT: architectProtocol,
  E2E_TEST: e2eTestProtocol,
  HUMAN_REVIEW: humanReviewProtocol,
});

/**
 * Resolves protocol names against custom protocols first, then the built-ins.
 * Returns the protocols found and the names that are unknown.
 */
export function resolveProtocols(
  names: readonly string[],
  custom: readonly Protocol[] = [],
): { protocols: Protocol[]; unknown: string[] } {
  const protocols: Protocol[] = [];
  const unknown: string[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) continue;
    seen.add(name);
    const found =
      custom.find((protocol) => protocol.name === name) ??
      (Object.hasOwn(builtinProtocols, name) ? builtinProtocols[name as BuiltinProtocolName] : undefined);
    if (found) protocols.push(found);
    else unknown.push(name);
  }
  return { protocols, unknown };
}
