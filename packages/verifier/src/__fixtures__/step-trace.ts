import { rm } from 'node:fs/promises';
import path from 'node:path';
import { Plan, type StepClaimsInput } from '@closedloop/plan';
import { createTempWorkspace } from '@closedloop/tools/testing';
import { z } from 'zod';
import type { Finding } from '../finding';
import type { VerificationReport } from '../verdict';
import { type VerifyStepOptions, verifyStep } from '../verify-step';
import { snapshotWorkspace, type WorkspaceSnapshot } from '../workspace-snapshot';

/** One ledger entry of a trace. */
export const traceCallSchema = z.object({
  tool: z.string(),
  args: z.unknown().optional(),
  status: z.enum(['success', 'error', 'pending']),
  result: z.string().optional(),
  error: z.string().optional(),
});

/** A labelled step trace: plan step + ledger + notes/claims + workspace + expected verdict class. */
export const stepTraceSchema = z.object({
  id: z.string(),
  class: z.string(),
  description: z.string().optional(),
  expected: z.object({
    verdict: z.enum(['success', 'success-with-warnings', 'retry', 'failed', 'unverified']),
  }),
  step: z.object({
    description: z.string(),
    requiredTools: z.array(z.string()).optional(),
    protocols: z.array(z.string()).optional(),
  }),
  workspace: z.object({
    git: z.boolean().default(true),
    /** Files present (and committed, with git) before the step ran. */
    files: z.record(z.string(), z.string()).default({}),
    /** What the step really did to the workspace. */
    changes: z
      .object({
        write: z.record(z.string(), z.string()).default({}),
        delete: z.array(z.string()).default([]),
      })
      .default({ write: {}, delete: [] }),
  }),
  ledger: z.array(traceCallSchema).default([]),
  notes: z.string().optional(),
  claims: z.custom<StepClaimsInput>().optional(),
  options: z
    .object({
      contracts: z.unknown().optional(),
      profile: z.string().optional(),
      claimsFromNotes: z.enum(['fallback', 'always', 'never']).optional(),
    })
    .default({}),
});
export type StepTrace = z.infer<typeof stepTraceSchema>;
export type StepTraceInput = z.input<typeof stepTraceSchema>;

/** A materialised trace: a real temp workspace and a plan whose step carries the trace. */
export interface MaterialisedTrace {
  root: string;
  plan: Plan;
  /** The workspace when the step started (before its changes). */
  baseline: WorkspaceSnapshot;
  stepId: string;
  cleanup(): Promise<void>;
}

/** Builds a one-step plan whose step has the given ledger, notes and claims. */
export function planWithStep(options: {
  stepId?: string;
  description: string;
  requiredTools?: string[];
  protocols?: string[];
  ledger?: z.input<typeof traceCallSchema>[];
  notes?: string;
  claims?: StepClaimsInput;
  files?: string[];
}): Plan {
  const stepId = options.stepId ?? 's1';
  const plan = Plan.create({
    title: 'trace',
    goal: options.description,
    steps: [
      {
        id: stepId,
        description: options.description,
        requiredTools: options.requiredTools ?? [],
        protocols: options.protocols ?? [],
      },
    ],
  });
  plan.markStep(stepId, { status: 'in_progress' });
  (options.ledger ?? []).forEach((call, index) => {
    const callId = `call_${index + 1}`;
    plan.recordToolCall(stepId, { callId, tool: call.tool, args: call.args ?? {} });
    if (call.status !== 'pending') {
      plan.recordToolResult(stepId, {
        callId,
        tool: call.tool,
        status: call.status,
        ...(call.result !== undefined ? { result: call.result } : {}),
        ...(call.error !== undefined ? { error: call.error } : {}),
      });
    }
  });
  plan.markStep(stepId, {
    ...(options.notes !== undefined ? { notes: options.notes } : {}),
    ...(options.claims !== undefined ? { claims: options.claims } : {}),
    ...(options.files !== undefined ? { files: options.files } : {}),
  });
  return plan;
}

/**
 * Materialises a trace: a temp folder with the "before" files (committed in a real git repo
 * when `git`), its baseline snapshot and the step started, then the step's real changes applied
 * on top, and a plan carrying the ledger.
 */
export async function materialiseTrace(input: StepTraceInput): Promise<MaterialisedTrace> {
  const trace = stepTraceSchema.parse(input);
  const ws = await createTempWorkspace({
    files: trace.workspace.files,
    git: trace.workspace.git,
    prefix: 'closedloop-corpus-',
  });
  const baseline = snapshotWorkspace(ws.root);
  const plan = planWithStep({
    description: trace.step.description,
    ...(trace.step.requiredTools ? { requiredTools: trace.step.requiredTools } : {}),
    ...(trace.step.protocols ? { protocols: trace.step.protocols } : {}),
    ledger: trace.ledger,
    ...(trace.notes !== undefined ? { notes: trace.notes } : {}),
    ...(trace.claims !== undefined ? { claims: trace.claims } : {}),
  });
  for (const [file, content] of Object.entries(trace.workspace.changes.write)) await ws.write(file, content);
  for (const file of trace.workspace.changes.delete) await rm(path.join(ws.root, file), { force: true });
  return { root: ws.root, plan, baseline, stepId: 's1', cleanup: ws.cleanup };
}

/** Materialises a trace, verifies its step (trace options, then `options`) and cleans up. */
export async function verifyTrace(
  input: StepTraceInput,
  options: VerifyStepOptions = {},
): Promise<VerificationReport> {
  const trace = stepTraceSchema.parse(input);
  const materialised = await materialiseTrace(trace);
  try {
    return await verifyStep(materialised.plan, materialised.stepId, {
      workspace: materialised.root,
      baseline: materialised.baseline,
      ...(trace.options.contracts !== undefined ? { contracts: trace.options.contracts } : {}),
      ...(trace.options.profile !== undefined ? { profile: trace.options.profile } : {}),
      ...(trace.options.claimsFromNotes !== undefined
        ? { claimsFromNotes: trace.options.claimsFromNotes }
        : {}),
      ...options,
    });
  } finally {
    await materialised.cleanup();
  }
}

/** A successful `write_file` ledger entry. */
export const writeCall = (file: string, content = 'x') => ({
  tool: 'write_file',
  args: { path: file, content },
  status: 'success' as const,
  result: `Wrote ${file}`,
});

/** `check:priority` of every failing finding, in order. */
export function failingChecks(findings: readonly Finding[]): string[] {
  return findings.filter((finding) => finding.status === 'fail').map((f) => `${f.check}:${f.priority}`);
}
