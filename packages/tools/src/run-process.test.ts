import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessRunning } from './is-process-running';
import { findExecutable, processScopeVariable, runInProcessScope, runProcess } from './run-process';

const base = {
  cwd: process.cwd(),
  env: { PATH: process.env.PATH ?? '' },
  timeoutMs: 5_000,
  maxOutputBytes: 1024,
};

describe('runProcess', () => {
  it('does not hang when a grandchild keeps the pipes open, and kills it', async () => {
    const script = [
      "const { spawn } = require('node:child_process');",
      "const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' });",
      'console.log(child.pid);',
      'process.exit(0);',
    ].join('\n');
    const started = Date.now();
    const result = await runProcess(process.execPath, ['-e', script], base);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    const grandchild = Number(result.stdout.trim());
    expect(grandchild).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(isProcessRunning(grandchild)).toBe(false);
  });

  it('strips ANSI escapes and reports a signal death', async () => {
    const colored = await runProcess(
      process.execPath,
      ['-e', 'console.log("\\u001b[31mred\\u001b[0m")'],
      base,
    );
    expect(colored.stdout).toBe('red\n');
    const killed = await runProcess(process.execPath, ['-e', 'process.kill(process.pid, "SIGKILL")'], base);
    expect(killed).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
  });

  it('rejects when the program cannot start or the signal is already aborted', async () => {
    await expect(runProcess('/nonexistent/program', [], base)).rejects.toMatchObject({ code: 'ENOENT' });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(
      runProcess(process.execPath, ['-v'], { ...base, signal: controller.signal }),
    ).rejects.toThrow('stop');
  });
});

describe('findExecutable', () => {
  it('finds programs on PATH and prefers the local bin folder', async () => {
    const node = await findExecutable('node', { pathVariable: process.env.PATH });
    expect(node && path.isAbsolute(node)).toBe(true);
    expect(
      await findExecutable('closedloop-missing-program', { pathVariable: process.env.PATH }),
    ).toBeUndefined();
    expect(await findExecutable('node', { pathVariable: 'relative/dir' })).toBeUndefined();
    const local = await findExecutable('node', {
      pathVariable: '',
      localBinDir: path.dirname(process.execPath),
    });
    expect(local).toBe(path.join(path.dirname(process.execPath), 'node'));
  });
});

describe('runInProcessScope', () => {
  const printScope = ['-e', `console.log(process.env.${processScopeVariable} ?? '-')`];
  const scopeOf = async () => (await runProcess(process.execPath, printScope, base)).stdout.trim();

  it('marks processes started in its async continuations, also while another scope ends, and none after', async () => {
    let releaseLong!: () => void;
    const held = new Promise<void>((resolve) => {
      releaseLong = resolve;
    });
    const long = runInProcessScope('scope-long', async () => {
      await held;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return scopeOf();
    });
    const short = await runInProcessScope('scope-short', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return scopeOf();
    });
    expect(short).toBe('scope-short');
    // The short scope ended; the long one is still open and its continuations keep their scope.
    releaseLong();
    expect(await long).toBe('scope-long');
    expect(await scopeOf()).toBe('-');
    // A scope opened after every scope ended works again.
    expect(await runInProcessScope('scope-again', () => Promise.resolve().then(scopeOf))).toBe('scope-again');
    expect(
      await runInProcessScope('scope-thrown', () => Promise.reject(new Error('x'))).catch(() => scopeOf()),
    ).toBe('-');
  });
});
