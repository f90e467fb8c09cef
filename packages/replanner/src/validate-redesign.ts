import type { Plan, StepId } from '@closedloop/plan';
import { findIndexCycle } from '@closedloop/plan/internal';
import { designSignature, type IdDesignStep, normalizeDescription, toDesignSteps } from './design-signature';
import type { ReplanRedesign } from './replan-result';

/** What can be wrong with a redesign. */
export type RedesignProblemCode =
  /** No steps. */
  | 'empty-redesign'
  /** A step's description is blank. */
  | 'empty-description'
  /** A `dependencies` key that is not the index of a new step. */
  | 'invalid-dependency-key'
  /** A dependency that resolves to nothing: index out of range, unknown id. */
  | 'dangling-dependency'
  /** A dependency on a step this redesign removes (refer to new steps by index instead). */
  | 'replaced-step-dependency'
  /** A dependency on a kept step that will never complete (blocked, skipped, failed). */
  | 'unsatisfiable-dependency'
  /** New steps depend on each other in a circle (or a step on itself). */
  | 'cycle'
  /** The answer tries to change a completed step. */
  | 'completed-step-touched'
  /** `requiredTools` names a tool that does not exist. */
  | 'unknown-tool'
  /** The same design (normalised descriptions + dependency structure) already failed. */
  | 'repeated-redesign'
  /**
   * The new steps ask for less than the steps they replace: those asked for a change and the new
   * ones only look (`add tests for parse` → `review parse`), or a backticked name the replaced
   * steps named is named by no new step (a part of the work dropped).
   */
  | 'weakened-redesign';

/** One reason a redesign was rejected. The message is what the model sees in the repair turn. */
export interface RedesignProblem {
  code: RedesignProblemCode;
  message: string;
}

/** A design that already failed, for the repeated-redesign check. */
export interface FailedDesign {
  /** How the problem message names it (`the current steps 5, 6, 7`, `earlier redesign 1`). */
  label: string;
  /** Its number of steps: designs of another size cannot be the same. */
  size: number;
  /** Its {@link designSignature} (computed on demand: only designs of the draft's size need it). */
  signature: () => string;
  /**
   * Its steps' normalised descriptions, when cheaper than the signature: a draft with a step
   * whose normalised description is not among them is another design, without building either
   * signature.
   */
  descriptions?: () => ReadonlySet<string>;
}

/**
 * Builds a {@link FailedDesign} from id-based steps (dependencies inside the list become indexes,
 * see `toDesignSteps`). Nothing is computed until a draft of the same size needs it; then each
 * part once.
 */
export function failedDesign(
  label: string,
  steps: readonly IdDesignStep[],
  options: { isCompleted: (id: StepId) => boolean },
): FailedDesign {
  let signature: string | undefined;
  let descriptions: Set<string> | undefined;
  return {
    label,
    size: steps.length,
    signature: () => {
      signature ??= designSignature(toDesignSteps(steps), options);
      return signature;
    },
    descriptions: () => {
      descriptions ??= new Set(steps.map((step) => normalizeDescription(step.description)));
      return descriptions;
    },
  };
}

/** Verbs that ask for a change of the workspace. */
const CHANGE_VERB =
  /\b(?:add|create|write|implement|fix|remove|delete|rename|update|change|modify|edit|refactor|replace|move|install|upgrade|bump|insert|append|define|introduce|convert|migrate|patch|configure|commit|generate|port|extract|make|build|set|restore|repair|rewrite|split|merge|tag|deploy|publish)\b/i;

/** Tools that act on the workspace or the world (not only read it). */
const ACTING_TOOL =
  /write|edit|delete|remove|move|rename|create|patch|apply|run_command|exec|shell|commit|install/i;

