import type { PlanInput } from '../schema';

/**
 * The example DAG `{1:[0], 2:[0], 3:[1], 4:[2], 5:[3,4], 6:[5], 7:[5]}` with string ids:
 *
 * ```
 * analyze → scaffold → models ─┐
 *         ↘ config  → db     ─┴→ api → write-tests
 *                                    ↘ run-tests
 * ```
 */
export const exampleDag = {
  title: 'REST API',
  goal: 'Build a REST API with tests',
  steps: [
    { id: 'analyze', description: 'Analyze the requirements' },
    { id: 'scaffold', description: 'Create the project structure', dependsOn: ['analyze'] },
    { id: 'config', description: 'Write the configuration', dependsOn: ['analyze'] },
    { id: 'models', description: 'Write the data models', dependsOn: ['scaffold'] },
    { id: 'db', description: 'Set up the database connection', dependsOn: ['config'] },
    {
      id: 'api',
      title: 'Write API endpoints',
      description: 'Write the API endpoints',
      dependsOn: ['models', 'db'],
    },
    { id: 'write-tests', description: 'Write the tests', dependsOn: ['api'] },
    { id: 'run-tests', description: 'Run the tests', dependsOn: ['api'] },
  ],
} satisfies PlanInput;

/** A clock that ticks one millisecond per call, from `start`. */
export function tickingClock(start = 1_000): () => number {
  let now = start;
  return () => now++;
}
