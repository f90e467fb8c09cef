import { existsSync } from 'node:fs';
import path from 'node:path';
import { excerpt } from '../finding';
import type { ProtocolContext } from '../protocol';
import { commandProblem } from '../run-command';
import { isMissingProgram } from './command-protocols';

/** Vulnerability counts by severity. */
export interface VulnerabilityCounts {
  info: number;
  low: number;
  moderate: number;
  high: number;
  critical: number;
}

/** What a dependency audit found, or why it could not run. */
export type AuditOutcome =
  | {
      ran: true;
      command: string[];
      counts: VulnerabilityCounts;
      /** Vulnerable packages, worst first (at most 20). */
      packages: { name: string; severity: string }[];
    }
  | {
      ran: false;
      command?: string[];
      reason: string;
      output?: string;
      /**
       * The audit ran in the command sandbox and could not reach the registry: commands there have
       * no network unless the runner's `sandbox.network` is on, so this is most likely the
       * configuration rather than an outage.
       */
      offlineSandbox?: boolean;
    };

const LOCKFILES: { file: string; manager: 'npm' | 'pnpm' | 'yarn' | 'bun' }[] = [
  { file: 'package-lock.json', manager: 'npm' },
  { file: 'npm-shrinkwrap.json', manager: 'npm' },
  { file: 'pnpm-lock.yaml', manager: 'pnpm' },
  { file: 'yarn.lock', manager: 'yarn' },
  { file: 'bun.lock', manager: 'bun' },
  { file: 'bun.lockb', manager: 'bun' },
];

/** The lockfiles at the workspace root (the audit runs when there is one). */
export function findLockfile(
  root: string,
): { file: string; manager: 'npm' | 'pnpm' | 'yarn' | 'bun' } | undefined {
  return LOCKFILES.find((candidate) => existsSync(path.join(root, candidate.file)));
}

const SEVERITIES = ['critical', 'high', 'moderate', 'low', 'info'] as const;

function emptyCounts(): VulnerabilityCounts {
  return { info: 0, low: 0, moderate: 0, high: 0, critical: 0 };
}

function readCounts(value: unknown): VulnerabilityCounts | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (!SEVERITIES.some((severity) => typeof record[severity] === 'number')) return undefined;
  const counts = emptyCounts();
  for (const severity of SEVERITIES) counts[severity] = Number(record[severity] ?? 0) || 0;
  return counts;
}

function rank(severity: string): number {
  const index = SEVERITIES.indexOf(severity as (typeof SEVERITIES)[number]);
  return index === -1 ? SEVERITIES.length : index;
}

/** Parses `npm audit --json`, `pnpm audit --json` and `yarn audit --json` (classic, NDJSON). */
export function parseAuditOutput(
  stdout: string,
): Omit<Extract<AuditOutcome, { ran: true }>, 'command'> | undefined {
  const packages: { name: string; severity: string }[] = [];
  let counts: VulnerabilityCounts | undefined;
  const take = (json: Record<string, unknown>) => {
    const metadata = json.metadata as Record<string, unknown> | undefined;
    counts ??= readCounts(metadata?.vulnerabilities);
    if (json.type === 'auditSummary')
      counts ??= readCounts((json.data as Record<string, unknown>)?.vulnerabilities);
    const byName = json.vulnerabilities as Record<string, { severity?: string }> | undefined;
    if (byName && typeof byName === 'object')
      for (const [name, item] of Object.entries(byName))
        packages.push({ name, severity: String(item?.severity ?? '') });
    const advisories = json.advisories as
      | Record<string, { module_name?: string; severity?: string }>
      | undefined;
    if (advisories && typeof advisories === 'object')
      for (const item of Object.values(advisories))
        packages.push({ name: String(item?.module_name ?? '?'), severity: String(item?.severity ?? '') });
    if (json.type === 'auditAdvisory') {
      const advisory = (json.data as { advisory?: { module_name?: string; severity?: string } })?.advisory;
      if (advisory)
        packages.push({
          name: String(advisory.module_name ?? '?'),
          severity: String(advisory.severity ?? ''),
        });
    }
  };
  const trimmed = stdout.trim();
  try {
    take(JSON.parse(trimmed) as Record<string, unknown>);
  } catch {
    for (const line of trimmed.split('\n')) {
      try {
        take(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // not JSON: progress or warnings
      }
    }
  }
  if (!counts) return undefined;
  const unique = [...new Map(packages.map((item) => [item.name, item])).values()];
  unique.sort((a, b) => rank(a.severity) - rank(b.severity));
  return { ran: true, counts, packages: unique.slice(0, 20) };
}

/** The error message a package manager printed as JSON (`{ "message": … }`, `{ "error": { "summary": … } }`). */
function reportedError(stdout: string): string | undefined {
  try {
    const json = JSON.parse(stdout) as { message?: unknown; error?: { summary?: unknown } };
    const message = typeof json.message === 'string' ? json.message : json.error?.summary;
    return typeof message === 'string' && message !== '' ? message.slice(0, 300) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Runs the workspace's package-manager audit (`npm audit --json`, `pnpm audit --json`, classic
 * `yarn audit --json`) against its lockfile. It needs the registry: without network (or without
 * the program) it reports why it could not run — never a clean result.
 */
export async function auditDependencies(ctx: ProtocolContext, timeoutMs = 60_000): Promise<AuditOutcome> {
  const lockfile = findLockfile(ctx.workspace);
  if (!lockfile) return { ran: false, reason: 'no lockfile' };
  let argv: string[];
  switch (lockfile.manager) {
    case 'npm':
      argv = ['npm', 'audit', '--json'];
      break;
    case 'pnpm':
      argv = ['pnpm', 'audit', '--json'];
      break;
    case 'yarn':
      if (existsSync(path.join(ctx.workspace, '.yarnrc.yml')))
        return { ran: false, reason: 'auditing Yarn Berry workspaces (yarn npm audit) is not supported' };
      argv = ['yarn', 'audit', '--json'];
      break;
    default:
      return { ran: false, reason: `auditing ${lockfile.file} (bun) is not supported` };
  }
  // The command runner passes no npm_config_* variables on: npm reads the workspace's own .npmrc.
  const result = await ctx.run(argv, { timeoutMs });
  const problem = commandProblem(result);
  if (problem !== undefined)
    return { ran: false, command: argv, reason: problem, output: excerpt(result.output, 1000) };
  const parsed = parseAuditOutput(result.stdout);
  if (parsed) return { ...parsed, command: argv };
  const reported = reportedError(result.stdout);
  const unreachable =
    /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network|getaddrinfo|request to .* failed|audit endpoint/i.test(
      result.output,
    );
  const output = excerpt(result.output, 1000);
  if (isMissingProgram(result))
    return { ran: false, command: argv, reason: `${argv[0]} is not installed`, output };
  if (unreachable && result.sandboxed) {
    return {
      ran: false,
      command: argv,
      reason: `the registry is out of reach from the command sandbox, which has no network unless the command runner's sandbox.network is on${reported ? ` (${reported})` : ''}`,
      output,
      offlineSandbox: true,
    };
  }
  const reason = unreachable
    ? `the registry could not be reached (no network?)${reported ? `: ${reported}` : ''}`
    : `exit ${result.exitCode} without an audit report${reported ? `: ${reported}` : ''}`;
  return { ran: false, command: argv, reason, output };
}
