import { type ApprovalHandler, isResumableStop, type RunEvent, type RunResult } from '@closedloop/cortex';
import type { StartedRun } from '../runner/demo-runner';
import { terminalSafe, terminalSafeLines } from '../view/terminal-safe';
import { createTerminalView } from '../view/terminal-view';
import type { CliContext } from './cli-context';
import { cliCommand, displayPath } from './invocation';

/** The run's end: what the model answered and why the run stopped are shown, never obeyed. */
function summary(result: RunResult, started: StartedRun): string {
  const { report } = result;
  const failedChecks = report.steps.flatMap((step) =>
    step.findings.filter((finding) => finding.status === 'fail'),
  );
  return [
    '',
    `stop reason: ${result.stopReason} — ${terminalSafe(result.reason)}`,
    `steps: ${report.steps.length}, replans: ${report.replans.length}, failed checks caught: ${failedChecks.length}`,
    `tokens: ${report.usage.usage.inputTokens} in / ${report.usage.usage.outputTokens} out`,
    `model: ${terminalSafe(`${started.model.provider}/${started.model.modelId}`)}`,
    `workspace: ${terminalSafe(started.workspace)}`,
    '',
    terminalSafeLines(result.answer),
    '',
  ].join('\n');
}

/**
 * Starts (or resumes) a run, draws it live, prints the summary (or the `RunResult` as JSON), and
 * how to resume or re-read it. Ctrl-C cancels cleanly; a second Ctrl-C quits at once.
 * Resolves with the exit code: 0 when the run completed, 1 otherwise.
 */
export async function runAndRender(
  context: CliContext,
  options: {
    json: boolean;
    /** `--journal` as given (absent: the default, which the printed commands need not name). */
    journal?: string | undefined;
    /** `--store redis://…`: the run lives in Redis (the commands it prints say so). */
    store?: string | undefined;
    /** Answers the run's approval requests (none: every request is denied). */
    onApproval?: ApprovalHandler;
    start: (hooks: {
      signal: AbortSignal;
      onEvent: (event: RunEvent) => void;
      onApproval?: ApprovalHandler | undefined;
    }) => Promise<StartedRun>;
  },
): Promise<number> {
  const { io } = context;
  const view = options.json
    ? undefined
    : createTerminalView({ stream: io.stdout, live: io.stdout.isTTY === true });
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
    const started = await options.start({
      signal: controller.signal,
      onEvent: (event) => view?.onEvent(event),
      ...(options.onApproval ? { onApproval: options.onApproval } : {}),
    });
    view?.note(`model: ${terminalSafe(`${started.model.provider}/${started.model.modelId}`)}`);
    view?.note(`workspace: ${terminalSafe(started.workspace)}`);
    const result = await started.result;
    view?.close();
    // The default journal needs no flag to be found again.
    const where = options.store
      ? ` --store ${options.store}`
      : options.journal !== undefined
        ? ` --journal ${displayPath(options.journal, io.cwd)}`
        : '';
    const again = `${cliCommand(io)} %s ${result.runId}${where}`;
    if (options.json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      io.stdout.write(summary(result, started));
      io.stdout.write(`Report again: ${again.replace('%s', 'report')}\n`);
      if (isResumableStop(result.stopReason))
        io.stdout.write(`Resume with: ${again.replace('%s', 'resume')}\n`);
    }
    return result.stopReason === 'completed' || result.stopReason === 'completed-with-warnings' ? 0 : 1;
  } finally {
    view?.close();
    process.off('SIGINT', onSigint);
  }
}
