import type { CoordinatorEvent, StepWorkerEvent } from '@closedloop/bullmq';
import type { Command } from 'commander';
import { terminalSafe } from '../../view/terminal-safe';
import type { CliContext } from '../cli-context';
import { action, usageAfterError, wholeNumber } from '../cli-options';

function describeWorkerEvent(event: StepWorkerEvent): string {
  switch (event.type) {
    case 'step-taken':
      return `took ${event.stepId} of ${event.runId}${event.attempt > 1 ? ` (attempt ${event.attempt}: taken over)` : ''}`;
    case 'step-done':
      return `${event.status} ${event.stepId} of ${event.runId} in ${event.durationMs} ms`;
    case 'step-error':
      return `step ${event.stepId} of ${event.runId} stopped: ${event.error}`;
    case 'step-yielded':
      return `put ${event.stepId} of ${event.runId} back for ${event.delayMs} ms: it waits on the workspace lock of a dead worker's step`;
    case 'worker-error':
      return `error: ${event.error}`;
  }
}

function describeCoordinatorEvent(event: CoordinatorEvent): string {
  switch (event.type) {
    case 'run-taken':
      return `${event.resumed ? 'resuming' : 'running'} ${event.runId}`;
    case 'run-done':
      return `${event.runId} stopped: ${event.stopReason} (${event.durationMs} ms)`;
    case 'run-error':
      return `${event.runId} failed here: ${event.error}`;
    case 'coordinator-error':
      return `error: ${event.error}`;
  }
}

/** What the scale-out commands need once they run: loaded on use, so `--help` stays fast. */
async function loadScaleOut() {
  const [{ createCoordinator, createStepWorker }, { scaleOutCortex, warmUpWorker }, { reachStore }] =
    await Promise.all([
      import('@closedloop/bullmq'),
      import('../../scale-out/scale-out-cortex'),
      import('../../scale-out/scale-out-runner'),
    ]);
  return { createCoordinator, createStepWorker, scaleOutCortex, warmUpWorker, reachStore };
}

/** Resolves on SIGINT or SIGTERM (a scale-out process runs until it is stopped). */
function stopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}

const storeHelp = 'the Redis the runs live in, e.g. redis://127.0.0.1:6379';

/** `closedloop worker --store redis://…`: runs steps of queued runs until stopped. */
export function registerWorkerCommand(program: Command, context: CliContext): void {
  const command = program
    .command('worker')
    .description('scale-out: run steps of the runs queued in Redis (any number of workers, on any machine)')
    .requiredOption('--store <redis-url>', storeHelp)
    .option('--concurrency <n>', 'steps this worker runs at once', wholeNumber(1), 4)
    .option(
      '--group <name>',
      'also run the steps of runs pinned to this group (the machines that hold their workspace); repeatable',
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option('--groups-only', 'only the --group queues, not the shared one', false)
    .option(
      '--warm-up',
      'before taking steps, run the offline demo once on a scratch workspace (no Redis, no run) so the first steps are not slowed by loading and compiling the engine',
      false,
    );
  usageAfterError(command);
  action(
    command,
    context,
    async (flags: {
      store: string;
      concurrency: number;
      group: string[];
      groupsOnly: boolean;
      warmUp: boolean;
    }) => {
      const { io } = context;
      const { createStepWorker, scaleOutCortex, warmUpWorker, reachStore } = await loadScaleOut();
      // A failed warm-up only costs the first steps their speed: say so, and take steps anyway.
      const warmUp = async () => {
        const started = performance.now();
        try {
          const stopReason = await warmUpWorker();
          io.stdout.write(
            `worker: warmed up (offline demo ${stopReason} in ${Math.round(performance.now() - started)} ms)\n`,
          );
        } catch (error) {
          io.stderr.write(
            `worker: warm-up failed, taking steps anyway: ${terminalSafe(error instanceof Error ? error.message : String(error))}\n`,
          );
        }
      };
      const worker = createStepWorker({
        connection: await reachStore(flags.store),
        cortex: scaleOutCortex(io.env),
        concurrency: flags.concurrency,
        groups: flags.group,
        shared: !flags.groupsOnly,
        ...(flags.warmUp ? { warmUp } : {}),
        onEvent: (event) => io.stdout.write(`worker: ${terminalSafe(describeWorkerEvent(event))}\n`),
      });
      await worker.ready();
      const queues = [
        ...(flags.groupsOnly ? [] : ['shared']),
        ...flags.group.map((group) => `group ${group}`),
      ];
      io.stdout.write(
        `closedloop worker: running steps from ${flags.store} (${queues.join(', ')}; ${flags.concurrency} at once). Ctrl-C to stop.\n`,
      );
      await stopped();
      await worker.close();
      return 0;
    },
  );
}

/** `closedloop coordinator --store redis://…`: drives queued runs (and takes over a dead coordinator's) until stopped. */
export function registerCoordinatorCommand(program: Command, context: CliContext): void {
  const command = program
    .command('coordinator')
    .description('scale-out: drive the runs queued in Redis; takes over the runs of a coordinator that died')
    .requiredOption('--store <redis-url>', storeHelp)
    .option('--concurrency <n>', 'runs this coordinator drives at once', wholeNumber(1), 4);
  usageAfterError(command);
  action(command, context, async (flags: { store: string; concurrency: number }) => {
    const { io } = context;
    const { createCoordinator, scaleOutCortex, reachStore } = await loadScaleOut();
    const coordinator = createCoordinator({
      connection: await reachStore(flags.store),
      cortex: scaleOutCortex(io.env),
      concurrency: flags.concurrency,
      onEvent: (event) => io.stdout.write(`coordinator: ${terminalSafe(describeCoordinatorEvent(event))}\n`),
    });
    await coordinator.ready();
    io.stdout.write(
      `closedloop coordinator: driving runs from ${flags.store} (${flags.concurrency} at once). Ctrl-C to stop; its runs go to another coordinator.\n`,
    );
    await stopped();
    await coordinator.close();
    return 0;
  });
}
