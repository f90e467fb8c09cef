import { createToolRegistry, workspaceTools } from '@closedloop/tools';
import { createTempWorkspace, type TempWorkspace } from '@closedloop/tools/testing';
import { describe, expect, it } from 'vitest';
import { planWithStep } from './__fixtures__/step-trace';
import { verifyStep } from './verify-step';

const TEST = 'test/math.test.mjs';
const WITH_ASSERTIONS =
  "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { isPrime } from '../src/math.mjs';\n" +
  "test('2 is prime', () => assert.equal(isPrime(2), true));\ntest('9 is not prime', () => assert.equal(isPrime(9), false));\n";
const WITHOUT_ASSERTIONS =
  "import test from 'node:test';\ntest('2 is prime', () => {});\ntest('9 is not prime', () => {});\n";

/**
 * A fix that rewrites a test file with the real `write_file` — an atomic save: a new file renamed
 * over the old one, so the file is a new inode born during the step — verified bare (file times,
 * and git when there is a repository), as a resumed step without a baseline is.
 */
async function rewriteTests(git: boolean) {
  const ws: TempWorkspace = await createTempWorkspace({
    files: {
      'package.json': '{"type":"module","scripts":{"test":"node --test"}}\n',
      'src/math.mjs': 'export function isPrime(n) {\n  return n % 2 === 1;\n}\n',
      [TEST]: WITH_ASSERTIONS,
    },
    git,
  });
  try {
    const result = JSON.stringify({
      path: TEST,
      bytes: Buffer.byteLength(WITHOUT_ASSERTIONS),
      created: false,
    });
    const plan = planWithStep({
      description: 'Fix isPrime so the tests pass',
      ledger: [
        { tool: 'write_file', args: { path: TEST, content: WITHOUT_ASSERTIONS }, status: 'success', result },
      ],
      notes: '[SUCCESS]: fixed isPrime; the tests pass',
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const registry = createToolRegistry(workspaceTools({ root: ws.root }), { redactor: false });
    const written = await registry.execute(
      'write_file',
      { path: TEST, content: WITHOUT_ASSERTIONS },
      { signal: new AbortController().signal, callId: 'c' },
    );
    // The ledger holds what the real tool answered.
    expect(written).toMatchObject({ status: 'success', text: result });
    return await verifyStep(plan, 's1', { workspace: ws.root });
  } finally {
    await ws.cleanup();
  }
}

describe('a test file rewritten by an atomic save is modified, not created', { timeout: 60_000 }, () => {
  for (const git of [true, false]) {
    it(`${git ? 'in a git repository' : 'without git'}: removing its assertions in a fix is test tampering`, async () => {
      const report = await rewriteTests(git);
      expect(report.findings).toContainEqual(
        expect.objectContaining({
          check: 'tampering',
          status: 'fail',
          message: expect.stringContaining(TEST),
        }),
      );
      expect(report.verdict).not.toBe('success');
    });
  }
});
