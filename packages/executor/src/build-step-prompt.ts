import type { ReadonlyStep, StepId } from '@closedloop/plan';
import { truncateText } from '@closedloop/tools/internal';

/** The output of a completed dependency, as the step's prompt shows it. */
export interface DependencyOutput {
  stepId: StepId;
  description: string;
  output: string;
  /** True when the dependency's verification could not confirm it: the prompt flags it. */
  unverified?: boolean;
  /** The dependency's confidence (0..1, propagated as the minimum along the DAG). */
  confidence?: number;
}

/** Options of {@link buildStepPrompt}. */
export interface BuildStepPromptOptions {
  step: Pick<ReadonlyStep, 'id' | 'description' | 'title' | 'successCriteria' | 'requiredTools'>;
  goal?: string;
  dependencyOutputs?: readonly DependencyOutput[];
  /** Each dependency output is cut to this many characters (with a marker). Default 8000. */
  maxOutputChars?: number;
}

/**
 * The first user message of a step: the run's goal, the step (id, title, description), its
 * success criteria and required tools, and the outputs of the completed steps it depends on —
 * unverified ones flagged so the model does not build on them blindly.
 */
export function buildStepPrompt(options: BuildStepPromptOptions): string {
  const { step, goal, dependencyOutputs = [], maxOutputChars = 8000 } = options;
  const parts: string[] = [];
  if (goal !== undefined && goal.trim() !== '') parts.push(`# Goal of the whole run\n\n${goal.trim()}`);
  const heading = step.title ? `${step.id} — ${step.title}` : step.id;
  parts.push(`# Your step: ${heading}\n\n${step.description.trim()}`);
  if (step.successCriteria.length > 0) {
    parts.push(
      `## Success criteria (all must hold)\n\n${step.successCriteria.map((item) => `- ${item}`).join('\n')}`,
    );
  }
  if (step.requiredTools.length > 0) {
    parts.push(
      `## Required tools\n\nThis step must call these tools successfully, in this order:\n${step.requiredTools
        .map((name, index) => `${index + 1}. ${name}`)
        .join('\n')}`,
    );
  }
  if (dependencyOutputs.length > 0) {
    const blocks = dependencyOutputs.map((dependency) => {
      const lowConfidence = dependency.confidence !== undefined && dependency.confidence < 0.7;
      const confidence =
        dependency.confidence !== undefined ? ` (confidence ${dependency.confidence.toFixed(2)})` : '';
      const flag =
        dependency.unverified || lowConfidence
          ? `\n(UNVERIFIED${confidence}: the verifier could not confirm this step; check before relying on it.)`
          : '';
      const output = dependency.output.trim() === '' ? '(no output recorded)' : dependency.output.trim();
      return `### ${dependency.stepId}: ${dependency.description.trim()}${flag}\n\n${truncateText(output, maxOutputChars)}`;
    });
    parts.push(`## Outputs of the completed steps this step depends on\n\n${blocks.join('\n\n')}`);
  }
  parts.push(
    'Do this step now with the tools. When it is done, or cannot be done, call mark_step with [SUCCESS]: or [FAIL]: notes and your claims.',
  );
  return parts.join('\n\n');
}

/** The user message of the success-cap summary turn (tools disabled). */
export function buildSummaryPrompt(options: { successes: number; mode: 'single' | 'auto' }): string {
  const rounds =
    options.successes === 1 ? '1 successful tool round' : `${options.successes} successful tool rounds`;
  return (
    `This step has reached its limit of ${rounds} (${options.mode} mode). Do not call any tools. ` +
    'Reply with a short summary of what this step did and what, if anything, remains — based only on the tool results above.'
  );
}
