import type { StepId } from '@closedloop/plan';

/** A step reduced to what makes two designs "the same": its text and its dependencies. */
export interface DesignStep {
  description: string;
  /** Numbers index the same design; strings are ids of steps outside it. */
  dependsOn: readonly (number | string)[];
}

/** Lowercased, trimmed, inner whitespace collapsed, trailing punctuation dropped. */
export function normalizeDescription(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[.!;:。]+$/u, '')
    .trim();
}

/**
 * A canonical string for a design: every step as `description <- sorted dependencies`, where a
 * dependency inside the design is written as its target's normalised description and one outside
 * as `#id`; lines sorted, so step order does not matter. Dependencies on completed steps are
 * dropped (they are satisfied either way, and the seed leaves them to the system).
 */
export function designSignature(
  steps: readonly DesignStep[],
  options: { isCompleted: (id: StepId) => boolean },
): string {
  const descriptions = steps.map((step) => normalizeDescription(step.description));
  const lines = steps.map((step, index) => {
    const deps = new Set<string>();
    for (const dep of step.dependsOn) {
      if (typeof dep === 'number') deps.add(`> ${descriptions[dep] ?? `#index-${dep}`}`);
      else if (!options.isCompleted(dep)) deps.add(`#${dep}`);
    }
    return `${descriptions[index]} <- [${[...deps].sort().join(' | ')}]`;
  });
  return lines.sort().join('\n');
}

/** Turns id-based steps into a {@link DesignStep} list (dependencies inside the list become indexes). */
export function toDesignSteps(
  steps: readonly { id: StepId; description: string; dependsOn: readonly StepId[] }[],
): DesignStep[] {
  const index = new Map<StepId, number>(steps.map((step, i) => [step.id, i]));
  return steps.map((step) => ({
    description: step.description,
    dependsOn: step.dependsOn.map((dep) => index.get(dep) ?? dep),
  }));
}
