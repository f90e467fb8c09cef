import { workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { type CortexOptions, createCortex } from '../create-cortex';
import type { PlannerOutput } from '../draft-plan';
import type { RunEvent } from '../run-events';
import { type ScenarioOptions, scenarioModel } from './scenario-model';

/** A planner step: the id and the description the scripted planner gives it. */
export interface DraftStep {
  id: string;
  description: string;
  dependsOn?: string[];
}

/** The planner's answer for `steps`, with no criteria, protocols or tools. */
export function plannerOutput(steps: readonly DraftStep[]): PlannerOutput {
  return {
    title: 'plan',
    successCriteria: [],
    protocols: [],
    steps: steps.map((step) => ({
      id: step.id,
      description: step.description,
      dependsOn: step.dependsOn ?? [],
      requiredTools: [],
      successCriteria: [],
      protocols: [],
    })),
  };
}

/**
 * Plays `scenario` for `request` end to end on a real temp git workspace (README.md plus
 * `files`) with the real workspace tools; the workspace is pushed on `workspaces` for cleanup.
 * Returns the result, the workspace, the scripted model (its `asked` counters) and every event.
 */
export async function playScenario(options: {
  scenario: ScenarioOptions;
  request: string;
  files?: Record<string, string>;
  workspaces: TempWorkspace[];
  cortex?: Pick<CortexOptions, 'replanner' | 'maxIterations'>;
}) {
  const ws = await createTempWorkspace({ files: { 'README.md': '# demo\n', ...options.files }, git: true });
  options.workspaces.push(ws);
  const model = scenarioModel(options.scenario);
  const events: RunEvent[] = [];
  const cortex = createCortex({
    model,
    tools: workspaceTools({ root: ws.root }),
    workspace: ws.root,
    ...options.cortex,
    onEvent: (event) => events.push(event),
  });
  const result = await cortex.run(options.request);
  return { result, ws, model, events };
}
