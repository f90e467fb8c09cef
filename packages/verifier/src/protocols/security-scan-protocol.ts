import type { Finding, Priority } from '../finding';
import type { Protocol, ProtocolContext } from '../protocol';
import { addedLines } from './added-lines';
import { findDangerousCode } from './dangerous-code';
import { auditDependencies, findLockfile } from './dependency-audit';
import { findSecrets } from './find-secrets';

const NAME = 'SECURITY_SCAN';
/** Tests, fixtures, examples and docs: secrets there are usually fakes (still worth a look). */
const NON_PRODUCTION =
  /(?:^|\/)(?:tests?|__tests__|spec|specs|fixtures?|__fixtures__|examples?|docs?|testdata)\/|\.(?:test|spec)\.[^/]+$|(?:^|\/)test_[^/]+\.py$|_test\.(?:go|py)$|\.(?:md|mdx|rst|txt)$/i;
const MANIFEST =
  /(?:^|\/)(?:package(?:-lock)?\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|yarn\.lock|bun\.lockb?)$/;

function finding(
  status: Finding['status'],
  priority: Priority,
  message: string,
  evidence?: Finding['evidence'],
): Finding {
  return { check: NAME, priority, status, message, layer: 1, ...(evidence ? { evidence } : {}) };
}

async function scanChanges(ctx: ProtocolContext): Promise<{ findings: Finding[]; files: number }> {
  const lines = await addedLines(ctx);
  const findings: Finding[] = [];
  for (const [file, added] of lines) {
    if (added.length === 0) continue;
    const fake = NON_PRODUCTION.test(file);
    for (const secret of findSecrets(file, added)) {
      findings.push(
        finding(
          fake ? 'warn' : 'fail',
          fake ? 'P2' : 'P1',
          `${file}:${secret.line}: a ${secret.kind} is written into the change${fake ? ' (test or doc file: make sure it is a fake)' : '; read it from the environment or a secret store instead'}.`,
          { file, diffHunk: `+${secret.redacted}` },
        ),
      );
    }
    const text = ctx.facts.read(file);
    if (text === undefined) continue;
    for (const danger of await findDangerousCode(file, text, added)) {
      const failing = danger.priority === 'P1';
      findings.push(
        finding(
          failing ? 'fail' : 'warn',
          danger.priority,
          `${file}:${danger.line}: ${danger.message} (${danger.rule}).`,
          { file, diffHunk: `+${danger.excerpt}` },
        ),
      );
    }
  }
  return { findings, files: lines.size };
}

async function scanDependencies(ctx: ProtocolContext): Promise<Finding[]> {
  const lockfile = findLockfile(ctx.workspace);
  if (!lockfile) return [];
  const changed = (await ctx.changedFiles()).some((file) => MANIFEST.test(file));
  // Vulnerabilities and audit failures are about this change when it touched dependencies;
  // otherwise they were there before and only warn.
  const priority: Priority = changed ? 'P1' : 'P2';
  const outcome = await auditDependencies(ctx);
  if (!outcome.ran) {
    // In the command sandbox, which has no network by default, the audit cannot reach a registry:
    // that warns (P2) instead of leaving every dependency change unverified. Elsewhere an outage
    // or a missing tool counts at the change's priority.
    return [
      finding(
        'error',
        outcome.offlineSandbox ? 'P2' : priority,
        `Dependency audit of ${lockfile.file} could not run: ${outcome.reason}. Known vulnerabilities are unchecked.`,
        {
          ...(outcome.command ? { command: outcome.command } : {}),
          ...(outcome.output ? { output: outcome.output } : {}),
        },
      ),
    ];
  }
  const { counts, packages } = outcome;
  const serious = counts.high + counts.critical;
  const total = serious + counts.moderate + counts.low;
  const evidence = { command: outcome.command };
  const list = packages
    .slice(0, 8)
    .map((item) => `${item.name} (${item.severity})`)
    .join(', ');
  if (total === 0)
    return [
      finding('pass', priority, `Dependency audit of ${lockfile.file}: no known vulnerabilities.`, evidence),
    ];
  const summary = `${counts.critical} critical, ${counts.high} high, ${counts.moderate} moderate, ${counts.low} low`;
  if (serious > 0 && changed)
    return [
      finding(
        'fail',
        'P1',
        `Dependency audit of ${lockfile.file}: ${summary} vulnerabilities after a dependency change: ${list}.`,
        evidence,
      ),
    ];
  return [
    finding(
      'warn',
      'P2',
      `Dependency audit of ${lockfile.file}: ${summary} vulnerabilities${changed ? '' : ' (dependencies unchanged)'}: ${list}.`,
      evidence,
    ),
  ];
}

/**
 * SECURITY_SCAN (layer 1, P1): the change's added lines hold no secrets (private keys, API keys,
 * tokens, passwords: the product's redactor patterns) and no dangerous code (code or shell
 * commands built from variable values, TLS verification turned off, SQL built by concatenation,
 * `rm -rf /`…, read from syntax trees), and — when the workspace has a lockfile — the package
 * manager's audit finds no high or critical vulnerability after a dependency change. An audit
 * that cannot reach the registry is an `error`, never a pass (P2 from inside the command sandbox,
 * which has no network by default). Secrets in tests, fixtures and docs only warn (P2).
 */
export const securityScanProtocol: Protocol = {
  name: NAME,
  description:
    'No secrets or dangerous code added by the change; no known vulnerable dependencies (npm/pnpm/yarn audit).',
  priority: 'P1',
  layer: 1,
  group: 2,
  timeoutMs: 120_000,
  async appliesTo(ctx) {
    return (await ctx.changedFiles()).length > 0 || findLockfile(ctx.workspace) !== undefined;
  },
  async run(ctx): Promise<Finding[]> {
    const [changes, dependencies] = await Promise.all([scanChanges(ctx), scanDependencies(ctx)]);
    const findings = [...changes.findings, ...dependencies];
    if (changes.files > 0 && changes.findings.length === 0)
      findings.unshift(
        finding('pass', 'P1', `No secrets or dangerous code in the lines added to ${changes.files} file(s).`),
      );
    return findings;
  },
};
