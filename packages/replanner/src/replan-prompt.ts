import type { ToolSpec } from '@closedloop/model';
import type { Plan, ReadonlyStep, StepId } from '@closedloop/plan';
import type { PlanView } from './plan-view';
import type { EarlierRedesign } from './replan-history';
import type { ReplanScope } from './replan-scope';

/**
 * The system message of every replanner request. Constant, so the user prompt
 * ({@link buildReplanPrompt}) carries everything that varies.
 */
export const replannerSystemPrompt = [
  'You are the replanner of an agent that works through a plan: a graph of steps, each carried out',
  'with real tool calls and verified against evidence. Some steps failed verification. You redesign',
  'only the failed steps and the steps that depend on them; completed steps are kept and never re-run.',
  'Base your redesign on the tool history and the failure evidence, not on guesses. Never repeat a',
  'design that already failed. If no redesign can reach the goal with the available tools, give up.',
].join('\n');

/** Everything the prompt shows. */
export interface ReplanPromptInput {
  plan: Plan;
  view: PlanView;
  scope: ReplanScope;
  /** Kept steps that will be blocked with this replan (attempt limit). */
  blockedAfter: ReadonlySet<StepId>;
  tools: readonly ToolSpec[];
  goal: string;
  earlier: readonly EarlierRedesign[];
  maxAttempts: number;
  maxResultChars: number | undefined;
  /**
   * Budget in characters for the completed steps' tool history. Steps nearest to the failure
   * (upstream of it first, then the most recent) get their full history until it is spent; the
   * rest are counted and named in one line. `Infinity` shows everything.
   */
  maxHistoryChars: number;
}

const list = (ids: readonly StepId[]) => ids.join(', ');
const maxTargetIds = 30;

/** The redesign target in the task text: every id, or the first ones and the count for big subgraphs. */
function targetList(ids: readonly StepId[]): string {
  if (ids.length <= maxTargetIds) return list(ids);
  return `${list(ids.slice(0, maxTargetIds))}, … (${ids.length} steps in all: every failed and downstream step listed above)`;
}
const omittedIdsShown = 20;

/**
 * Collects the prompt as pieces and joins them once: joining each section and then the sections
 * copied the (often several hundred kilobyte) history three times.
 */
class PromptWriter {
  readonly #pieces: string[] = [];

