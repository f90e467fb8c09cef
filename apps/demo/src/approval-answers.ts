import type { ApprovalHandler, ApprovalRequest } from '@closedloop/cortex';
import { terminalSafe } from './view/terminal-safe';

/** How the CLI answers approvals: `--approve`, `--deny`, or (none given) a prompt on a TTY. */
export type ApprovalAnswer = 'approve' | 'deny';

/**
 * One line describing what is asked, for the prompt and the log: shown on the terminal, never
 * obeyed (the step id, the reason and the call's arguments come from the model, which could
 * otherwise redraw the question or show a command reversed).
 */
export function describeApproval(request: ApprovalRequest): string {
  const subject = request.tool
    ? ` ${request.tool}${request.args === undefined ? '' : ` ${JSON.stringify(request.args)}`}`
    : '';
  return terminalSafe(`[${request.kind}] step ${request.stepId}${subject}: ${request.reason}`);
}

/** Answers every approval the same way (`--approve` / `--deny`), and says so on `log`. */
export function fixedApprovals(answer: ApprovalAnswer, log: (line: string) => void): ApprovalHandler {
  return (request) => {
    const approved = answer === 'approve';
    log(`${approved ? 'approved' : 'denied'} (--${answer}): ${describeApproval(request)}\n`);
    return { approved, note: `--${answer} on the command line` };
  };
}

/**
 * Asks on the terminal, one question at a time: "Approve? [y/N]" (anything but y/yes is no).
 * An aborted run stops waiting and answers no.
 */
export function promptApprovals(io: {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}): ApprovalHandler {
  let queue: Promise<unknown> = Promise.resolve();
  return (request) => {
    const asked = queue.then(async () => {
      // Loaded when a question is asked: `closedloop --help` and runs without prompts never need it.
      const { createInterface } = await import('node:readline/promises');
      const readline = createInterface({ input: io.input, output: io.output, terminal: true });
      try {
        const answer = await readline.question(`\n${describeApproval(request)}\nApprove? [y/N] `, {
          signal: request.signal,
        });
        const approved = /^\s*y(es)?\s*$/i.test(answer);
        return { approved, note: approved ? 'approved at the terminal' : 'denied at the terminal' };
      } catch {
        return { approved: false, note: 'the run stopped while waiting for an answer' };
      } finally {
        readline.close();
      }
    });
    queue = asked.catch(() => undefined);
    return asked;
  };
}

/**
 * The CLI's approval handler: `--approve` / `--deny` answer everything; without them, a prompt
 * when stdin and stderr are a terminal; otherwise none (cortex then answers no, and an
 * interrupted step that needs an answer stays blocked — the message says to pass a flag).
 */
export function cliApprovals(options: {
  answer: ApprovalAnswer | undefined;
  stdin: { isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
}): ApprovalHandler | undefined {
  const log = (line: string) => options.stderr.write(line);
  if (options.answer) return fixedApprovals(options.answer, log);
  if (options.stdin.isTTY === true && options.stderr.isTTY === true) {
    // A terminal on both ends: the prompt talks to it directly.
    return promptApprovals({
      input: options.stdin as NodeJS.ReadableStream,
      output: options.stderr as NodeJS.WritableStream,
    });
  }
  return undefined;
}
