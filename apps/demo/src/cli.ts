import { ScaleOutError } from '@closedloop/bullmq';
import type { RunEvent, RunResult } from '@closedloop/cortex';
import { type CliCommand, CliUsageError, parseCli, usage } from './cli-options';
import { createDemoRunner } from './run-task';
import { createRedisWebBackend } from './scale-out/redis-web-backend';
import {
  reachStore,
  readStoredRun,
  resumeRun,
  runCoordinator,
  runWorker,
  submitRun,
} from './scale-out/scale-out-commands';
import { startWebServer } from './server/web-server';
import { createTerminalView } from './view/terminal-view';

interface Io {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

function summary(result: RunResult, workspace: string, store: string | undefined): string {
  const { report } = result;
  const failedFindings = report.steps.flatMap((step) =>
    step.findings.filter((finding) => finding.status === 'fail'),
  );
  return [
    '',
    `stop reason: ${result.stopReason} — ${result.reason}`,
    `steps: ${report.steps.length}, replans: ${report.replans.length}, failed checks caught: ${failedFindings.length}`,
    `tokens: ${report.usage.usage.inputTokens} in / ${report.usage.usage.outputTokens} out`,
    `workspace: ${workspace}`,
    `journal: closedloop report ${result.runId}${store ? ` --store ${store}` : ''}`,
    '',
    result.answer,
    '',
  ].join('\n');
}

async function runOrResume(
  command: Extract<CliCommand, { kind: 'run' | 'resume' }>,
  io: Io,
): Promise<number> {
  const { options } = command;
  const runner = createDemoRunner(options);
  const tty = !options.json && io.stdout.isTTY === true;
  const view = options.json ? undefined : createTerminalView({ write: (text) => io.stdout.write(text), tty });
  const onEvent = (event: RunEvent) => view?.onEvent(event);
  const controller = new AbortController();
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    io.stderr.write('\nCancelling… (Ctrl-C again to quit at once)\n');
    controller.abort(new Error('cancelled by the user (Ctrl-C)'));
  };
  process.on('SIGINT', onSigint);
  try {
    const started = options.store
      ? await startInStore(command, options.store, io, controller.signal, onEvent)
      : command.kind === 'run'
        ? await runner.startRun({
            task: command.task,
            mode: options.mode,
            signal: controller.signal,
            onEvent,
          })
        : await runner.resumeRun({ runId: command.runId, signal: controller.signal, onEvent });
    view?.note(`workspace: ${started.workspace}`);
    const result = await started.result;
    view?.close();
    if (options.json) {
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      io.stdout.write(summary(result, started.workspace, options.store));
      if (result.stopReason === 'cancelled') {
        io.stdout.write(
          `Resume with: closedloop resume ${result.runId} ${options.store ? `--store ${options.store}` : `--journal ${options.journal}`}\n`,
        );
      }
    }
    return result.stopReason === 'completed' || result.stopReason === 'completed-with-warnings' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** `run`/`resume` with `--store`: the run is queued for a coordinator and followed from Redis. */
function startInStore(
  command: Extract<CliCommand, { kind: 'run' | 'resume' }>,
  store: string,
  io: Io,
  signal: AbortSignal,
  onEvent: (event: RunEvent) => void,
) {
  return command.kind === 'resume'
    ? resumeRun({ store, runId: command.runId, io, signal, onEvent })
    : submitRun({ store, task: command.task, run: command.options, io, signal, onEvent });
}

async function report(command: Extract<CliCommand, { kind: 'report' }>, io: Io): Promise<number> {
  const { store } = command.options;
  const events = store
    ? await readStoredRun(store, command.runId)
    : await createDemoRunner(command.options).readRun(command.runId);
  if (!events)
    throw new CliUsageError(`No journal for run "${command.runId}" in ${store ?? command.options.journal}.`);
  if (command.options.json) {
    io.stdout.write(`${JSON.stringify(events, null, 2)}\n`);
    return 0;
  }
  const view = createTerminalView({ write: (text) => io.stdout.write(text), tty: false });
  for (const event of events) view.onEvent(event);
  view.close();
  return 0;
}

async function serve(command: Extract<CliCommand, { kind: 'serve' }>, io: Io): Promise<number> {
  const { store } = command.options;
  const redis = store
    ? createRedisWebBackend({ store: await reachStore(store), run: command.options, io })
    : undefined;
  const runner = redis ?? createDemoRunner(command.options);
  const server = await startWebServer({
    host: command.host,
    port: command.port,
    journalDir: command.options.journal,
    ...runner,
  });
  io.stdout.write(
    `closedloop web UI: ${server.url}${store ? ` — runs in ${store}` : ''}  (Ctrl-C to stop)\n`,
  );
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  await server.close();
  await redis?.close();
  return 0;
}

/** `closedloop worker|coordinator --store …`: runs until SIGINT or SIGTERM. */
async function scaleOutProcess(command: Extract<CliCommand, { kind: 'worker' | 'coordinator' }>, io: Io) {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const { store, concurrency } = command.options;
    return command.kind === 'worker'
      ? await runWorker({
          store,
          concurrency,
          groups: command.groups,
          shared: command.shared,
          io,
          signal: controller.signal,
        })
      : await runCoordinator({ store, concurrency, io, signal: controller.signal });
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: string[], io: Io = { stdout: process.stdout, stderr: process.stderr }) {
  try {
    const command = parseCli(argv);
    switch (command.kind) {
      case 'help':
        io.stdout.write(usage);
        return 0;
      case 'report':
        return await report(command, io);
      case 'serve':
        return await serve(command, io);
      case 'worker':
      case 'coordinator':
        return await scaleOutProcess(command, io);
      default:
        return await runOrResume(command, io);
    }
  } catch (error) {
    if (error instanceof CliUsageError || (error instanceof Error && error.name === 'CortexError')) {
      io.stderr.write(`closedloop: ${error.message}\n`);
      return 2;
    }
    if (ScaleOutError.isInstance(error)) {
      io.stderr.write(`closedloop: ${error.message}\n`);
      return error.code === 'invalid-options' ? 2 : 1;
    }
    throw error;
  }
}
