import { beginWorkspaceActivity } from '@closedloop/tools/internal';
import { z } from 'zod';
import {
  type Finding,
  findingSchema,
  type Priority,
  prioritySchema,
  type VerificationLayer,
  verificationLayerSchema,
} from './finding';
import {
  defaultGroup,
  defaultTimeoutMs,
  type Protocol,
  type ProtocolContext,
  scopeContext,
} from './protocol';
import type { CheckTiming } from './verdict';
import { invalidInput, quotedName, throwIfAborted, VerifierError } from './verifier-error';

/** How much to verify: each mode runs a set of layers (`minimal` [1], `standard` [1, 2, 5], …). */
export type VerificationMode = 'minimal' | 'standard' | 'thorough' | 'full';

/** Layers per mode: minimal [1], standard [1,2,5], thorough [1,2,3,5,6], full [1..6]. */
export const MODE_LAYERS: Readonly<Record<VerificationMode, readonly VerificationLayer[]>> = {
  minimal: [1],
  standard: [1, 2, 5],
  thorough: [1, 2, 3, 5, 6],
  full: [1, 2, 3, 4, 5, 6],
};

/** Options of {@link runProtocols}. */
export interface RunProtocolsOptions {
  /** Keep only protocols of this mode's layers (the others get a `skip` finding). Default: run all. */
  mode?: VerificationMode;
  signal?: AbortSignal;
  /** A P0 failure skips later groups (reported as `skip`). Default true. */
  fastFail?: boolean;
  /** Priority per protocol name (from success criteria): replaces the protocol's own priority. */
  priorities?: Readonly<Record<string, Priority>>;
  /** Timeout per protocol name, overriding the protocol's. */
  timeouts?: Readonly<Record<string, number>>;
}

/** Findings and timings of a protocol run. */
export interface ProtocolRunResult {
  findings: Finding[];
  timings: CheckTiming[];
}

const protocolShape = z.object({
  name: z.string().min(1),
  priority: prioritySchema,
  layer: verificationLayerSchema,
  group: z.number().int().min(0).optional(),
  timeoutMs: z.number().int().positive().optional(),
  run: z.custom<Protocol['run']>((value) => typeof value === 'function', 'run must be a function'),
  appliesTo: z.custom<NonNullable<Protocol['appliesTo']>>((value) => typeof value === 'function').optional(),
});

/** Validates protocol objects (shape and unique names). Throws `VerifierError('invalid-protocol')`. */
export function validateProtocols(protocols: readonly Protocol[]): void {
  const names = new Set<string>();
  for (const protocol of protocols) {
    const parsed = protocolShape.safeParse(protocol);
    if (!parsed.success) {
      throw invalidInput('invalid-protocol', `Protocol ${quotedName(protocol)}`, parsed.error);
    }
    if (names.has(protocol.name)) {
      throw new VerifierError({
        code: 'invalid-protocol',
        message: `Two protocols are named ${JSON.stringify(protocol.name)}; names must be unique.`,
        details: { name: protocol.name },
      });
    }
    names.add(protocol.name);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function runOne(
  protocol: Protocol,
  base: ProtocolContext,
  previousFindings: readonly Finding[],
  options: RunProtocolsOptions,
): Promise<{ findings: Finding[]; ms: number }> {
  const started = performance.now();
  const priority = options.priorities?.[protocol.name] ?? protocol.priority;
  const make = (status: Finding['status'], message: string): Finding => ({
    check: protocol.name,
    priority,
    status,
    message,
    layer: protocol.layer,
  });
  const controller = new AbortController();
  const outer = options.signal;
  const onOuterAbort = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', onOuterAbort, { once: true });
  const timeoutMs =
    options.timeouts?.[protocol.name] ?? protocol.timeoutMs ?? defaultTimeoutMs(protocol.layer);
  let timedOut = false;
  const timer =
    timeoutMs === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          controller.abort(new Error(`${protocol.name} timed out after ${timeoutMs} ms`));
        }, timeoutMs);
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  aborted.catch(() => {});
  const ctx = scopeContext(base, { signal: controller.signal, previousFindings });
  let running: Promise<unknown> | undefined;
  // A protocol is code of its own (a user's, too) that may write the workspace by any means: it is
  // activity until its run settles — after a timeout that left it running, too.
  const ended = beginWorkspaceActivity();
  try {
    if (protocol.appliesTo) {
      const applies = await Promise.race([Promise.resolve(protocol.appliesTo(ctx)), aborted]);
      if (!applies)
        return {
          findings: [make('skip', `${protocol.name} does not apply here.`)],
          ms: performance.now() - started,
        };
    }
    running = Promise.resolve().then(() => protocol.run(ctx, controller.signal));
    const raw = await Promise.race([running, aborted]);
    const parsed = z.array(findingSchema).safeParse(raw);
    if (!parsed.success) {
      return {
        findings: [
          make('error', `${protocol.name} returned malformed findings: ${z.prettifyError(parsed.error)}`),
        ],
        ms: performance.now() - started,
      };
    }
    if (parsed.data.length === 0) {
      return {
        findings: [make('skip', `${protocol.name} returned no findings.`)],
        ms: performance.now() - started,
      };
    }
    const findings = parsed.data.map((finding) => ({
      ...finding,
      layer: finding.layer ?? protocol.layer,
      // Criteria may raise or lower a protocol's priority: its own-priority findings follow.
      priority: finding.priority === protocol.priority ? priority : finding.priority,
    }));
    return { findings, ms: performance.now() - started };
  } catch (error) {
    if (running !== undefined && controller.signal.aborted) {
      // The abort killed the protocol's commands; wait (bounded) until its run has seen them exit,
      // so no command of a timed-out check still writes to the workspace once this returns.
      await settleWithin(running, ABORT_SETTLE_MS);
    }
    if (outer?.aborted) throw error;
    const message = timedOut
      ? `${protocol.name} timed out after ${timeoutMs} ms (infrastructure error, not a failure of the work).`
      : `${protocol.name} crashed: ${errorMessage(error)} (infrastructure error, not a failure of the work).`;
    return { findings: [make('error', message)], ms: performance.now() - started };
  } finally {
    if (timer) clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
    if (!controller.signal.aborted) controller.abort(new Error('protocol finished'));
    if (running === undefined) ended();
    else running.then(ended, ended);
  }
}

