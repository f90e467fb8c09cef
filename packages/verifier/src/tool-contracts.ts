import type { ToolCallRecord } from '@closedloop/plan';
import { z } from 'zod';
import type { Finding } from './finding';
import { invalidInput, VerifierError } from './verifier-error';

/**
 * What a step (or an agent profile) must do with one tool, as configuration:
 * - `required` (default true): it must be called;
 * - `requiresSuccess` (default true): at least one call must succeed;
 * - `dependsOn`: its first call must come after a successful call of these tools;
 * - `nextRequired`: after its last successful call, this tool must succeed;
 * - `forbidden`: it must not be called at all (P0; `required` is then ignored).
 */
export const toolContractSchema = z
  .object({
    tool: z.string().min(1),
    required: z.boolean().default(true),
    requiresSuccess: z.boolean().default(true),
    dependsOn: z.union([z.string().min(1), z.array(z.string().min(1))]).optional(),
    nextRequired: z.string().min(1).optional(),
    forbidden: z.boolean().default(false),
    description: z.string().optional(),
  })
  .strict();
export type ToolContract = z.infer<typeof toolContractSchema>;
export type ToolContractInput = z.input<typeof toolContractSchema>;

/** Contracts plus an `order`: the listed tools must succeed in this order (as a subsequence). */
export const toolContractSetSchema = z
  .object({
    tools: z.array(toolContractSchema),
    order: z.array(z.string().min(1)).optional(),
  })
  .strict();
export type ToolContractSet = z.infer<typeof toolContractSetSchema>;
export type ToolContractSetInput = z.input<typeof toolContractSetSchema>;

/** Per-agent-profile contracts: `{ profiles: { reviewer: [...] } }` or `{ profiles: { reviewer: { tools, order } } }`. */
export const toolContractsConfigSchema = z
  .object({
    profiles: z.record(z.string().min(1), z.union([z.array(toolContractSchema), toolContractSetSchema])),
  })
  .strict();
export type ToolContractsConfig = z.infer<typeof toolContractsConfigSchema>;
export type ToolContractsConfigInput = z.input<typeof toolContractsConfigSchema>;

const invalid = (what: string, error: z.ZodError) => invalidInput('invalid-contract', what, error);

/**
 * Validates a contract configuration (zod). Throws `VerifierError('invalid-contract')`.
 *
 * @example
 * const config = parseToolContracts({ profiles: { reviewer: [{ tool: 'generate_testbench', nextRequired: 'run_simulation' }, { tool: 'run_simulation', dependsOn: 'generate_testbench' }] } });
 */
export function parseToolContracts(config: unknown): ToolContractsConfig {
  const parsed = toolContractsConfigSchema.safeParse(config);
  if (!parsed.success) throw invalid('The tool-contract configuration', parsed.error);
  const problems: string[] = [];
  for (const [profile, value] of Object.entries(parsed.data.profiles)) {
    const set = Array.isArray(value) ? { tools: value } : value;
    problems.push(...crossCheck(set, `profile ${JSON.stringify(profile)}`));
  }
  if (problems.length > 0) {
    throw new VerifierError({
      code: 'invalid-contract',
      message: `The tool-contract configuration is inconsistent: ${problems.join('; ')}`,
      details: { problems },
    });
  }
  return parsed.data;
}

function crossCheck(set: { tools: ToolContract[]; order?: string[] }, where: string): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const contract of set.tools) {
    if (seen.has(contract.tool))
      problems.push(`${where}: tool ${JSON.stringify(contract.tool)} has two contracts`);
    seen.add(contract.tool);
    const deps = contract.dependsOn === undefined ? [] : [contract.dependsOn].flat();
    if (deps.includes(contract.tool)) problems.push(`${where}: ${contract.tool} depends on itself`);
    if (contract.nextRequired === contract.tool)
      problems.push(`${where}: ${contract.tool} requires itself next`);
  }
  return problems;
}

/**
 * Resolves the contracts for one step: the step's own `requiredTools` (each required and
 * requiring success, in that order) merged with a profile's contracts.
 * Throws `VerifierError` (`invalid-contract`, `unknown-profile`).
 */
export function resolveToolContracts(options: {
  requiredTools?: readonly string[];
  config?: unknown;
  profile?: string;
}): ToolContractSet {
  const tools: ToolContract[] = [];
  let order: string[] | undefined;
  if (options.profile !== undefined) {
    if (options.config === undefined) {
      throw new VerifierError({
        code: 'unknown-profile',
        message: `Contract profile ${JSON.stringify(options.profile)} was requested but no \`contracts\` configuration was given.`,
        details: { profile: options.profile },
      });
    }
    const config = parseToolContracts(options.config);
    const value = config.profiles[options.profile];
    if (value === undefined) {
      throw new VerifierError({
        code: 'unknown-profile',
        message: `Contract profile ${JSON.stringify(options.profile)} is not configured. Known profiles: ${Object.keys(config.profiles).join(', ') || '(none)'}.`,
        details: { profile: options.profile, known: Object.keys(config.profiles) },
      });
    }
    const set = Array.isArray(value) ? { tools: value } : value;
    tools.push(...set.tools);
    order = set.order;
  } else if (options.config !== undefined) {
    parseToolContracts(options.config);
  }
  const required = options.requiredTools ?? [];
  for (const tool of required) {
    if (!tools.some((contract) => contract.tool === tool)) {
      tools.push({ tool, required: true, requiresSuccess: true, forbidden: false });
    }
  }
  if (required.length > 1) order = order ? [...new Set([...required, ...order])] : [...required];
  return order ? { tools, order } : { tools };
}

