import { z } from 'zod';
import { excerpt, type Finding, prioritySchema, verificationLayerSchema } from './finding';
import type { Protocol, ProtocolContext } from './protocol';
import { commandProblem } from './run-command';
import { invalidInput, quotedName, VerifierError } from './verifier-error';

/** What a step produced, for success conditions. */
export interface ProtocolStepOutcome {
  /** Exit code of a command step (`null` when killed). */
  exitCode?: number | null;
  /** Output of a command step (stdout + stderr), or the message of a function step. */
  output: string;
  /** Value returned by a function step (its `output`), or a command's stdout parsed as JSON. */
  value?: unknown;
}

/** What a function step returns: a boolean, or an object with `ok`. */
export type ProtocolStepResult = boolean | { ok: boolean; message?: string; output?: unknown };

/** A function step. */
export type ProtocolStepFunction = (
  ctx: ProtocolContext,
  signal: AbortSignal,
) => ProtocolStepResult | Promise<ProtocolStepResult>;

const fn = <T>(what: string) =>
  z.custom<T>((value) => typeof value === 'function', `${what} must be a function`);
const pattern = z.union([z.string(), z.instanceof(RegExp)]);

const successSchema = z
  .object({
    /** Accepted exit code(s) of a command step. Default 0. */
    exitCode: z.union([z.number().int(), z.array(z.number().int()).min(1)]).optional(),
    /** The output must match. */
    outputMatches: pattern.optional(),
    /** The output must not match. */
    outputNotMatches: pattern.optional(),
    /** A custom condition over the outcome. */
    check: fn<(outcome: ProtocolStepOutcome) => boolean | Promise<boolean>>('success.check').optional(),
  })
  .strict();

const stepSchema = z
  .object({
    name: z.string().min(1),
    /** Argv (no shell). Use this or `run`. */
    command: z.array(z.string()).min(1).optional(),
    /** A function step. Use this or `command`. */
    run: fn<ProtocolStepFunction>('run').optional(),
    /** Workspace-relative working directory of a command. */
    cwd: z.string().optional(),
    env: z.record(z.string(), z.string()).optional(),
    timeoutMs: z.number().int().positive().optional(),
    success: successSchema.optional(),
    /** `fail` (default): the protocol fails; `skip`: ignore and go on; `retry`: run again (`retries` times), then fail. */
    onFailure: z.enum(['retry', 'skip', 'fail']).default('fail'),
    retries: z.number().int().min(1).max(10).default(2),
  })
  .strict()
  .refine((step) => (step.command === undefined) !== (step.run === undefined), {
    message: 'a step needs exactly one of `command` (argv) or `run` (function)',
  })
  .refine((step) => step.command === undefined || (step.command[0] ?? '') !== '', {
    message: 'command[0] (the program) must not be empty',
  });

const triggerSchema = z.union([
  z.object({ fileExists: z.string().min(1) }).strict(),
  z.object({ changedFiles: pattern }).strict(),
  z.object({ tooling: z.enum(['build', 'typecheck', 'lint', 'test', 'integration', 'e2e']) }).strict(),
  z.object({ when: fn<(ctx: ProtocolContext) => boolean | Promise<boolean>>('when') }).strict(),
]);

/** The custom protocol template, as a zod schema. */
export const protocolDefinitionSchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_:.-]*$/, 'name must start with a letter and use letters, digits, _ : . -'),
    description: z.string().min(1),
    /** Default P1. */
    priority: prioritySchema.default('P1'),
    /** Default 1 (static: runs in every mode). */
    layer: verificationLayerSchema.default(1),
    group: z.number().int().min(0).optional(),
    timeoutMs: z.number().int().positive().optional(),
    /** Trigger conditions; the protocol applies when ANY holds (none = always). */
    triggers: z.array(triggerSchema).default([]),
    steps: z.array(stepSchema).min(1),
    /** Zod schema the last step's value must satisfy (function `output`, or command stdout as JSON). */
    outputSchema: z
      .custom<z.ZodType>(
        (value) =>
          typeof value === 'object' &&
          value !== null &&
          typeof (value as { safeParse?: unknown }).safeParse === 'function',
        'outputSchema must be a zod schema',
      )
      .optional(),
  })
  .strict();

/** Input of {@link defineProtocol}. */
export type ProtocolDefinition = z.input<typeof protocolDefinitionSchema>;
type ParsedDefinition = z.output<typeof protocolDefinitionSchema>;
type ParsedStep = ParsedDefinition['steps'][number];

function toRegExp(value: string | RegExp): RegExp {
  return typeof value === 'string' ? new RegExp(value, 'm') : value;
}