/** Descriptions without quoted spans: a quoted `set` is a name, not a verb. */
const prose = (text: string) => text.replace(/`[^`\n]*`|"[^"\n]*"/g, ' ');

/** True when a step description asks to change something (not only to look, read or report). */
export function asksForChange(description: string): boolean {
  return CHANGE_VERB.test(prose(description));
}

/** The backticked identifiers of a description (`name` and `name()`). */
function namesOf(description: string): string[] {
  return [...description.matchAll(/`([A-Za-z_$][\w$]*)(?:\(\))?`/g)].map((match) => match[1]!);
}

/**
 * The work the replaced steps asked for that the redesign no longer asks for: a change replaced by
 * steps that only look (no change verb in their descriptions, no acting tool required), or
 * backticked names no new step names. Empty when nothing was dropped.
 */
export function weakenedWork(
  replaced: readonly string[],
  redesigned: readonly { description: string; requiredTools?: readonly string[] | undefined }[],
): RedesignProblem[] {
  const problems: RedesignProblem[] = [];
  // A new step that requires a tool that acts must call it (the verifier's required-tools check).
  const changes = (step: (typeof redesigned)[number]) =>
    asksForChange(step.description) || (step.requiredTools ?? []).some((tool) => ACTING_TOOL.test(tool));
  if (replaced.some(asksForChange) && !redesigned.some(changes)) {
    problems.push({
      code: 'weakened-redesign',
      message:
        'The replaced steps ask for a change, but every new step only looks (reads, reviews, checks). A redesign must still do the work: repair it another way, or answer {"action":"give_up"} with a reason.',
    });
  }
  const named = new Set(redesigned.flatMap((step) => namesOf(step.description)));
  const dropped = [...new Set(replaced.flatMap(namesOf))].filter((name) => !named.has(name));
  if (dropped.length > 0) {
    problems.push({
      code: 'weakened-redesign',
      message: `The replaced steps ask for ${dropped.map((name) => `\`${name}\``).join(', ')}, which no new step names: the redesign drops that work. Keep every part of the replaced steps' work, or give up.`,
    });
  }
  return problems;
}

/** What {@link validateRedesign} checks against. */
export interface RedesignValidationContext {
  plan: Plan;
  /** Steps the redesign removes. */
  removed: ReadonlySet<StepId>;
  /** Kept steps that will be blocked with this replan (attempt limit), so cannot be depended on. */
  blockedAfter: ReadonlySet<StepId>;
  /** Names of the available tools. */
  toolNames: ReadonlySet<string>;
  /** Designs that already failed. */
  failedDesigns: readonly FailedDesign[];
}

const quote = (value: unknown) => JSON.stringify(value);

const digits = /^\d+$/;

/**
 * The keys of `dependencies`: index keys in numeric order, then any other keys in string order,
 * so problem lists are stable. Each key's rank is computed once (a regex per comparison was most
 * of the validation of a 2,000-step redesign); index keys usually arrive sorted already.
 */
