import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, symlink, link, mkdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import path from 'node:path';
import { it } from 'vitest';
import { createCommandRunner } from './create-command-runner';
import { createTempWorkspace } from './create-temp-workspace';
import { createToolRegistry } from './create-tool-registry';
import { workspaceTools } from './workspace-tools';

it('battery', { timeout: 300_000 }, async () => {
  process.env.SECRET_TOKEN_X = 'hostsecret-abcdef123456';
  const ws = await createTempWorkspace({ files: { 'a.txt': 'hi\n' } });
  const hostDir = await mkdtemp(path.join(homedir(), '.h14-host-'));
  await writeFile(path.join(hostDir, 'secret.txt'), 'HOSTFILE\n');
  const srv = createServer((s) => { s.end('NETOK'); }).listen(0, '127.0.0.1');
  await new Promise((r) => srv.once('listening', r));
  const port = (srv.address() as any).port;
  const reg = createToolRegistry(workspaceTools({ root: ws.root }));
  const sig = new AbortController().signal;
  let n = 0;
  const call = async (name: string, args: unknown) => {
    const r = await reg.execute(name, args, { signal: sig, callId: `c${n++}` });
    console.log(`\n### ${name} ${JSON.stringify(args).slice(0, 300)}\n→ ${r.status} ${(r as any).text?.slice(0, 3000)}`);
    return r;
  };
  const script = async (name: string, body: string) => {
    await call('write_file', { path: name, content: body });
    return call('run_command', { argv: ['node', name] });
  };
  // sandbox probes
  await script('p1.cjs', `
const fs=require('fs'),os=require('os'),net=require('net');
const out={};
const t=(k,f)=>{try{out[k]=String(f()).slice(0,80)}catch(e){out[k]='ERR '+e.code}};
t('home',()=>os.homedir()); t('env',()=>JSON.stringify(process.env));
t('hostfile',()=>fs.readFileSync(${JSON.stringify(path.join(hostDir,'secret.txt'))},'utf8'));
t('writehome',()=>{fs.writeFileSync(${JSON.stringify(path.join(hostDir,'w.txt'))},'x');return 'wrote'});
t('writehome2',()=>{fs.writeFileSync(os.homedir()+'/h14w.txt','x');return 'wrote'});
t('writetmp',()=>{fs.writeFileSync('/tmp/h14/w.txt','x');return 'wrote'});
t('ssh',()=>fs.readdirSync(os.homedir()+'/.ssh'));
t('procroot',()=>fs.readdirSync('/proc/self/root'+${JSON.stringify(hostDir)}));
t('proc1',()=>fs.readFileSync('/proc/1/cmdline','utf8'));
t('procs',()=>fs.readdirSync('/proc').filter(x=>/^\\d+$/.test(x)).join(','));
t('devshm',()=>{fs.writeFileSync('/dev/shm/h14','x');return 'wrote'});
t('vartmp',()=>{fs.writeFileSync('/var/tmp/h14','x');return 'wrote'});
t('gitdir',()=>fs.readdirSync('.git'));
t('hooks',()=>{fs.writeFileSync('.git/hooks/pre-commit','#!/bin/sh\\n');return 'wrote'});
t('gitconfig',()=>{fs.appendFileSync('.git/config','[core]\\n');return 'wrote'});
t('dotgitconfig',()=>{fs.writeFileSync(os.homedir()+'/.gitconfig','[core]\\n');return 'wrote'});
t('uid',()=>process.getuid());
t('mounts',()=>fs.readFileSync('/proc/self/mountinfo','utf8').split('\\n').length);
const s=net.connect(${port},'127.0.0.1');s.on('data',d=>{out.net=String(d);}).on('error',e=>{out.net='ERR '+e.code});
setTimeout(()=>console.log(JSON.stringify(out,null,1)),500);
`);
  await call('run_command', { argv: ['node', '-e', 'console.log(1)'] });
  await call('run_command', { argv: ['env', 'sh', '-c', 'id'] });
  await call('run_command', { argv: ['find', '.', '-exec', 'sh', '-c', 'id', ';'] });
  await call('run_command', { argv: ['git', '-c', 'core.pager=id', 'log'] });
  await call('run_command', { argv: ['git', '-c', 'alias.x=!id', 'x'] });
  await call('run_command', { argv: ['npm', 'exec', 'sh'] });
  await call('run_command', { argv: ['python3', '-c', 'print(1)'] });
  await call('run_command', { argv: ['npx', '-c', 'id'] });
  await call('run_command', { argv: ['cat', '/proc/self/root/etc/passwd'] });
  await call('run_command', { argv: ['cat', '/dev/fd/0'] });
  await call('read_file', { path: '/proc/self/root/etc/hostname' });
  await call('read_file', { path: '../../etc/passwd' });
  await call('read_file', { path: 'a.txt\u0000x' });
  await call('read_file', { path: 'a\nb' });
  await call('read_file', { path: 'x/'.repeat(3000) + 'a' });
  // links made by a command then used by a file tool
  await script('mk.cjs', `const fs=require('fs');fs.symlinkSync(${JSON.stringify(hostDir)},'out');fs.symlinkSync('/etc/hostname','hn');try{fs.linkSync('/etc/hostname','hl')}catch(e){console.log('link',e.code)}`);
  await call('read_file', { path: 'out/secret.txt' });
  await call('write_file', { path: 'out/w2.txt', content: 'x' });
  await call('read_file', { path: 'hn' });
  await call('list_dir', { path: 'out' });
  await call('delete_file', { path: 'out' });
  // tar with ../ and absolute
  execFileSync('sh', ['-c', `cd /tmp/h14 && rm -rf t && mkdir -p t/in && echo evil > t/evil && cd t/in && tar -cPf ../../evil.tar ../evil /tmp/h14/t/evil 2>&1 || true`]);
  await call('run_command', { argv: ['node', '-e', '1'] });
  console.log('hostDir after', execFileSync('ls', ['-la', hostDir]).toString(), existsSync(path.join(homedir(),'h14w.txt')), existsSync('/tmp/h14/w.txt'), existsSync('/dev/shm/h14'), existsSync('/var/tmp/h14'));
  srv.close();
  await ws.cleanup();
  await rm(hostDir, { recursive: true, force: true });
});
