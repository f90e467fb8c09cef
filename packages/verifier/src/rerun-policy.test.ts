import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planWithStep } from './__fixtures__/step-trace';
import { createRerunPolicy } from './rerun-policy';
import { verifyStep } from './verify-step';

let ws: TempWorkspace;
let outside: TempWorkspace;
beforeEach(async () => {
  outside = await createTempWorkspace({});
  ws = await createTempWorkspace({
    files: {
      'package.json': `${JSON.stringify({ name: 'x', scripts: { test: 'node check.cjs' } })}\n`,
      // The test script prints a runner summary: a test claim needs one (no summary → unverified).
      'check.cjs':
        'require("node:fs").writeFileSync("ran-check.txt", "yes");\nconsole.log("# tests 1\\n# pass 1\\n# fail 0");\n',
      'canary.cjs': 'require("node:fs").writeFileSync("ran-canary.txt", "yes");\n',
    },
  });
});
afterEach(async () => {
  await ws.cleanup();
  await outside.cleanup();
});

const markStep = (argv: string[]) => ({
  tool: 'mark_step',
  args: { status: 'success', notes: '[SUCCESS]: done', claims: { commandsPassed: [{ argv }] } },
  status: 'success' as const,
  result: 'marked',
});
const ranCommand = (argv: string[], status: 'success' | 'error' = 'success') => ({
  tool: 'run_command',
  args: { argv },
  status,
  result: 'ok',
});

async function claimFinding(
  argv: string[],
  ledger: Parameters<typeof planWithStep>[0]['ledger'],
  options = {},
) {
  const plan = planWithStep({
    description: 'do it',
    ledger: [...(ledger ?? []), markStep(argv)],
    notes: '[SUCCESS]: done',
    claims: { commandsPassed: [{ argv }] },
  });
  const report = await verifyStep(plan, 's1', { workspace: ws.root, ...options });
  return report.findings.find((finding) => finding.check === 'claims');
}

describe('re-running claimed commands', () => {
  it('never runs an argv that only a claim names (mark_step alone), inline code or a workspace script', async () => {
    const pwned = `${outside.root}/pwned.txt`;
    for (const argv of [
      ['node', '-e', `require("fs").writeFileSync(${JSON.stringify(pwned)}, "x")`],
      ['node', '--import=data:text/javascript,process.exit(0)', 'canary.cjs'],
      ['node', 'canary.cjs'],
      ['python3', '-m', 'http.server'],
    ]) {
      const finding = await claimFinding(argv, []);
      // Unverified, never accepted: an unchecked claim is an error, not a harmless skip.
      expect(finding, argv.join(' ')).toMatchObject({
        status: 'error',
        message: expect.stringMatching(/not re-run/),
      });
    }
    expect(await outside.exists('pwned.txt')).toBe(false);
    expect(await ws.exists('ran-canary.txt')).toBe(false);
  });

  it('re-runs the exact argv that ran in the step, and a detected project command', async () => {
    expect(await claimFinding(['node', 'canary.cjs'], [ranCommand(['node', 'canary.cjs'])])).toMatchObject({
      status: 'pass',
    });
    expect(await ws.exists('ran-canary.txt')).toBe(true);
    for (const argv of [
      ['npm', 'test'],
      ['npm', 'run', 'test'],
      ['node', 'check.cjs'],
    ]) {
      expect(await claimFinding(argv, []), argv.join(' ')).toMatchObject({ status: 'pass' });
    }
    expect(await ws.exists('ran-check.txt')).toBe(true);
  });

  it('does not count a call that failed (a refused command never ran), nor a near match', async () => {
    expect(
      await claimFinding(['node', 'canary.cjs'], [ranCommand(['node', 'canary.cjs'], 'error')]),
    ).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/not re-run/),
    });
    expect(
      await claimFinding(['node', 'canary.cjs', '--extra'], [ranCommand(['node', 'canary.cjs'])]),
    ).toMatchObject({ status: 'error', message: expect.stringMatching(/not re-run/) });
    expect(await ws.exists('ran-canary.txt')).toBe(false);
  });

  it('still applies the command policy when a caller allows every claimed command', async () => {
    const pwned = `${outside.root}/pwned.txt`;
    const finding = await claimFinding(
      ['node', '-e', `require("fs").writeFileSync(${JSON.stringify(pwned)}, "x")`],
      [],
      {
        allowCommand: () => true,
      },
    );
    expect(finding).toMatchObject({
      status: 'error',
      message: expect.stringMatching(/refused by the command policy/),
    });
    expect(await outside.exists('pwned.txt')).toBe(false);
  });

  it('createRerunPolicy answers from the ledger and the tooling', async () => {
    const policy = createRerunPolicy({
      ledger: [
        {
          callId: 'a',
          generatedId: false,
          tool: 'run_command',
          args: JSON.stringify({ argv: ['git', 'status'] }),
          status: 'success',
          calledAt: 0,
        },
        {
          callId: 'b',
          generatedId: false,
          tool: 'write_file',
          args: { argv: ['node', 'x.js'] },
          status: 'success',
          calledAt: 0,
        },
      ],
      tooling: async () => ({
        root: ws.root,
        scripts: { lint: 'biome check . && tsc', test: 'vitest run' },
        typescript: false,
        hasTests: true,
        commands: {
          lint: { argv: ['pnpm', 'run', 'lint'], source: 'x' },
          test: { argv: ['pnpm', 'run', 'test'], source: 'x' },
        },
      }),
    });
    expect(await policy(['git', 'status'])).toBe(true);
    expect(await policy(['node', 'x.js'])).toBe(false); // not a command tool
    expect(await policy(['pnpm', 'test'])).toBe(true);
    expect(await policy(['vitest', 'run'])).toBe(true);
    expect(await policy(['biome', 'check', '.'])).toBe(false); // a script with shell syntax counts only as a whole
    expect(await policy(['pnpm', 'run', 'lint'])).toBe(true);
  });
});
