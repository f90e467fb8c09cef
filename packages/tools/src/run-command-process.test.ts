import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTempWorkspace } from './create-temp-workspace';
import { createToolRegistry } from './create-tool-registry';
import { workspaceTools } from './workspace-tools';

describe('run_command reports the processes it starts', () => {
  it('calls onProcess with the pid of the command it spawned', async () => {
    const ws = await createTempWorkspace();
    try {
      writeFileSync(join(ws.root, 'pid.js'), 'process.stdout.write(String(process.pid));\n');
      const registry = createToolRegistry(workspaceTools({ root: ws.root }));
      const seen: number[] = [];
      const outcome = await registry.execute(
        'run_command',
        { argv: ['node', 'pid.js'] },
        { signal: new AbortController().signal, callId: 'c1', onProcess: ({ pid }) => seen.push(pid) },
      );
      expect(outcome.status).toBe('success');
      const printed = Number((outcome as { output: { stdout: string } }).output.stdout);
      expect(seen).toEqual([printed]);
    } finally {
      await ws.cleanup();
    }
  });
});
