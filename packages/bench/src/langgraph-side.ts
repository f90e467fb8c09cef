import { Annotation, END, MemorySaver, Send, START, StateGraph } from '@langchain/langgraph';
import { type DagStep, sleep, type TimedRun } from './workload';

/** The graph state: a counter every node adds 1 to, so a finished run proves every node ran. */
const State = Annotation.Root({
  done: Annotation<number>({ reducer: (a, b) => a + b, default: () => 0 }),
});

/** Options of {@link runLangGraphDag}. */
export interface LangGraphDagOptions {
  steps: readonly DagStep[];
  /** `maxConcurrency` of the run (tasks at once); `undefined`: unlimited (LangGraph's default). */
  maxConcurrency?: number;
}

let threads = 0;

/**
 * Runs a DAG as a LangGraph `StateGraph`: one node per step (sleeping the step's duration, none
 * for a no-op step), an edge from `START` to each root, `addEdge(dep, step)` for one dependency
 * and `addEdge([deps…], step)` (a join that waits for all of them) for several, compiled with a
 * `MemorySaver` checkpointer (default durability, `async`). The figure is building, compiling and
 * invoking the graph — closedloop's figure likewise includes turning the plan into a run.
 */
export async function runLangGraphDag(options: LangGraphDagOptions): Promise<TimedRun> {
  const { steps, maxConcurrency } = options;
  const starts = new Map<string, number>();
  const ends = new Map<string, number>();
  let t0 = 0;
  const node = (step: DagStep) => async () => {
    starts.set(step.id, performance.now() - t0);
    if (step.ms > 0) await sleep(step.ms);
    ends.set(step.id, performance.now() - t0);
    return { done: 1 };
  };
  t0 = performance.now();
  const graph = new StateGraph(State).addNode(
    steps.map((step) => [step.id, node(step)] as [string, () => Promise<{ done: number }>]),
  );
  for (const step of steps) {
    const [first, ...rest] = step.dependsOn;
    if (first === undefined) graph.addEdge(START, step.id);
    else if (rest.length === 0) graph.addEdge(first, step.id);
    else graph.addEdge([...step.dependsOn], step.id);
  }
  const app = graph.compile({ checkpointer: new MemorySaver() });
  const state = await app.invoke(
    { done: 0 },
    {
      configurable: { thread_id: `bench-${threads++}` },
      recursionLimit: steps.length * 2 + 10,
      ...(maxConcurrency !== undefined ? { maxConcurrency } : {}),
    },
  );
  const makespan = performance.now() - t0;
  if (state.done !== steps.length) throw new Error(`LangGraph ran ${state.done} of ${steps.length} nodes`);
  return { makespan, starts, ends };
}

/**
 * A fan-out the LangGraph way (map-reduce with `Send`): `root` sends `width` tasks to one `work`
 * node (each sleeps `ms`), whose results a `join` node sees in the next superstep. Same figure
 * and checkpointer as {@link runLangGraphDag}.
 */
export async function runLangGraphSend(width: number, ms: number): Promise<TimedRun> {
  const starts = new Map<string, number>();
  const ends = new Map<string, number>();
  let t0 = 0;
  const Work = Annotation.Root({ ...State.spec, index: Annotation<number> });
  t0 = performance.now();
  const app = new StateGraph(State)
    .addNode('root', async () => {
      starts.set('root', performance.now() - t0);
      ends.set('root', performance.now() - t0);
      return { done: 1 };
    })
    .addNode(
      'work',
      async ({ index }: typeof Work.State) => {
        starts.set(`c${index}`, performance.now() - t0);
        await sleep(ms);
        ends.set(`c${index}`, performance.now() - t0);
        return { done: 1 };
      },
      { input: Work },
    )
    .addNode('join', async () => {
      starts.set('join', performance.now() - t0);
      ends.set('join', performance.now() - t0);
      return { done: 1 };
    })
    .addEdge(START, 'root')
    .addConditionalEdges('root', () =>
      Array.from({ length: width }, (_, index) => new Send('work', { index })),
    )
    .addEdge('work', 'join')
    .addEdge('join', END)
    .compile({ checkpointer: new MemorySaver() });
  const state = await app.invoke({ done: 0 }, { configurable: { thread_id: `bench-${threads++}` } });
  const makespan = performance.now() - t0;
  if (state.done !== width + 2) throw new Error(`LangGraph ran ${state.done} of ${width + 2} nodes`);
  return { makespan, starts, ends };
}
