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
      // It runs until the test has seen it (a loaded machine could let a short command end, and
      // leave a zombie with no command line, before the callback looks).
      writeFileSync(
        join(ws.root, 'pid.js'),
        "const fs = require('node:fs');\nconst pause = new Int32Array(new SharedArrayBuffer(4));\nfor (let i = 0; i < 3000 && !fs.existsSync('seen'); i++) Atomics.wait(pause, 0, 0, 10);\nprocess.stdout.write(String(process.pid));\n",
      );
      const registry = createToolRegistry(workspaceTools({ root: ws.root }));
      const seen: string[] = [];
      const outcome = await registry.execute(
        'run_command',
        { argv: ['node', 'pid.js'] },
        {
          signal: new AbortController().signal,
          callId: 'c1',
          // Read while it runs: the command line of the process that was started.
          onProcess: ({ pid }) => {
            // Right after the spawn the process may still be inside execve (its command line reads
            // empty for that moment): look again for up to 2 s.
            const pause = new Int32Array(new SharedArrayBuffer(4));
            let cmdline = '';
            for (let i = 0; i < 200 && cmdline === ''; i++) {
              cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
              if (cmdline === '') Atomics.wait(pause, 0, 0, 10);
            }
            seen.push(cmdline);
            writeFileSync(join(ws.root, 'seen'), '');
          },
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
