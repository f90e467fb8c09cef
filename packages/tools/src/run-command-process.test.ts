import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTempWorkspace } from './create-temp-workspace';
import { createToolRegistry } from './create-tool-registry';
import { workspaceTools } from './workspace-tools';

describe('run_command reports the processes it starts', () => {
  it('calls onProcess with the pid of the process it spawned (the sandbox, when sandboxed)', async () => {
    const ws = await createTempWorkspace();
    try {
      writeFileSync(join(ws.root, 'pid.js'), 'process.stdout.write(String(process.pid));\n');
      const registry = createToolRegistry(workspaceTools({ root: ws.root }));
      const seen: string[] = [];
      const outcome = await registry.execute(
        'run_command',
        { argv: ['node', 'pid.js'] },
        {
          signal: new AbortController().signal,
          callId: 'c1',
          // Read while it runs: the command line of the process that was started.
          onProcess: ({ pid }) =>
            seen.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')),
        },
      );
      expect(outcome.status).toBe('success');
      expect(seen).toHaveLength(1);
      expect(seen[0]).toContain('pid.js');
    } finally {
      await ws.cleanup();
    }
  });
});