  /** Starts a section (sections are separated by a blank line). */
  section(text: string): void {
    if (this.#pieces.length > 0) this.#pieces.push('\n\n');
    this.#pieces.push(text);
  }

  /** Continues the current section with `separator` and `text`. */
  append(separator: string, text: string): void {
    this.#pieces.push(separator, text);
  }

  toString(): string {
    return this.#pieces.join('');
  }
}

function writeCompletedSection(
  out: PromptWriter,
  input: ReplanPromptInput,
  completed: readonly StepId[],
): void {
  if (completed.length === 0) {
    out.section('## Completed steps (kept)\nNone yet.');
    return;
  }
  const { plan, maxHistoryChars } = input;
  const formatOptions = input.maxResultChars === undefined ? {} : { maxResultChars: input.maxResultChars };
  out.section('## Completed steps (kept; full tool history)');
  if (maxHistoryChars === Number.POSITIVE_INFINITY) {
    out.section(plan.formatToolHistory(completed, formatOptions));
    return;
  }
  // Nearest to the failure first: completed steps upstream of the subgraph (closest first), then
  // the other completed steps, most recent first. Stops at the first step that does not fit.
  const texts = new Map<StepId, string>();
  let used = 0;
  let full = false;
  const take = (id: StepId): void => {
    const text = plan.formatToolHistory(id, formatOptions);
    if (used + text.length > maxHistoryChars && texts.size > 0) {
      full = true;
      return;
    }
    texts.set(id, text);
    used += text.length + 2;
  };
  for (const id of input.view.upstream()) {
    if (full) break;
    if (!texts.has(id) && input.view.status(id) === 'completed') take(id);
  }
  for (let index = completed.length - 1; index >= 0 && !full; index--) {
    const id = completed[index]!;
    if (!texts.has(id)) take(id);
  }
  // One pass in display order: the shown texts, and the omitted ids (named before the texts).
  const shown: string[] = [];
  const omitted: StepId[] = [];
  for (const id of completed) {
    const text = texts.get(id);
    if (text === undefined) omitted.push(id);
    else shown.push(text);
  }
  if (omitted.length > 0) {
    const named = omitted.slice(0, omittedIdsShown).join(', ');
    out.section(
      `The history of ${omitted.length} more completed step(s) is omitted to fit the model's context (${maxHistoryChars} characters for history): ${named}${
        omitted.length > omittedIdsShown ? ', …' : ''
      }. Their results stay available to new steps.`,
    );
  }
  shown.forEach((text, index) => {
    if (index === 0) out.section(text);
    else out.append('\n\n', text);
  });
}

function label(step: ReadonlyStep): string {
  return step.title ?? step.description;
}

function failedStepBlock(input: ReplanPromptInput, step: ReadonlyStep): string {
  const history = input.plan.formatToolHistory(
    step.id,
    input.maxResultChars === undefined ? {} : { maxResultChars: input.maxResultChars },
  );
  const lines = [history];
  if (step.requiredTools.length > 0) lines.push(`Required tools: ${step.requiredTools.join(', ')}`);
  if (step.successCriteria.length > 0) {
    lines.push('Success criteria:');
    for (const criterion of step.successCriteria) lines.push(`  - ${criterion}`);
  }
  const used = step.replanAttempts;
  lines.push(
    `Redesigns so far: ${used} of ${input.maxAttempts}${
      used + 1 >= input.maxAttempts ? ' (this is the last redesign allowed)' : ''
    }`,
  );
  return lines.join('\n');
}

function downstreamLine(step: ReadonlyStep): string {
  const title = `### Step ${step.id}: ${label(step)}`;
  const deps = step.dependsOn.length > 0 ? ` (depends on: ${list(step.dependsOn)})` : '';
  const description =
    step.title !== undefined && step.title !== step.description ? `\nDescription: ${step.description}` : '';
  return `${title}${deps}${description}`;
}

function earlierBlock(redesign: EarlierRedesign, index: number): string {
  const lines = [
    `### Earlier redesign ${index + 1}: replaced ${list(redesign.replaced)} after ${list(redesign.failed)} failed`,
  ];
  const reasons = (redesign.replacedSteps ?? []).filter((step) => step.failure !== undefined);
  for (const step of reasons) lines.push(`Why: ${step.id} (${step.description}) failed — ${step.failure}`);
  lines.push('Its steps:');
  for (const step of redesign.steps) {
    const deps = step.dependsOn.length > 0 ? ` (depends on: ${list(step.dependsOn)})` : '';
    const outcome = step.status === 'not_started' ? 'never ran' : step.status;
    const failure = step.failure === undefined ? '' : ` — ${step.failure}`;
    lines.push(`- ${step.id}: ${step.description}${deps} [${outcome}]${failure}`);
  }
  return lines.join('\n');
}

function toolBlock(tool: ToolSpec): string {
  return [`### ${tool.name}`, tool.description, `Input schema: ${JSON.stringify(tool.inputSchema)}`].join(
    '\n',
  );
}

/**
 * Renders the replanner's user prompt: goal, completed steps with their full
 * tool history, failed steps with ledger, notes and verification findings, downstream steps,
 * other kept steps, earlier failed redesigns, the tools with their schemas, the task and the
 * answer format. Deterministic: no clocks, no randomness, plan order throughout.
 */
export function buildReplanPrompt(input: ReplanPromptInput): string {
  const { view, scope, blockedAfter, tools, earlier } = input;
  const removed = new Set(scope.removed);
  const completed = view.completed;
  const others: ReadonlyStep[] = [];
  for (const id of view.unfinished) if (!removed.has(id)) others.push(view.step(id)!);
  const out = new PromptWriter();

  out.section(
    `# Replan: redesign the failed part of the plan\n\n## Goal\n${input.goal.trim() || '(no goal given)'}`,
  );
  if (input.plan.title.trim() !== '') out.section(`Plan: ${input.plan.title.trim()}`);

  writeCompletedSection(out, input, completed);

  out.section('## Failed steps (to redesign)');
  for (const id of scope.redesigned) out.append('\n\n', failedStepBlock(input, view.step(id)!));

  if (scope.downstream.length > 0) {
    out.section('## Downstream steps (to redesign: they depend on the failed steps)');
    scope.downstream.forEach((id, index) => {
      out.append(index === 0 ? '\n\n' : '\n', downstreamLine(view.step(id)!));
    });
  }

  if (others.length > 0) {
    const lines = others.map((step) => {
      const note = blockedAfter.has(step.id)
        ? 'will be blocked: attempt limit reached'
        : step.status === 'blocked' || step.status === 'skipped' || step.status === 'failed'
          ? `${step.status}: will not complete`
          : step.status;
      return `- ${step.id}: ${label(step)} [${note}]`;
    });
    out.section(
      `## Other steps (kept, not finished; depend only on those that can still complete)\n${lines.join('\n')}`,
    );
  }

  if (earlier.length > 0) {
    out.section(
      `## Earlier redesigns that failed\nThese were tried for this part of the plan and did not reach the goal. Do not propose them again: an identical design is rejected.\n\n${earlier
        .map(earlierBlock)
        .join('\n\n')}`,
    );
  }

  out.section(
    tools.length === 0
      ? '## Available tools\nNone: steps can only reason and report.'
      : `## Available tools\n\n${tools.map(toolBlock).join('\n\n')}`,
  );

  const target = targetList(scope.removed);
  out.section(
    [
      '## Your task',
      `Redesign steps ${target}. They are removed and replaced by your new steps, as a whole.`,
      '- You may merge, split, reorder or completely rewrite them. Fix the cause of the failure shown above;',
      `  proposing steps ${target} again unchanged is rejected.`,
      '- Each new step needs a concrete `description` an agent can carry out with the tools above;',
      '  optional: `title`, `requiredTools` (exact tool names, in call order), `successCriteria` (checkable facts).',
      '- `dependencies`: key = index of a new step ("0", "1", …); value = what it depends on. A number is the',
      '  index of another new step; a string is the id of a kept step. No cycles. Do not depend on the steps',
      '  being replaced, nor on steps that will not complete. A new step that needs only completed work may',
      '  have no dependencies: completed results stay available.',
      '- Completed steps cannot be changed or re-run.',
      '- If the goal cannot be reached with the available tools, answer give_up with the reason.',
    ].join('\n'),
  );

  out.section(
    [
      '## Answer format',
      'One JSON object, either',
      '{"action":"redesign","steps":[{"description":"…"},{"description":"…","requiredTools":["…"]}],"dependencies":{"0":["<kept step id>"],"1":[0]}}',
      'or',
      '{"action":"give_up","reason":"…"}',
    ].join('\n'),
  );

  out.append('', '\n');
  return out.toString();
}
