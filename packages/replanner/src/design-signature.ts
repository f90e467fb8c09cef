import type { StepId } from '@closedloop/plan';

/** A step reduced to what makes two designs "the same": its text and its dependencies. */
export interface DesignStep {
  description: string;
  /** Numbers index the same design; strings are ids of steps outside it. */
  dependsOn: readonly (number | string)[];
}

/** Whitespace other than single inner spaces, or trailing punctuation. */
const needsCleanup = /\s\s|[^\S ]|^ | $|[.!;:。]$/u;

/** Lowercased, trimmed, inner whitespace collapsed, trailing punctuation dropped. */
export function normalizeDescription(text: string): string {
  const lower = text.toLowerCase();
  // Fast path: nothing to collapse, trim or drop (the usual case), so the result is `lower`.
  if (!needsCleanup.test(lower)) return lower;
  return lower
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!;:。]+$/u, '')
    .trim();
}

/**
 * A canonical string for a design: every step as `description <- sorted dependencies`, where a
 * dependency inside the design is written as its target's normalised description and one outside
 * as `#id`; lines sorted, so step order does not matter. Dependencies on completed steps are
 * dropped (they are satisfied either way, and the system, not the model, owns them).
 */
export function designSignature(
  steps: readonly DesignStep[],
  options: { isCompleted: (id: StepId) => boolean },
): string {
  const descriptions = steps.map((step) => normalizeDescription(step.description));
  const depText = (dep: number | string): string | undefined => {
    if (typeof dep === 'number') return `> ${descriptions[dep] ?? `#index-${dep}`}`;
    return options.isCompleted(dep) ? undefined : `#${dep}`;
  };
  const lines = steps.map((step, index) => {
    // Zero or one dependency (most steps): no set to deduplicate, nothing to sort.
    if (step.dependsOn.length === 0) return `${descriptions[index]} <- []`;
    if (step.dependsOn.length === 1) {
      return `${descriptions[index]} <- [${depText(step.dependsOn[0]!) ?? ''}]`;
    }
    const deps = new Set<string>();
    for (const dep of step.dependsOn) {
      const text = depText(dep);
      if (text !== undefined) deps.add(text);
    }
    return `${descriptions[index]} <- [${[...deps].sort().join(' | ')}]`;
  });
  return lines.sort().join('\n');
}

/** A step of a design as the plan holds it: dependencies are ids. */
export interface IdDesignStep {
  id: StepId;
  description: string;
  dependsOn: readonly StepId[];
}

/** Turns id-based steps into a {@link DesignStep} list (dependencies inside the list become indexes). */
export function toDesignSteps(steps: readonly IdDesignStep[]): DesignStep[] {
  const index = new Map<StepId, number>(steps.map((step, i) => [step.id, i]));
  return steps.map((step) => ({
    description: step.description,
    dependsOn: step.dependsOn.map((dep) => index.get(dep) ?? dep),
  }));
}
