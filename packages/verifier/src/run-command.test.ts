import { createCommandRunner } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commandProblem, runCommand } from './run-command';

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({
    files: {
      'exit3.cjs': 'console.log("out"); console.error("err"); process.exit(3);\n',
      'hang.cjs':
        'require("node:child_process").spawn(process.execPath, ["hang-child.cjs"], { stdio: "inherit" }); setInterval(() => {}, 1000);\n',
      'hang-child.cjs': 'setInterval(() => require("node:fs").appendFileSync("beat.txt", "."), 50);\n',
      'lines.cjs': 'for (let i = 0; i < 5000; i++) console.log("line " + i);\n',
      'upper.cjs':
        'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(s.toUpperCase() + process.env.EXTRA + process.env.CI));\n',
      'env.cjs': 'console.log(JSON.stringify(process.env));\n',
    },
  });
});
afterEach(async () => {
  await ws.cleanup();
});

describe('runCommand (the one process runner of @closedloop/tools)', () => {
  it('runs an argv without a shell and reports the exit code and output', async () => {
    const result = await runCommand({ argv: ['node', 'exit3.cjs'], cwd: ws.root });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe('out\n');
    expect(result.output).toContain('out');
    expect(result.output).toContain('err');
    expect(commandProblem(result)).toBeUndefined();
  });

  it('does not interpret shell syntax', async () => {
    const result = await runCommand({ argv: ['echo', '$HOME', '&&', 'rm', '-rf', 'x'], cwd: ws.root });
    expect(result.stdout.trim()).toBe('$HOME && rm -rf x');
  });

  it('applies the command policy: refused commands do not run and say why', async () => {
    for (const argv of [
      ['node', '-e', 'require("fs").writeFileSync("pwned", "x")'],
      ['node', '--import=data:text/javascript,require("fs").writeFileSync("pwned","x")', 'env.cjs'],
      [process.execPath, 'env.cjs'],
      ['python3', '-m', 'http.server'],
      ['git', 'diff', '--no-index', '/etc/passwd', '/dev/null'],
      ['sh', '-c', 'touch pwned'],
    ]) {
      const result = await runCommand({ argv, cwd: ws.root });
      expect(result.denied, argv.join(' ')).toBeDefined();
      expect(result.exitCode).toBeNull();
      expect(commandProblem(result)).toMatch(/refused by the command policy/);
    }
    expect(await ws.exists('pwned')).toBe(false);
  });

  it('gives the command the minimal environment, never the agent’s keys or NODE_OPTIONS', async () => {
    process.env.CLOSEDLOOP_VERIFIER_TEST_API_KEY = 'verifier-canary-0123456789';
    try {
      const result = await runCommand({ argv: ['node', 'env.cjs'], cwd: ws.root });
      const env = JSON.parse(result.stdout) as Record<string, string>;
      expect(env.CLOSEDLOOP_VERIFIER_TEST_API_KEY).toBeUndefined();
      expect(env.NODE_OPTIONS).toBeUndefined();
      expect(env.CI).toBe('1');
      expect(env.npm_config_yes).toBe('false');
    } finally {
      delete process.env.CLOSEDLOOP_VERIFIER_TEST_API_KEY;
    }
  });

  it('reports a missing program as spawnError instead of throwing', async () => {
    const runner = createCommandRunner({
      root: ws.root,
      policy: { allow: ['definitely-not-a-program-xyz'] },
    });
    const result = await runCommand({ argv: ['definitely-not-a-program-xyz'], cwd: ws.root, runner });
    expect(result.exitCode).toBeNull();
    expect(result.spawnError).toMatch(/command not found/);
    expect(commandProblem(result)).toMatch(/command not found/);
    expect((await runCommand({ argv: [], cwd: ws.root })).spawnError).toMatch(/empty argv/);
  });

  it('kills the process tree on timeout', async () => {
    const started = Date.now();
    const result = await runCommand({ argv: ['node', 'hang.cjs'], cwd: ws.root, timeoutMs: 800 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(commandProblem(result)).toMatch(/timed out/);
    const size = async () => (await ws.read('beat.txt').catch(() => '')).length;
    const before = await size();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await size()).toBe(before);
  });

  it('stops on abort', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const result = await runCommand({ argv: ['node', 'hang.cjs'], cwd: ws.root, signal: controller.signal });
    expect(result.aborted).toBe(true);
  });

  it('caps output, keeping head and tail', async () => {
    const result = await runCommand({ argv: ['node', 'lines.cjs'], cwd: ws.root, maxOutputChars: 1000 });
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBeLessThan(1200);
    expect(result.output).toContain('line 0');
    expect(result.output).toContain('line 4999');
    expect(result.output).toMatch(/characters cut/);
  });

  it('passes stdin and extra env, and refuses env that injects code', async () => {
    const result = await runCommand({
      argv: ['node', 'upper.cjs'],
      cwd: ws.root,
      stdin: 'hi',
      env: { EXTRA: '!' },
    });
    expect(result.stdout.trim()).toBe('HI!1');
    const injected = await runCommand({
      argv: ['node', 'env.cjs'],
      cwd: ws.root,
      env: { NODE_OPTIONS: '--require=/tmp/x.js' },
    });
    expect(injected.denied).toMatch(/NODE_OPTIONS/);
  });
});
