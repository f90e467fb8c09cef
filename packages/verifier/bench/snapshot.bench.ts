/**
 * Baseline snapshot of a 2,000-file workspace (the per-step baseline every step gets when it
 * starts). Target: median < 20 ms (the warm path: inode, size, mtime and ctime match the cache, nothing is read).
 * Also prints the cold first snapshot (every file read and hashed) and the diff after a change.
 *
 * Run: `npx tsx --conditions=@closedloop/source bench/snapshot.bench.ts`
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { diffSnapshots, snapshotWorkspace } from '../src/workspace-snapshot';

const FILES = 2000;
const RUNS = 50;
const TARGET_MS = 20;

const root = await mkdtemp(path.join(tmpdir(), 'closedloop-snapshot-bench-'));
try {
  for (let index = 0; index < FILES; index += 1) {
    const dir = path.join(root, `src/module-${index % 40}/part-${index % 7}`);
    await mkdir(dir, { recursive: true });
    const body = `export function f${index}(x: number): number {\n  return x + ${index};\n}\n`.repeat(
      1 + (index % 5),
    );
    await writeFile(path.join(dir, index % 10 === 0 ? `f${index}.test.ts` : `f${index}.ts`), body);
  }
  const coldStarted = performance.now();
  const cold = snapshotWorkspace(root);
  const coldMs = performance.now() - coldStarted;
  const times: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    snapshotWorkspace(root);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)] ?? Number.NaN;
  const p95 = times[Math.floor(times.length * 0.95)] ?? Number.NaN;
  await writeFile(path.join(root, 'src/module-1/part-1/f1.ts'), 'export const changed = true;\n');
  await writeFile(path.join(root, 'src/new.ts'), 'export const added = 1;\n');
  const diffStarted = performance.now();
  const changes = diffSnapshots(cold, snapshotWorkspace(root));
  const diffMs = performance.now() - diffStarted;
  console.log(`snapshotWorkspace: ${cold.files.size} files (${cold.texts.size} test files kept as text)`);
  console.log(`cold (every file read and hashed): ${coldMs.toFixed(1)} ms`);
  console.log(`warm: median ${median.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms over ${RUNS} runs`);
  console.log(
    `snapshot + diff after 2 changes: ${diffMs.toFixed(2)} ms → created ${changes.created.join(', ')}; modified ${changes.modified.join(', ')}`,
  );
  console.log(`target median < ${TARGET_MS} ms → ${median < TARGET_MS ? 'PASS' : 'FAIL'}`);
  process.exitCode = median < TARGET_MS ? 0 : 1;
} finally {
  await rm(root, { recursive: true, force: true });
}
