// Starts a grandchild, records both pids, then waits forever: for the process-tree kill test.
const { spawn } = require('node:child_process');
const { writeFileSync } = require('node:fs');
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
writeFileSync('pids.json', JSON.stringify([process.pid, child.pid]));
console.log('started');
setInterval(() => {}, 1000);
