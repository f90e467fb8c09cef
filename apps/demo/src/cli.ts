import type { RunEvent, RunResult } from '@closedloop/cortex';
import { cliApprovals } from './approval-answers';
import { type CliCommand, CliUsageError, parseCli, usage } from './cli-options';
import { renderJournalProblem } from './journal-problem';
import { createDemoRunner } from './run-task';
import { startWebServer } from './server/web-server';
import { createTerminalView } from './view/terminal-view';

interface Io {
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
  /** Where approval prompts read answers (default `process.stdin`). */
  stdin?: NodeJS.ReadStream;
}

function summary(result: RunResult, workspace: string): string {
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
    `journal: closedloop report ${result.runId}`,
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
  const approvals = cliApprovals({
    answer: options.approval,
    stdin: io.stdin ?? process.stdin,
    stderr: io.stderr,
  });
  const onApproval = approvals ? { onApproval: approvals } : {};
  try {
    const started =
      command.kind === 'run'
        ? await runner.startRun({
            task: command.task,
            mode: options.mode,
            signal: controller.signal,
            onEvent,
            ...onApproval,
          })
        : await runner.resumeRun({ runId: command.runId, signal: controller.signal, onEvent, ...onApproval });
    view?.note(`workspace: ${started.workspace}`);
    const result = await started.result;
    view?.close();
    if (options.json) {
      io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    } else {
      io.stdout.write(summary(result, started.workspace));
      if (result.stopReason === 'cancelled') {
        io.stdout.write(`Resume with: closedloop resume ${result.runId} --journal ${options.journal}\n`);
      }
    }
    return result.stopReason === 'completed' || result.stopReason === 'completed-with-warnings' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

async function report(command: Extract<CliCommand, { kind: 'report' }>, io: Io): Promise<number> {
  const runner = createDemoRunner(command.options);
  const { exists, events, problem } = await runner.inspectRun(command.runId);
  if (!exists && !problem)
    throw new CliUsageError(`No journal for run "${command.runId}" in ${command.options.journal}.`);
  if (problem) {
    // Show what is intact, then say exactly what is wrong.
    const view = createTerminalView({ write: (text) => io.stdout.write(text), tty: false });
    for (const event of events) view.onEvent(event);
    view.close();
    io.stderr.write(renderJournalProblem(command.runId, problem, events.length));
    return 1;
  }
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
  const runner = createDemoRunner(command.options);
  const server = await startWebServer({
    host: command.host,
    port: command.port,
    journalDir: command.options.journal,
    startRun: runner.startRun,
    readRun: runner.readRun,
  });
  io.stdout.write(`closedloop web UI: ${server.url}  (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  await server.close();
  return 0;
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
      default:
        return await runOrResume(command, io);
    }
  } catch (error) {
    if (error instanceof CliUsageError || (error instanceof Error && error.name === 'CortexError')) {
      io.stderr.write(`closedloop: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
}
