import { randomUUID } from 'node:crypto';
import { writeSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { closeCommandExitRecord, openCommandExitRecord, readCommandExit } from './command-exit-records';
import { createCommandRunner } from './create-command-runner';
import { createTempWorkspace, type TempWorkspace } from './create-temp-workspace';
import { probeSandbox } from './sandbox';

const hasSandbox = (await probeSandbox()).available;

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({ files: {} });
});
afterEach(async () => {
  await ws.cleanup();
});

describe('exit records', () => {
  it('a record with a start and no end is an interrupted command; none, or an unreadable one, is unknown', () => {
    const tag = randomUUID();
    expect(readCommandExit(tag)).toEqual({ kind: 'unknown' });
    const fd = openCommandExitRecord(tag);
    expect(fd).toBeTypeOf('number');
    writeSync(fd!, '{ "child-pid": 12, "mnt-namespace": 1 }\n');
    expect(readCommandExit(tag)).toEqual({ kind: 'interrupted' });
    writeSync(fd!, '{ "exit-code": 137 }\n');
    expect(readCommandExit(tag)).toEqual({ kind: 'exited', exitCode: 137 });
    closeCommandExitRecord(fd);
    const garbled = randomUUID();
    const other = openCommandExitRecord(garbled);
    writeSync(other!, 'not json\n{"exit-code": "0"}\n');
    closeCommandExitRecord(other);
    expect(readCommandExit(garbled)).toEqual({ kind: 'unknown' });
  });

  it('a tag that is not a plain name has no record (it could name a path)', () => {
    expect(openCommandExitRecord('../escape')).toBeUndefined();
    expect(readCommandExit('../../etc/passwd')).toEqual({ kind: 'unknown' });
  });

  it.runIf(hasSandbox)(
    'a sandboxed command run with a process tag leaves how it ended: its exit code',
    async () => {
      const runner = createCommandRunner({ root: ws.root, sandbox: 'required', policy: { allow: ['sh'] } });
      const ok = randomUUID();
      const failed = randomUUID();
      await runner.run(['sh', '-c', 'exit 0'], { processTag: ok });
      await runner.run(['sh', '-c', 'exit 3'], { processTag: failed });
      expect(readCommandExit(ok)).toEqual({ kind: 'exited', exitCode: 0 });
      expect(readCommandExit(failed)).toEqual({ kind: 'exited', exitCode: 3 });
    },
    30_000,
  );

  it('an unsandboxed command keeps no record (nothing outlives its owner to write one)', async () => {
    const runner = createCommandRunner({ root: ws.root, sandbox: 'off', policy: { allow: ['sh'] } });
    const tag = randomUUID();
    await runner.run(['sh', '-c', 'exit 0'], { processTag: tag });
    expect(readCommandExit(tag)).toEqual({ kind: 'unknown' });
  });
});
