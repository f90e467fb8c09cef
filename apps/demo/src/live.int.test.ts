import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { RunResult } from '@closedloop/cortex';
import { describe, expect, it } from 'vitest';
import { main } from './cli/main';

/** Opt-in: the same CLI against a real OpenAI model. Runs only with OPENAI_API_KEY set. */
describe.runIf(Boolean(process.env.OPENAI_API_KEY))('closedloop run --provider openai (live)', () => {
  it('builds isPrime with tests and proves it with a real test run', async () => {
    const base = mkdtempSync(join(tmpdir(), 'closedloop-live-'));
    const stdout = new PassThrough();
    let out = '';
    stdout.on('data', (chunk) => {
      out += chunk;
    });
    const code = await main(
      [
        'run',
        'Create src/is-prime.js exporting isPrime(n) as an ES module with a package.json whose test script is "node --test", and test/is-prime.test.js with node:test cases 2 → true, 4 → false, 17 → true, 1 → false.',
        '--provider',
        'openai',
        '--model',
        process.env.CLOSEDLOOP_LIVE_MODEL ?? 'gpt-4.1',
        '--workspace',
        join(base, 'ws'),
        '--journal',
        join(base, 'runs'),
        '--json',
      ],
      { stdout: stdout as unknown as NodeJS.WriteStream, stderr: process.stderr },
    );
    const result = JSON.parse(out) as RunResult;
    expect(['completed', 'completed-with-warnings']).toContain(result.stopReason);
    expect(code).toBe(0);
  });
});