function sortedKeys(dependencies: Readonly<Record<string, unknown>>): string[] {
  const ranked = Object.keys(dependencies).map((key) => ({
    key,
    rank: digits.test(key) ? Number(key) : Number.POSITIVE_INFINITY,
  }));
  ranked.sort((a, b) => (a.rank !== b.rank ? a.rank - b.rank : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return ranked.map((entry) => entry.key);
}

/**
 * Checks a `redesign` answer before it touches the plan: non-empty, every dependency resolves
 * (a number is an index of a new step, a string the id of a kept step that can still complete),
 * acyclic, no completed step touched, every required tool exists, no work of the replaced steps
 * dropped ({@link weakenedWork}), and not a repeat of a design that already failed. Returns every problem found (empty when the redesign is valid).
 */
export function validateRedesign(
  redesign: ReplanRedesign,
  context: RedesignValidationContext,
): RedesignProblem[] {
  const { plan, removed, blockedAfter, toolNames } = context;
  const problems: RedesignProblem[] = [];
  const count = redesign.steps.length;
  if (count === 0) {
    problems.push({
      code: 'empty-redesign',
      message:
        'The redesign has no steps. Give at least one step, or answer {"action":"give_up"} with a reason.',
    });
    return problems;
  }

  redesign.steps.forEach((step, index) => {
    if (step.description.trim() === '') {
      problems.push({ code: 'empty-description', message: `New step ${index} has an empty description.` });
    }
    for (const tool of step.requiredTools ?? []) {
      if (!toolNames.has(tool)) {
        const known = [...toolNames].sort();
        problems.push({
          code: 'unknown-tool',
          message: `New step ${index} requires tool ${quote(tool)}, which does not exist. Available tools: ${
            known.length === 0 ? '(none)' : known.join(', ')
          }.`,
        });
      }
    }
  });

  const edges: number[][] = Array.from({ length: count }, () => []);
  for (const key of sortedKeys(redesign.dependencies)) {
    const deps = redesign.dependencies[key]!;
    const index = /^(0|[1-9]\d*)$/.test(key) ? Number(key) : Number.NaN;
    if (!(index < count)) {
      if (plan.has(key) && plan.status(key) === 'completed') {
        problems.push({
          code: 'completed-step-touched',
          message: `dependencies key ${quote(key)} is a completed step; completed steps are kept as they are and cannot be changed. Keys are indexes of new steps (0..${count - 1}).`,
        });
      } else {
        problems.push({
          code: 'invalid-dependency-key',
          message: `dependencies key ${quote(key)} is not the index of a new step; keys must be "0".."${count - 1}".`,
        });
      }
      continue;
    }
    for (const dep of deps) {
      if (typeof dep === 'number') {
        if (dep === index) {
          problems.push({ code: 'cycle', message: `New step ${index} depends on itself.` });
        } else if (!Number.isInteger(dep) || dep < 0 || dep >= count) {
          problems.push({
            code: 'dangling-dependency',
            message: `New step ${index} depends on index ${dep}, but there are only ${count} new steps (0..${count - 1}).`,
          });
        } else {
          edges[index]!.push(dep);
        }
        continue;
      }
      if (removed.has(dep)) {
        problems.push({
          code: 'replaced-step-dependency',
          message: `New step ${index} depends on ${quote(dep)}, a step this redesign replaces. Depend on the new step that takes over its work, by index.`,
        });
      } else if (!plan.has(dep)) {
        problems.push({
          code: 'dangling-dependency',
          message: `New step ${index} depends on ${quote(dep)}, which is not a step of the plan. Use an index (number) for new steps and the exact id (string) for kept steps.`,
        });
      } else {
        const status = plan.status(dep);
        if (blockedAfter.has(dep) || status === 'blocked' || status === 'skipped' || status === 'failed') {
          problems.push({
            code: 'unsatisfiable-dependency',
            message: `New step ${index} depends on ${quote(dep)}, which will never complete (${
              blockedAfter.has(dep) ? 'blocked: attempt limit reached' : status
            }). Remove that dependency or give up.`,
          });
        }
      }
    }
  }

  const cycle = findIndexCycle(edges);
  if (cycle !== undefined) {
    problems.push({
      code: 'cycle',
      message: `The new steps depend on each other in a cycle: ${cycle.join(' → ')} (a → b: a depends on b). Remove one of these dependencies.`,
    });
  }

  if (problems.length === 0) {
    const replaced = [...removed].flatMap((id) => (plan.has(id) ? [plan.readStep(id).description] : []));
    problems.push(...weakenedWork(replaced, redesign.steps));
  }

  const sameSize = context.failedDesigns.filter((design) => design.size === count);
  if (problems.length === 0 && sameSize.length > 0) {
    // Normalised descriptions first (cheap, and they differ for almost every new design); the
    // signature, which sorts every step's line, only for a design whose descriptions all match.
    const normalized: string[] = [];
    const described = (design: FailedDesign) => {
      const known = design.descriptions?.();
      if (known === undefined) return true;
      for (let index = 0; index < count; index++) {
        normalized[index] ??= normalizeDescription(redesign.steps[index]!.description);
        if (!known.has(normalized[index]!)) return false;
      }
      return true;
    };
    let signature: string | undefined;
    const repeated = sameSize.find((design) => {
      if (!described(design)) return false;
      signature ??= designSignature(
        redesign.steps.map((step, index) => ({
          description: step.description,
          dependsOn: redesign.dependencies[String(index)] ?? [],
        })),
        { isCompleted: (id) => plan.has(id) && plan.status(id) === 'completed' },
      );
      return design.signature() === signature;
    });
    if (repeated !== undefined) {
      problems.push({
        code: 'repeated-redesign',
        message: `This redesign is the same as ${repeated.label}, which already failed (same steps and dependencies). Propose a different approach, or give up.`,
      });
    }
  }
  return problems;
}
