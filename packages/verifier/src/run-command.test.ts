import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { commandProblem, runCommand } from './run-command';

const cwd = tmpdir();
const node = process.execPath;

describe('runCommand', () => {
  it('runs an argv without a shell and reports the exit code and output', async () => {
    const result = await runCommand({
      argv: [node, '-e', 'console.log("out"); console.error("err"); process.exit(3)'],
      cwd,
    });
    expect(result.exitCode).toBe(3);
    expect(result.stdout).toBe('out\n');
    expect(result.output).toContain('out');
    expect(result.output).toContain('err');
    expect(commandProblem(result)).toBeUndefined();
  });

  it('does not interpret shell syntax', async () => {
    const result = await runCommand({ argv: ['echo', '$HOME', '&&', 'rm', '-rf', 'x'], cwd });
    expect(result.stdout.trim()).toBe('$HOME && rm -rf x');
  });

  it('reports a missing program as spawnError instead of throwing', async () => {
    const result = await runCommand({ argv: ['definitely-not-a-program-xyz'], cwd });
    expect(result.exitCode).toBeNull();
    expect(result.spawnError).toMatch(/command not found/);
    expect(commandProblem(result)).toMatch(/command not found/);
    expect((await runCommand({ argv: [], cwd })).spawnError).toMatch(/empty argv/);
  });

  it('kills the process group on timeout', async () => {
    const started = Date.now();
    const result = await runCommand({
      argv: [
        node,
        '-e',
        'require("child_process").spawn(process.execPath, ["-e", "setInterval(()=>{},1000)"], { stdio: "inherit" }); setInterval(() => {}, 1000)',
      ],
      cwd,
      timeoutMs: 300,
    });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBeNull();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(commandProblem(result)).toMatch(/timed out/);
  });

  it('stops on abort', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const result = await runCommand({
      argv: [node, '-e', 'setInterval(() => {}, 1000)'],
      cwd,
      signal: controller.signal,
    });
    expect(result.aborted).toBe(true);
  });

  it('caps output, keeping head and tail', async () => {
    const result = await runCommand({
      argv: [node, '-e', 'for (let i = 0; i < 5000; i++) console.log("line " + i)'],
      cwd,
      maxOutputChars: 1000,
    });
    expect(result.truncated).toBe(true);
    expect(result.output.length).toBeLessThan(1200);
    expect(result.output).toContain('line 0');
    expect(result.output).toContain('line 4999');
    expect(result.output).toMatch(/characters cut/);
  });

  it('passes stdin and extra env', async () => {
    const result = await runCommand({
      argv: [
        node,
        '-e',
        'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(s.toUpperCase()+process.env.EXTRA+process.env.CI))',
      ],
      cwd,
      stdin: 'hi',
      env: { EXTRA: '!' },
    });
    expect(result.stdout.trim()).toBe('HI!1');
  });

  it('runs non-interactively: npx and npm exec may not install anything (npm_config_yes=false)', async () => {
    const result = await runCommand({
      argv: [node, '-p', '[process.env.CI, process.env.npm_config_yes, process.env.NO_COLOR].join(" ")'],
      cwd,
    });
    expect(result.stdout.trim()).toBe('1 false 1');
  });
});
