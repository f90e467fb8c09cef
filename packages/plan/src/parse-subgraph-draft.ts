import type { z } from 'zod';
import { subgraphDraftSchema } from './schema';

/** A draft as `subgraphDraftSchema` outputs it. */
export type ParsedSubgraphDraft = z.infer<typeof subgraphDraftSchema>;
type ParsedDraftStep = ParsedSubgraphDraft['steps'][number];

const isStepId = (value: unknown): value is string =>
  typeof value === 'string' && value.length >= 1 && value.length <= 200;

/** `value` when it is a dense array whose every element passes `accept`, else `undefined`. */
function arrayOf<T>(value: unknown, accept: (item: unknown) => item is T): T[] | undefined {
  if (value === undefined) return [];
  if (!Array.isArray(value)) return undefined;
  for (let index = 0; index < value.length; index++) {
    if (!(index in value) || !accept(value[index])) return undefined;
  }
  return value as T[];
}

const isString = (value: unknown): value is string => typeof value === 'string';
const isDependency = (value: unknown): value is number | string =>
  (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) || isStepId(value);

/** One draft step by hand, or `undefined` when anything about it is not plainly valid. */
function parseStep(raw: unknown): ParsedDraftStep | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const input = raw as Record<string, unknown>;
  const { id, title, description } = input;
  if (id !== undefined && !isStepId(id)) return undefined;
  if (title !== undefined && typeof title !== 'string') return undefined;
  if (typeof description !== 'string' || description.length === 0) return undefined;
  const dependsOn = arrayOf(input.dependsOn, isDependency);
  const requiredTools = arrayOf(input.requiredTools, isString);
  const successCriteria = arrayOf(input.successCriteria, isString);
  const protocols = arrayOf(input.protocols, isString);
  if (!dependsOn || !requiredTools || !successCriteria || !protocols) return undefined;
  const step: ParsedDraftStep = { description, dependsOn, requiredTools, successCriteria, protocols };
  if (id !== undefined) step.id = id;
  if (title !== undefined) step.title = title;
  return step;
}

/**
 * Parses a redesign or addition draft. The plain, valid case (what a caller that built the draft
 * itself always passes) is checked by hand, linear and without zod's per-field machinery: on a
 * 2,000-step redesign zod's parse was a large share of `replaceSubgraph`. Anything the hand check
 * does not accept goes to `subgraphDraftSchema.safeParse`, which has the last word and writes
 * the error, so what is accepted and every error message are exactly zod's.
 *
 * The result may share the caller's arrays (`dependsOn`, `requiredTools`, …): the plan only
 * reads them and copies them into the steps it builds.
 */
export function parseSubgraphDraft(draft: unknown): z.ZodSafeParseResult<ParsedSubgraphDraft> {
  if (typeof draft === 'object' && draft !== null && !Array.isArray(draft)) {
    const raw = (draft as { steps?: unknown }).steps;
    if (Array.isArray(raw) && raw.length > 0) {
      const steps: ParsedDraftStep[] = new Array(raw.length);
      let plain = true;
      for (let index = 0; index < raw.length && plain; index++) {
        const step = index in raw ? parseStep(raw[index]) : undefined;
        if (step === undefined) plain = false;
        else steps[index] = step;
      }
      if (plain) return { success: true, data: { steps } };
    }
  }
  return subgraphDraftSchema.safeParse(draft);
}
