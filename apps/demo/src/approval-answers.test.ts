import { PassThrough } from 'node:stream';
import type { ApprovalRequest } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';
import { cliApprovals, describeApproval, fixedApprovals, promptApprovals } from './approval-answers';

const request = (overrides: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  runId: 'run-1',
  approvalId: 'approval-1',
  stepId: 'release',
  kind: 'resume-review',
  reason: 'run_command was interrupted. Approve to run it again.',
  tool: 'run_command',
  args: { argv: ['npm', 'version', 'patch'] },
  callId: 'call-1',
  signal: new AbortController().signal,
  ...overrides,
});

describe('CLI approvals', () => {
  it('--approve / --deny answer every request and say so', async () => {
    const lines: string[] = [];
    const approve = fixedApprovals('approve', (line) => lines.push(line));
    expect(await approve(request())).toMatchObject({ approved: true, note: '--approve on the command line' });
    const deny = fixedApprovals('deny', (line) => lines.push(line));
    expect(await deny(request())).toMatchObject({ approved: false });
    expect(lines[0]).toContain('approved (--approve): [resume-review] step release run_command');
    expect(lines[1]).toContain('denied (--deny)');
  });

  it('prompts on a terminal: y approves, anything else denies, one question at a time', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let shown = '';
    output.on('data', (chunk) => {
      shown += chunk;
    });
    const ask = promptApprovals({ input, output });
    const first = ask(request());
    const second = ask(request({ approvalId: 'approval-2', stepId: 'other' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(shown).toContain('step release');
    expect(shown).not.toContain('step other');
    input.write('y\n');
    expect(await first).toMatchObject({ approved: true });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(shown).toContain('step other');
    input.write('nope\n');
    expect(await second).toMatchObject({ approved: false });
  });

  it('a run that stops while a prompt waits answers no', async () => {
    const controller = new AbortController();
    const ask = promptApprovals({ input: new PassThrough(), output: new PassThrough() });
    const pending = ask(request({ signal: controller.signal }));
    controller.abort();
    expect(await pending).toMatchObject({ approved: false });
  });

  it('chooses flags first, then a prompt on a TTY, else none', () => {
    const stream = (isTTY: boolean) =>
      Object.assign(new PassThrough(), { isTTY }) as unknown as NodeJS.ReadStream;
    const stderr = (isTTY: boolean) =>
      Object.assign(new PassThrough(), { isTTY }) as unknown as NodeJS.WriteStream;
    expect(cliApprovals({ answer: 'deny', stdin: stream(false), stderr: stderr(false) })).toBeTypeOf(
      'function',
    );
    expect(cliApprovals({ answer: undefined, stdin: stream(true), stderr: stderr(true) })).toBeTypeOf(
      'function',
    );
    expect(cliApprovals({ answer: undefined, stdin: stream(false), stderr: stderr(true) })).toBeUndefined();
    expect(describeApproval(request({ tool: undefined, args: undefined }))).toBe(
      '[resume-review] step release: run_command was interrupted. Approve to run it again.',
    );
  });
});

describe('CLI approvals on a terminal', () => {
  it("never pass a model's control characters or bidi overrides to the prompt or the log", async () => {
    const hostileRequest = request({
      stepId: 'release\u001b[2K\r',
      reason: 'Approve to run it again.\u001b]52;c;cm0gLXJmIH4=\u0007\r\u001b[2KApprove? [y/N] ',
      // Shown as `rm -rf ~` reversed: `~ fr- mr` displays as the harmless-looking text.
      args: { argv: ['sh', '-c', '\u202E~ fr- mr\u202C', '\u009b2J'] },
    });
    const lines: string[] = [];
    await fixedApprovals('deny', (line) => lines.push(line))(hostileRequest);
    const shown = [describeApproval(hostileRequest), ...lines];
    for (const text of shown) {
      for (const raw of ['\u001b', '\u0007', '\r', '\u202E', '\u202C', '\u009b'])
        expect(text, JSON.stringify(raw)).not.toContain(raw);
    }
    expect(describeApproval(hostileRequest)).toContain('[resume-review] step release');
  });
});
