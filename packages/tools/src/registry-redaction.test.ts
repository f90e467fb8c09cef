import { createRedactor } from '@closedloop/model';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { createToolRegistry } from './create-tool-registry';
import { defineTool } from './define-tool';
import type { ToolContext } from './tool';
import { workspaceTools } from './workspace-tools';

const context = (): ToolContext => ({ signal: new AbortController().signal, callId: 'c' });

describe('redaction through the registry and workspace tools', () => {
  const canary = 'canary-Zq8vX2mN4pL7';
  let ws: TempWorkspace;

  beforeEach(async () => {
    ws = await createTempWorkspace({
      files: {
        '.env': `SERVICE_TOKEN=${canary}\n`,
        'print.cjs': `console.log(require("fs").readFileSync(".env", "utf8")); console.error("${canary}");\n`,
      },
    });
  });
  afterEach(async () => {
    await ws.cleanup();
  });

  it('redacts a secret in a file read, in command output and in an error message', async () => {
    const redactor = createRedactor({ env: { SERVICE_TOKEN: canary } });
    const failing = defineTool({
      name: 'connect',
      description: 'x',
      input: z.object({}),
      execute: () => {
        throw new Error(`authentication failed for token ${canary}`);
      },
    });
    const registry = createToolRegistry([...workspaceTools({ root: ws.root }), failing], { redactor });

    const read = await registry.execute('read_file', { path: '.env' }, context());
    expect(read.status).toBe('success');
    expect(read.text).toBe('SERVICE_TOKEN=[REDACTED:SERVICE_TOKEN]\n');
    expect(JSON.stringify(read)).not.toContain(canary);

    const command = await registry.execute('run_command', { argv: ['node', 'print.cjs'] }, context());
    expect(command.status).toBe('success');
    expect(command.text).toContain('[REDACTED:SERVICE_TOKEN]');
    expect(JSON.stringify(command)).not.toContain(canary);

    const cat = await registry.execute('run_command', { argv: ['cat', '.env'] }, context());
    expect(JSON.stringify(cat)).not.toContain(canary);

    const error = await registry.execute('connect', {}, context());
    expect(error).toMatchObject({ status: 'error', code: 'execution-failed' });
    expect(error.text).toContain('[REDACTED:SERVICE_TOKEN]');
    expect(JSON.stringify(error)).not.toContain(canary);

    const missing = await registry.execute('read_file', { path: `${canary}.txt` }, context());
    expect(JSON.stringify(missing)).not.toContain(canary);
  });

  it('sends the secret unredacted only when redaction is turned off', async () => {
    const registry = createToolRegistry(workspaceTools({ root: ws.root }), { redactor: false });
    expect((await registry.execute('read_file', { path: '.env' }, context())).text).toContain(canary);
  });
});