/** How long an aborted protocol's run gets to see its killed commands exit before it is left. */
const ABORT_SETTLE_MS = 2_000;

/** Waits until `promise` settles or `ms` pass, whichever comes first; never rejects. */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    promise.then(
      () => {},
      () => {},
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Runs protocols in execution groups (ascending `group`; inside a group in parallel), e.g.
 * BUILD → LINT/TEST → FUNCTIONALITY/ARCHITECT. Conditional protocols (`appliesTo`) that do not
 * apply report `skip`; with `fastFail` (default) a P0 failure skips every later group. A
 * protocol that throws or exceeds its timeout yields an `error` finding (infrastructure).
 * Throws `VerifierError('invalid-protocol')` for malformed protocols and `('aborted')` when
 * `signal` aborts.
 *
 * @example
 * const ctx = createProtocolContext({ workspace: '/repo', request: 'add isPrime' });
 * const { findings } = await runProtocols([builtinProtocols.BUILD, builtinProtocols.TEST], ctx, { mode: 'standard' });
 */
export async function runProtocols(
  protocols: readonly Protocol[],
  ctx: ProtocolContext,
  options: RunProtocolsOptions = {},
): Promise<ProtocolRunResult> {
  validateProtocols(protocols);
  if (options.mode !== undefined && !(options.mode in MODE_LAYERS)) {
    throw new VerifierError({
      code: 'invalid-options',
      message: `Unknown verification mode ${JSON.stringify(options.mode)}; use minimal, standard, thorough or full.`,
      details: { mode: options.mode },
    });
  }
  throwIfAborted(options.signal, 'Protocol verification');
  const findings: Finding[] = [];
  const timings: CheckTiming[] = [];
  const layers = options.mode ? new Set<number>(MODE_LAYERS[options.mode]) : undefined;
  const selected: Protocol[] = [];
  for (const protocol of protocols) {
    if (layers && !layers.has(protocol.layer)) {
      findings.push({
        check: protocol.name,
        priority: options.priorities?.[protocol.name] ?? protocol.priority,
        status: 'skip',
        message: `${protocol.name} (layer ${protocol.layer}) is not part of mode ${options.mode}.`,
        layer: protocol.layer,
      });
    } else {
      selected.push(protocol);
    }
  }
  const groups = new Map<number, Protocol[]>();
  for (const protocol of selected) {
    const group = protocol.group ?? defaultGroup(protocol.layer);
    groups.set(group, [...(groups.get(group) ?? []), protocol]);
  }
  let stoppedBy: string | undefined;
  for (const group of [...groups.keys()].sort((a, b) => a - b)) {
    const members = groups.get(group) ?? [];
    if (stoppedBy !== undefined) {
      for (const protocol of members) {
        findings.push({
          check: protocol.name,
          priority: options.priorities?.[protocol.name] ?? protocol.priority,
          status: 'skip',
          message: `${protocol.name} skipped: fast-fail after a P0 failure in ${stoppedBy}.`,
          layer: protocol.layer,
        });
      }
      continue;
    }
    const previous = [...findings];
    let results: { findings: Finding[]; ms: number }[];
    try {
      results = await Promise.all(members.map((protocol) => runOne(protocol, ctx, previous, options)));
    } catch (error) {
      throw new VerifierError({
        code: 'aborted',
        message: 'Protocol verification was aborted.',
        cause: error,
      });
    }
    results.forEach((result, index) => {
      const protocol = members[index];
      if (!protocol) return;
      findings.push(...result.findings);
      timings.push({ check: protocol.name, ms: result.ms });
      if (stoppedBy === undefined && (options.fastFail ?? true)) {
        if (result.findings.some((finding) => finding.status === 'fail' && finding.priority === 'P0')) {
          stoppedBy = protocol.name;
        }
      }
    });
  }
  return { findings, timings };
}