function checkPatterns(definition: ParsedDefinition): string[] {
  const problems: string[] = [];
  const check = (value: string | RegExp | undefined, where: string) => {
    if (typeof value !== 'string') return;
    try {
      new RegExp(value);
    } catch (error) {
      problems.push(
        `${where}: invalid regular expression ${JSON.stringify(value)} (${(error as Error).message})`,
      );
    }
  };
  definition.steps.forEach((step, index) => {
    check(step.success?.outputMatches, `steps[${index}].success.outputMatches`);
    check(step.success?.outputNotMatches, `steps[${index}].success.outputNotMatches`);
  });
  definition.triggers.forEach((trigger, index) => {
    if ('changedFiles' in trigger) check(trigger.changedFiles, `triggers[${index}].changedFiles`);
  });
  const names = new Set<string>();
  for (const step of definition.steps) {
    if (names.has(step.name)) problems.push(`two steps are named ${JSON.stringify(step.name)}`);
    names.add(step.name);
  }
  return problems;
}

interface Attempt {
  ok: boolean;
  /** Infrastructure problem (could not run). */
  error?: string;
  message: string;
  outcome: ProtocolStepOutcome;
  command?: string[];
}

async function attemptStep(step: ParsedStep, ctx: ProtocolContext, signal: AbortSignal): Promise<Attempt> {
  let outcome: ProtocolStepOutcome;
  let ok: boolean;
  let message = '';
  if (step.command) {
    const result = await ctx.run(step.command, {
      ...(step.cwd !== undefined ? { cwd: step.cwd } : {}),
      ...(step.env ? { env: step.env } : {}),
      ...(step.timeoutMs !== undefined ? { timeoutMs: step.timeoutMs } : {}),
    });
    const problem = commandProblem(result);
    let value: unknown;
    try {
      value = JSON.parse(result.stdout);
    } catch {
      value = undefined;
    }
    outcome = { exitCode: result.exitCode, output: result.output, ...(value !== undefined ? { value } : {}) };
    if (problem !== undefined) {
      return { ok: false, error: problem, message: problem, outcome, command: step.command };
    }
    const codes = step.success?.exitCode === undefined ? [0] : [step.success.exitCode].flat();
    ok = codes.includes(result.exitCode ?? Number.NaN);
    message = ok ? `exit ${result.exitCode}` : `exit ${result.exitCode} (expected ${codes.join(' or ')})`;
  } else {
    const run = step.run as ProtocolStepFunction;
    let returned: ProtocolStepResult;
    try {
      returned = await run(ctx, signal);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      return { ok: false, error: `threw: ${text}`, message: `threw: ${text}`, outcome: { output: text } };
    }
    if (typeof returned === 'boolean') {
      ok = returned;
      outcome = { output: '' };
    } else {
      ok = returned.ok;
      message = returned.message ?? '';
      outcome = { output: message, ...(returned.output !== undefined ? { value: returned.output } : {}) };
    }
  }
  const success = step.success;
  if (ok && success?.outputMatches !== undefined && !toRegExp(success.outputMatches).test(outcome.output)) {
    ok = false;
    message = `output does not match ${String(success.outputMatches)}`;
  }
  if (
    ok &&
    success?.outputNotMatches !== undefined &&
    toRegExp(success.outputNotMatches).test(outcome.output)
  ) {
    ok = false;
    message = `output matches ${String(success.outputNotMatches)}`;
  }
  if (ok && success?.check) {
    const check = success.check as (outcome: ProtocolStepOutcome) => boolean | Promise<boolean>;
    try {
      ok = await check(outcome);
    } catch (error) {
      const text = error instanceof Error ? error.message : String(error);
      return { ok: false, error: `success.check threw: ${text}`, message: text, outcome };
    }
    if (!ok) message = message || 'success condition not met';
  }
  return { ok, message, outcome, ...(step.command ? { command: step.command } : {}) };
}

async function appliesTo(definition: ParsedDefinition, ctx: ProtocolContext): Promise<boolean> {
  if (definition.triggers.length === 0) return true;
  for (const trigger of definition.triggers) {
    if ('fileExists' in trigger) {
      const rel = ctx.facts.relative(trigger.fileExists);
      if (rel !== undefined && ctx.facts.exists(rel)) return true;
    } else if ('changedFiles' in trigger) {
      const regex = toRegExp(trigger.changedFiles);
      if ((await ctx.changedFiles()).some((file) => regex.test(file))) return true;
    } else if ('tooling' in trigger) {
      if ((await ctx.tooling()).commands[trigger.tooling] !== undefined) return true;
    } else {
      const when = trigger.when as (ctx: ProtocolContext) => boolean | Promise<boolean>;
      if (await when(ctx)) return true;
    }
  }
  return false;
}

