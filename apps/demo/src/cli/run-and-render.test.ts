import type { RunResult } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';
import type { StartedRun } from '../runner/demo-runner';
import { runAndRender } from './run-and-render';

/** What a hostile model can write: OSC 52 (the clipboard), a cleared screen, a forged line, bidi overrides. */
const hostile =
  'Done.\u001b]52;c;cm0gLXJmIH4=\u0007\u001b[2J\r  ✓ forged: all verified\u009b31m\nsee \u202Etxt.exe\u202C and \u2066x\u2069';

describe('runAndRender', () => {
  it("prints the run's answer and stop reason without passing a model's control characters to the terminal", async () => {
    let out = '';
    const result = {
      runId: 'run-1',
      stopReason: 'completed',
      reason: `all steps verified \u001b[2J${'\u202E'}`,
      answer: hostile,
      report: { steps: [], replans: [], usage: { usage: { inputTokens: 1, outputTokens: 2 } } },
    } as unknown as RunResult;
    const started: StartedRun = {
      runId: 'run-1',
      workspace: '/tmp/ws',
      model: { provider: 'scripted', modelId: 'demo' } as StartedRun['model'],
      result: Promise.resolve(result),
    };
    const code = await runAndRender(
      {
        io: {
          stdout: { write: (text: string) => (out += text), isTTY: false },
          stderr: { write: () => true },
          env: {},
          cwd: '/tmp',
          binPath: '/usr/bin/closedloop',
        },
        exitCode: 0,
      },
      { json: false, start: async () => started },
    );
    expect(code).toBe(0);
    for (const raw of ['\u001b', '\u0007', '\u009b', '\r', '\u202E', '\u202C', '\u2066', '\u2069'])
      expect(out, JSON.stringify(raw)).not.toContain(raw);
    expect(out.split('\n').filter((line) => line.trimStart().startsWith('✓ forged'))).toEqual([]);
    // The answer is still there, its own line breaks kept.
    expect(out).toContain('Done.');
    expect(out).toMatch(/\nsee .*txt\.exe.* and .*x/);
    expect(out).toContain('stop reason: completed — all steps verified');
  });
});

describe('errors on the terminal', () => {
  it("shows a typed error's message and a crash's stack without obeying what they quote", async () => {
    const { ClosedloopError } = await import('@closedloop/model/error');
    const { describeCrash, describeTypedError } = await import('./main');
    const typed = describeTypedError(
      new ClosedloopError({ code: 'invalid-plan', message: `bad step "${hostile}"` }),
    );
    const crash = describeCrash(new Error(`boom ${hostile}`));
    for (const text of [typed?.line ?? '', crash]) {
      for (const raw of ['\u001b', '\u0007', '\u009b', '\r', '\u202E', '\u2066'])
        expect(text, JSON.stringify(raw)).not.toContain(raw);
    }
    expect(typed?.line).toContain('bad step "Done.');
    expect(crash).toContain('boom Done.');
  });
});
