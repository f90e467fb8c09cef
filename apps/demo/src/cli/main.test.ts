import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { RunResult } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';
import { selectModel } from '../runner/select-model';
import { version as cliVersion } from '../version';
import type { CliIo } from './cli-context';
import { describeCrash, main } from './main';

const run = promisify(execFile);

/** An environment with no API keys and the scripted model at full speed. */
const offlineEnv = (): NodeJS.ProcessEnv => {
  // The default journal goes to a per-user state directory: a fresh one per call, never the real one.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CLOSEDLOOP_DEMO_LATENCY_MS: '0',
    XDG_STATE_HOME: mkdtempSync(join(tmpdir(), 'closedloop-state-')),
  };
  delete env.OPENAI_API_KEY;
  delete env.ANTHROPIC_API_KEY;
  return env;
};

function capture(extra: Partial<CliIo> = {}) {
  let out = '';
  let err = '';
  const io: Partial<CliIo> = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: offlineEnv(),
    ...extra,
  };
  return { io, out: () => out, err: () => err };
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'closedloop-cli-'));
}

describe('closedloop demo (offline scripted scenario)', () => {
  it('catches both false claims from evidence, replans them, and ends completed with real passing tests', async () => {
    const base = tempDir();
    const workspace = join(base, 'ws');
    const journal = join(base, 'runs');
    const { io, out } = capture();
    const code = await main(['demo', '--json', '--workspace', workspace, '--journal', journal], io);
    const result = JSON.parse(out()) as RunResult;

    expect(code).toBe(0);
    expect(result.stopReason).toBe('completed');
    expect(result.report.replans).toHaveLength(2);
    const failedClaims = result.report.steps
      .flatMap((step) => step.findings.map((finding) => ({ step: step.id, ...finding })))
      .filter((finding) => finding.status === 'fail');
    // The first claim: a file that was never written.
    expect(
      failedClaims.some(
        (finding) => finding.step === 'implement' && /src\/is-prime\.js/.test(finding.message),
      ),
    ).toBe(true);
    // The second claim: "tests pass" while node --test fails.
    expect(
      failedClaims.some((finding) => /node --test/.test(finding.message) && /fail/i.test(finding.message)),
    ).toBe(true);
    // The goal verification really ran the tests; they pass in the workspace now.
    expect(readFileSync(join(workspace, 'src/is-prime.js'), 'utf8')).toContain('n < 2');
    const tests = await run(process.execPath, ['--test'], { cwd: workspace });
    expect(tests.stdout).toMatch(/# pass 4/);
  }, 60_000);

  it('prints the plan, the summary, and a report command that works as printed', async () => {
    const base = tempDir();
    const first = capture({ cwd: base });
    expect(await main(['demo', '--workspace', 'ws'], first.io)).toBe(0);
    expect(first.out()).toContain('↺ Replanned: Write isPrime, Run the tests, Release 1.0.1 →');
    expect(first.out()).toMatch(/model: scripted\/scripted-is-prime/);
    expect(first.out()).toContain('stop reason: completed');
    // The default journal is the per-user state directory, which the printed command need not name.
    const printed = /Report again: (.+) report (\S+)\n/.exec(first.out());
    const state = first.io.env!.XDG_STATE_HOME!;
    expect(existsSync(join(state, 'closedloop', 'runs', `${printed?.[2]}.jsonl`))).toBe(true);
    expect(existsSync(join(base, '.closedloop'))).toBe(false);

    const again = capture({ cwd: base, env: first.io.env! });
    expect(await main(['report', printed![2]!], again.io)).toBe(0);
    expect(again.out()).toContain('■ Run finished: completed');
    expect(again.out()).toContain('↺ Replanned: Write isPrime, Run the tests, Release 1.0.1 →');
  }, 60_000);
});

describe("the journal stays out of the agent's reach", () => {
  it('refuses a journal inside the workspace (the agent could rewrite the events and the workspace a resume trusts)', async () => {
    const base = tempDir();
    const nested = capture({ cwd: base });
    expect(await main(['demo', '--workspace', 'ws', '--journal', 'ws/.runs'], nested.io)).toBe(2);
    expect(nested.err()).toMatch(/journal folder .* is inside the workspace/);
    expect(existsSync(join(base, 'ws', 'src'))).toBe(false);
    // The default journal is refused too when it would be inside the workspace.
    const home = capture({ cwd: base, env: { ...offlineEnv(), XDG_STATE_HOME: join(base, '.state') } });
    expect(await main(['demo', '--workspace', '.'], home.io)).toBe(2);
    expect(home.err()).toMatch(/journal folder .* is inside the workspace/);
    expect(existsSync(join(base, 'src'))).toBe(false);
  });

  it('a run journaled where earlier versions did (.closedloop/runs) is not found by default, with a hint', async () => {
    const base = tempDir();
    const first = capture({ cwd: base });
    const args = ['demo', '--workspace', 'ws', '--journal', '.closedloop/runs', '--json'];
    expect(await main(args, first.io)).toBe(0);
    const { runId } = JSON.parse(first.out()) as RunResult;
    for (const command of ['report', 'resume']) {
      const missing = capture({ cwd: base });
      expect(await main([command, runId], missing.io)).toBe(2);
      expect(missing.err()).toContain(
        'It is in .closedloop/runs, where earlier versions kept journals: add --journal .closedloop/runs.',
      );
    }
    const found = capture({ cwd: base });
    expect(await main(['report', runId, '--journal', '.closedloop/runs'], found.io)).toBe(0);
  }, 60_000);

  it('`--workspace .` just works: the default journal lives outside it, and resume finds the run', async () => {
    const base = tempDir();
    const first = capture({ cwd: base });
    expect(await main(['demo', '--workspace', '.', '--json'], first.io)).toBe(0);
    const result = JSON.parse(first.out()) as RunResult;
    expect(result.stopReason).toBe('completed');
    expect(readFileSync(join(base, 'src/is-prime.js'), 'utf8')).toContain('n < 2');
    // Nothing of closedloop's in the workspace: the journal is in the state directory.
    expect(existsSync(join(base, '.closedloop'))).toBe(false);
    const runs = join(first.io.env!.XDG_STATE_HOME!, 'closedloop', 'runs');
    expect(existsSync(join(runs, `${result.runId}.jsonl`))).toBe(true);
    // Found again by id alone, from anywhere.
    const report = capture({ cwd: tmpdir(), env: first.io.env! });
    expect(await main(['report', result.runId], report.io)).toBe(0);
    expect(report.out()).toContain('■ Run finished: completed');
  }, 60_000);
});

describe('closedloop command line', () => {
  it('prints its version and its help', async () => {
    const version = capture();
    expect(await main(['--version'], version.io)).toBe(0);
    expect(version.out().trim()).toBe(cliVersion);
    expect(cliVersion).toMatch(/^\d+\.\d+\.\d+/);
    const help = capture();
    expect(await main(['--help'], help.io)).toBe(0);
    for (const command of ['demo', 'run', 'resume', 'report', 'serve']) expect(help.out()).toContain(command);
    const runHelp = capture();
    expect(await main(['run', '--help'], runHelp.io)).toBe(0);
    expect(runHelp.out()).toContain('--provider <name>');
    expect(runHelp.out()).toContain('--budget <tokens>');
  });

  it('prints the usage and exits 2 without a command', async () => {
    const { io, err } = capture();
    expect(await main([], io)).toBe(2);
    expect(err()).toContain('Usage: closedloop');
  });

  const file = join(tempDir(), 'a-file.txt');
  writeFileSync(file, 'not a folder\n');
  it.each([
    [['demo', '--frobnicate'], /error: unknown option '--frobnicate'/],
    [
      ['demo', '--budget', '-5'],
      /error: option '--budget <tokens>' argument '-5' is invalid\. It must be a whole number ≥ 1\./,
    ],
    [['demo', '--budget', 'lots'], /argument 'lots' is invalid/],
    [['demo', '--concurrency', '0'], /--concurrency <n>' argument '0' is invalid/],
    [['demo', '--mode', 'fast'], /argument 'fast' is invalid\. Allowed choices are single, auto/],
    [
      ['demo', '--journal', '/dev/null/x'],
      /error: --journal "\/dev\/null\/x" cannot be a folder: \/dev\/null is a file\./,
    ],
    [['demo', '--workspace', file], /error: --workspace ".*a-file\.txt" is a file, not a folder/],
    [
      ['run', 'x', '--provider', 'nope'],
      /argument 'nope' is invalid\. Allowed choices are openai, anthropic, openai-compatible/,
    ],
    [
      ['serve', '--port', '70000'],
      /--port <n>' argument '70000' is invalid\. It must be a whole number from 0 to 65535/,
    ],
    [['resume'], /error: missing required argument 'runId'/],
    [['run'], /error: closedloop run needs a task[\s\S]*closedloop demo/],
    [['run', '--journal', '/dev/null/x'], /error: --journal "\/dev\/null\/x" cannot be a folder/],
    [['run', 'a task', '--workspace', file], /error: --workspace ".*a-file\.txt" is a file/],
    [['frobnicate'], /error: unknown command 'frobnicate'/],
    [['report', 'a', 'b'], /error: too many arguments for 'report'/],
  ])('%j → exit 2 with one clear line, the usage, and no stack trace', async (argv, message) => {
    const { io, err, out } = capture({ cwd: tempDir() });
    expect(await main(argv, io)).toBe(2);
    expect(err()).toMatch(message);
    expect(err()).toMatch(/Usage: closedloop|Run "closedloop --help"/);
    expect(err()).not.toMatch(/\n\s+at /);
    expect(out()).toBe('');
  });

  it('refuses a typed task when no model is configured, naming --provider and the key variables', async () => {
    const cwd = tempDir();
    const { io, err } = capture({ cwd });
    expect(await main(['run', 'Write a haiku about the sea'], io)).toBe(2);
    const message = err();
    for (const needle of [
      '--provider',
      'OPENAI_API_KEY',
      'ANTHROPIC_API_KEY',
      '--base-url',
      'closedloop demo',
    ]) {
      expect(message).toContain(needle);
    }
    expect(message).not.toMatch(/\n\s+at /);
    // Nothing ran: no journal was written.
    expect(existsSync(join(cwd, '.closedloop'))).toBe(false);
  });

  it('says which key is missing for a chosen provider', async () => {
    const { io, err } = capture({ cwd: tempDir() });
    expect(await main(['run', 'do a thing', '--provider', 'openai'], io)).toBe(2);
    expect(err()).toMatch(/^error: OPENAI_API_KEY is not set/);
  });

  it('refuses to serve typed tasks on a model whose key is missing', async () => {
    const { io, err } = capture({ cwd: tempDir() });
    expect(await main(['serve', '--provider', 'anthropic', '--port', '0'], io)).toBe(2);
    expect(err()).toMatch(/^error: ANTHROPIC_API_KEY is not set/);
  });

  it('says when nothing answers at an OpenAI-compatible base URL', async () => {
    const { io, err } = capture({ cwd: tempDir() });
    const argv = ['run', 'do a thing', '--model', 'llama3.1', '--base-url', 'http://127.0.0.1:9/v1'];
    expect(await main(argv, io)).toBe(2);
    expect(err()).toMatch(/Nothing answers at http:\/\/127\.0\.0\.1:9/);
  });

  it('reports an unknown run in one line', async () => {
    const journal = tempDir();
    const report = capture();
    expect(await main(['report', 'run-missing', '--journal', journal], report.io)).toBe(2);
    expect(report.err()).toBe(`error: No journal for run "run-missing" in ${journal}.\n`);
    const resume = capture();
    expect(await main(['resume', 'run-missing', '--journal', journal], resume.io)).toBe(2);
    expect(resume.err()).toMatch(/^error: No run "run-missing" in .*\. Runs there: none\.\n$/);
    expect(readdirSync(journal)).toEqual([]);
  });

  it('shows the stack and a hint for an unexpected crash', async () => {
    const crashing = capture({
      stdout: {
        write: () => {
          throw new TypeError('stdout exploded');
        },
      },
    });
    expect(await main(['--version'], crashing.io)).toBe(1);
    expect(crashing.err()).toMatch(/TypeError: stdout exploded\n\s+at /);
    expect(crashing.err()).toContain('closedloop crashed: this is a bug');
    expect(describeCrash('odd')).toMatch(/^odd\n\nclosedloop crashed/);
  });
});

describe('model selection', () => {
  it('takes --provider, else --base-url, else the first key in the environment, else nothing', () => {
    expect(selectModel({ provider: 'anthropic' }, {})).toEqual({ provider: 'anthropic', source: 'flag' });
    expect(selectModel({ baseURL: 'http://x/v1', model: 'm' }, {})).toMatchObject({
      provider: 'openai-compatible',
    });
    expect(selectModel({}, { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' })).toMatchObject({
      provider: 'openai',
      source: 'OPENAI_API_KEY',
    });
    expect(selectModel({ model: 'claude-opus-4-1' }, { ANTHROPIC_API_KEY: 'k' })).toMatchObject({
      provider: 'anthropic',
      model: 'claude-opus-4-1',
    });
    expect(selectModel({}, {})).toBeUndefined();
    expect(() => selectModel({ model: 'gpt-4.1' }, {})).toThrow(/needs a provider/);
  });
});
