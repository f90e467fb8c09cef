#!/usr/bin/env node
// `npm run typecheck`: every package and the CLI as one TypeScript program (tsconfig.check.json),
// then the web UI (apps/demo/src/web, DOM types). One program checks each source file once; a
// package's own `tsc --noEmit` (its `typecheck` script) also checks the sources of every package it
// depends on (the `@closedloop/source` condition), so running them all checks the lower packages
// up to ten times.
//
// Before that it makes sure the one program is the same check: every file each workspace
// tsconfig.json includes is in it, with the same compiler options.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');

/** @param {string} path */
function parse(path) {
  const config = ts.readConfigFile(path, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, join(path, '..'), undefined, path);
  const { configFilePath: _path, ...options } = parsed.options;
  return { files: parsed.fileNames, options: JSON.stringify(options) };
}

const combined = parse(join(root, 'tsconfig.check.json'));
const covered = new Set(combined.files);
const problems = [];
for (const group of ['packages', 'apps']) {
  for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
    const config = join(root, group, entry.name, 'tsconfig.json');
    if (!entry.isDirectory() || !existsSync(config)) continue;
    const own = parse(config);
    const name = relative(root, config);
    if (own.options !== combined.options) {
      problems.push(
        `${name} has other compiler options than tsconfig.check.json:\n  ${own.options}\n  ${combined.options}`,
      );
    }
    const missing = own.files.filter((file) => !covered.has(file));
    if (missing.length > 0) {
      problems.push(
        `tsconfig.check.json leaves out files ${name} includes: ${missing.map((file) => relative(root, file)).join(', ')}`,
      );
    }
  }
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}

const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
for (const project of ['tsconfig.check.json', 'apps/demo/src/web']) {
  const result = spawnSync(process.execPath, [tsc, '--noEmit', '-p', project], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) process.exit(1);
}
