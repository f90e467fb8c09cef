// Starts descendants that try to outlive the command: a plain child, a child in its own session
// (setsid) that ignores SIGTERM, and a double fork (the middle process exits at once, leaving an
// orphan). Each appends to beats-<name>.txt every 50 ms while it lives. argv[2] = 'exit' makes the
// main process exit once they run; otherwise it waits forever.
const { spawn } = require('node:child_process');
const { appendFileSync, existsSync, writeFileSync } = require('node:fs');

const beat = (name) =>
  `process.on('SIGTERM', () => {}); setInterval(() => require('node:fs').appendFileSync('beats-${name}.txt', '.'), 50);`;
const start = (name, detached) =>
  spawn(process.execPath, ['-e', beat(name)], { stdio: 'ignore', detached }).unref();

if (process.argv[2] === 'middle') {
  start('orphan', true);
  process.exit(0);
}
start('child', false);
start('session', true);
spawn(process.execPath, [__filename, 'middle'], { stdio: 'ignore', detached: true }).unref();
// Report "started" once every descendant beats.
const waiting = setInterval(() => {
  if (!['child', 'session', 'orphan'].every((name) => existsSync(`beats-${name}.txt`))) return;
  clearInterval(waiting);
  writeFileSync('started.txt', 'yes');
  console.log('started');
  if (process.argv[2] === 'exit') process.exit(0);
  appendFileSync('beats-main.txt', '');
  setInterval(() => {}, 1000);
}, 20);