const CHECK = 'required-tools';

/** Exactly `{ tools: [] }` (with `order` absent or empty): what the strict schema accepts as "no contract". */
function isEmptyContractSet(contracts: unknown): boolean {
  if (typeof contracts !== 'object' || contracts === null || Array.isArray(contracts)) return false;
  const { tools, order } = contracts as { tools?: unknown; order?: unknown };
  if (!Array.isArray(tools) || tools.length !== 0) return false;
  if (order !== undefined && !(Array.isArray(order) && order.length === 0)) return false;
  for (const key in contracts) if (key !== 'tools' && key !== 'order') return false;
  return true;
}

/**
 * Checks a ledger against tool contracts (pure, deterministic). Missing, never-successful,
 * dependency and next-required violations are P1 failures (the step must continue/retry);
 * a forbidden tool that ran is a P0 failure. One `pass` finding when everything holds.
 *
 * @example
 * checkToolContracts(step.ledger, { tools: [{ tool: 'run_simulation', dependsOn: 'generate_testbench' }] });
 */
export function checkToolContracts(
  ledger: readonly ToolCallRecord[],
  contracts: ToolContractSetInput,
): Finding[] {
  // No contract at all (most steps: nothing required, no profile) holds trivially — without a parse.
  if (isEmptyContractSet(contracts)) return [];
  const parsed = toolContractSetSchema.safeParse(contracts);
  if (!parsed.success) throw invalid('The tool contracts', parsed.error);
  const set = parsed.data;
  const findings: Finding[] = [];
  if (set.tools.length === 0 && (set.order?.length ?? 0) === 0) return findings;

  const calls = new Map<string, number[]>();
  const successes = new Map<string, number[]>();
  ledger.forEach((call, index) => {
    const all = calls.get(call.tool) ?? [];
    all.push(index);
    calls.set(call.tool, all);
    if (call.status === 'success') {
      const ok = successes.get(call.tool) ?? [];
      ok.push(index);
      successes.set(call.tool, ok);
    }
  });
  const fail = (priority: 'P0' | 'P1', message: string, callId?: string) =>
    findings.push({
      check: CHECK,
      priority,
      status: 'fail',
      message,
      ...(callId !== undefined ? { evidence: { callId } } : {}),
    });

  for (const contract of set.tools) {
    const made = calls.get(contract.tool) ?? [];
    const ok = successes.get(contract.tool) ?? [];
    if (contract.forbidden) {
      if (made.length > 0) {
        const first = ledger[made[0] ?? 0];
        fail('P0', `Forbidden tool ${contract.tool} was called ${made.length} time(s).`, first?.callId);
      }
      continue;
    }
    if (contract.required && made.length === 0) {
      fail('P1', `Required tool ${contract.tool} was never called.`);
      continue;
    }
    if (contract.required && contract.requiresSuccess && made.length > 0 && ok.length === 0) {
      const last = ledger[made.at(-1) ?? 0];
      fail(
        'P1',
        `Required tool ${contract.tool} was called ${made.length} time(s) but never succeeded${last?.error ? ` (last error: ${last.error.slice(0, 200)})` : ''}.`,
        last?.callId,
      );
    }
    const deps = contract.dependsOn === undefined ? [] : [contract.dependsOn].flat();
    if (made.length > 0) {
      const first = made[0] ?? 0;
      for (const dependency of deps) {
        const before = (successes.get(dependency) ?? []).some((index) => index < first);
        if (!before) {
          fail(
            'P1',
            `${contract.tool} ran before its dependency ${dependency} had succeeded.`,
            ledger[first]?.callId,
          );
        }
      }
    }
    if (contract.nextRequired !== undefined && ok.length > 0) {
      const lastOk = ok.at(-1) ?? 0;
      const after = (successes.get(contract.nextRequired) ?? []).some((index) => index > lastOk);
      if (!after) {
        fail(
          'P1',
          `${contract.tool} must be followed by a successful ${contract.nextRequired}, which never came after it.`,
          ledger[lastOk]?.callId,
        );
      }
    }
  }

  if (set.order && set.order.length > 1) {
    // The tools must succeed in this order as a subsequence of the ledger (exploration in
    // between is fine): find order[0], then order[1] after it, and so on.
    let cursor = -1;
    for (const tool of set.order) {
      const next = (successes.get(tool) ?? []).find((index) => index > cursor);
      if (next === undefined) {
        if ((successes.get(tool) ?? []).length > 0) {
          fail(
            'P1',
            `Tools did not succeed in the required order ${set.order.join(' → ')}: ${tool} came too early.`,
          );
        }
        // A tool that never succeeded is reported by its own contract (or is optional).
        break;
      }
      cursor = next;
    }
  }

  if (findings.length === 0) {
    findings.push({
      check: CHECK,
      priority: 'P1',
      status: 'pass',
      message: `Tool contracts hold (${set.tools.map((contract) => contract.tool).join(', ')}${set.order ? `; order ${set.order.join(' → ')}` : ''}).`,
    });
  }
  return findings;
}