/**
 * Builds a custom protocol from a template: name, description, trigger conditions,
 * steps (each a command argv or a function, a success condition — exit code, output regex or
 * function — and `onFailure: retry | skip | fail`) and an output schema. The definition is
 * validated with zod; an invalid one throws `VerifierError('invalid-protocol')`.
 *
 * @example
 * const audit = defineProtocol({
 *   name: 'NO_CONSOLE_LOG',
 *   description: 'No console.log left in src/',
 *   priority: 'P2',
 *   triggers: [{ changedFiles: '^src/' }],
 *   steps: [{ name: 'grep', command: ['grep', '-rn', 'console.log', 'src'], success: { exitCode: 1 } }],
 * });
 */
export function defineProtocol(definition: ProtocolDefinition): Protocol {
  const parsed = protocolDefinitionSchema.safeParse(definition);
  if (!parsed.success) {
    throw invalidInput('invalid-protocol', `Protocol definition ${quotedName(definition)}`, parsed.error);
  }
  const spec = parsed.data;
  const problems = checkPatterns(spec);
  if (problems.length > 0) {
    throw new VerifierError({
      code: 'invalid-protocol',
      message: `Protocol definition ${JSON.stringify(spec.name)} is invalid: ${problems.join('; ')}`,
      details: { problems },
    });
  }
  const base = { check: spec.name, priority: spec.priority, layer: spec.layer };
  return {
    name: spec.name,
    description: spec.description,
    priority: spec.priority,
    layer: spec.layer,
    ...(spec.group !== undefined ? { group: spec.group } : {}),
    ...(spec.timeoutMs !== undefined ? { timeoutMs: spec.timeoutMs } : {}),
    appliesTo: (ctx) => appliesTo(spec, ctx),
    async run(ctx, signal): Promise<Finding[]> {
      const findings: Finding[] = [];
      const stepReports: { name: string; ok: boolean; attempts: number; message: string }[] = [];
      let lastValue: unknown;
      let lastHasValue = false;
      for (const [index, step] of spec.steps.entries()) {
        const maxAttempts = step.onFailure === 'retry' ? step.retries + 1 : 1;
        let attempt: Attempt | undefined;
        let attempts = 0;
        while (attempts < maxAttempts) {
          attempts += 1;
          attempt = await attemptStep(step, ctx, signal);
          if (attempt.ok || attempt.error !== undefined || signal.aborted) break;
        }
        if (!attempt) break;
        stepReports.push({ name: step.name, ok: attempt.ok, attempts, message: attempt.message });
        const evidence = {
          ...(attempt.command ? { command: attempt.command } : {}),
          ...(attempt.outcome.exitCode !== undefined ? { exitCode: attempt.outcome.exitCode } : {}),
          ...(attempt.outcome.output ? { output: excerpt(attempt.outcome.output) } : {}),
        };
        if (attempt.error !== undefined) {
          findings.push({
            ...base,
            status: 'error',
            message: `Step ${JSON.stringify(step.name)} could not run: ${attempt.error}.`,
            evidence,
          });
          return findings;
        }
        if (attempt.ok) {
          lastHasValue = 'value' in attempt.outcome;
          lastValue = attempt.outcome.value;
          continue;
        }
        if (step.onFailure === 'skip') {
          findings.push({
            ...base,
            status: 'skip',
            message: `Step ${JSON.stringify(step.name)} failed (${attempt.message}); ignored (onFailure: skip).`,
            evidence,
          });
          continue;
        }
        const rest = spec.steps.slice(index + 1).map((later) => later.name);
        findings.push({
          ...base,
          status: 'fail',
          message: `Step ${JSON.stringify(step.name)} failed${attempts > 1 ? ` after ${attempts} attempts` : ''}: ${attempt.message}.${rest.length ? ` Not run: ${rest.join(', ')}.` : ''}`,
          evidence,
          details: { steps: stepReports },
        });
        return findings;
      }
      const details: Record<string, unknown> = { steps: stepReports };
      if (spec.outputSchema) {
        const result = spec.outputSchema.safeParse(lastHasValue ? lastValue : undefined);
        if (!result.success) {
          findings.push({
            ...base,
            status: 'fail',
            message: `The output does not match the protocol's output schema: ${z.prettifyError(result.error)}`,
            details,
          });
          return findings;
        }
        details.output = result.data;
      }
      findings.push({
        ...base,
        status: 'pass',
        message: `${spec.name}: ${stepReports.filter((report) => report.ok).length}/${spec.steps.length} step(s) passed.`,
        details,
      });
      return findings;
    },
  };
}
