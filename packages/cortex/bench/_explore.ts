import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runChild, startChild, trialState, trialWorkspace } from '../src/__fixtures__/crash-trials';
import { bundleChild } from '../src/__fixtures__/spawn-child';
const child = await bundleChild(join(import.meta.dirname, '../src/__fixtures__/trial-child.ts'), 'trial-child');
const mode = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), 'h14-x-'));
const env = { ...trialWorkspace(dir), RUN_ID: 'run-x' };
const sh = (cmd: string) => execFileSync('sh', ['-c', cmd], { encoding: 'utf8' });
if (mode === 'size') {
  const r = await runChild(child, { ...env, PHASE: 'run' });
  console.log(r.stdout, statSync(join(env.STORE_DIR, 'run-x.jsonl')).size);
} else if (mode === 'full') {
  const kb = Number(process.argv[3]);
  mkdirSync(env.STORE_DIR, { recursive: true });
  sh(`mount -t tmpfs -o size=${kb}k tmpfs ${env.STORE_DIR}`);
  const r = await runChild(child, { ...env, PHASE: 'run' });
  console.log('run:', r.code, r.signal, r.stdout.slice(0, 400), r.stderr.slice(-300));
  console.log(sh(`ls -la ${env.STORE_DIR}; tail -c 200 ${env.STORE_DIR}/run-x.jsonl; echo; df -k ${env.STORE_DIR}`));
  sh(`mount -o remount,size=4m ${env.STORE_DIR}`);
  const again = await runChild(child, { ...env, PHASE: 'resume' });
  console.log('resume:', again.code, again.stdout.slice(0, 400), again.stderr.slice(-300));
  console.log(trialState(env.ROOT));
  sh(`umount ${env.STORE_DIR}`);
} else if (mode === 'ro') {
  const ms = Number(process.argv[3]);
  mkdirSync(env.STORE_DIR, { recursive: true });
  sh(`mount -t tmpfs -o size=4m tmpfs ${env.STORE_DIR}`);
  const c = startChild(child, { ...env, PHASE: 'run' }, () => setTimeout(() => sh(`mount -o remount,ro ${env.STORE_DIR}`), ms));
  const r = await c.done;
  console.log('run:', r.code, r.signal, r.stdout.slice(0, 400), r.stderr.slice(-300));
  const ro = await runChild(child, { ...env, PHASE: 'resume' });
  console.log('resume on ro:', ro.code, ro.stdout.slice(0, 400), ro.stderr.slice(-300));
  sh(`mount -o remount,rw ${env.STORE_DIR}`);
  const again = await runChild(child, { ...env, PHASE: 'resume' });
  console.log('resume:', again.code, again.stdout.slice(0, 400), again.stderr.slice(-300));
  console.log(trialState(env.ROOT));
  sh(`umount ${env.STORE_DIR}`);
}
