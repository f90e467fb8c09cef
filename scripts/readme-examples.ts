/**
 * The README examples stand alone and run: every ```ts block of the root README and of each
 * package's README is written to a folder inside the repository (so the workspace packages
 * resolve, from `src/` through the `@closedloop/source` condition), typechecked with the
 * TypeScript compiler against the workspace packages, and run with tsx.
 *
 * A block is typechecked but not run when its fence says ```` ```ts no-run ```` or one of its
 * leading comment lines is `// not run: <why>`; use it only where running is impossible (a live
 * API key, a Redis server). A block whose first line is `// <name>.ts` is written under that name,
 * so blocks of one README can import each other (`import { setup } from './setup'`).
 *
 * `tsx scripts/readme-examples.ts [path-part] [--verbose]` checks every README (or those whose path
 * contains `path-part`) and prints one line per example (`--verbose`: and what it printed);
 * `scripts/readme-examples.test.ts` runs the same checks in `npm test`.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import ts from 'typescript';

/** The repository root. */
export const repoRoot = join(import.meta.dirname, '..');

/** One ```ts block of a README. */
export interface ReadmeExample {
  /** The README, relative to the repository root (`packages/plan/README.md`). */
  readme: string;
  /** Line of the README where the block's code starts (1-based). */
  line: number;
  code: string;
  /** File the block is written to, relative to the examples folder (`plan/1.ts`, `bullmq/setup.ts`). */
  file: string;
  /** False for `no-run` blocks and blocks that open with `// not run`. */
  run: boolean;
  /** Why a block is not run (the text after `// not run:`), when it says. */
  notRunReason?: string;
}

/** A typecheck error, at its README line. */
export interface ExampleDiagnostic {
  readme: string;
  line: number;
  message: string;
}

/** The outcome of running one example. */
export interface ExampleRun {
  exitCode: number | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

/** The root README and every README of `packages/*` and `apps/*`, relative to the repository root. */
export function readmePaths(): string[] {
  const nested = ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(repoRoot, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(repoRoot, group, entry.name, 'README.md')))
      .map((entry) => `${group}/${entry.name}/README.md`)
      .sort(),
  );
  return ['README.md', ...nested];
}

const notRunComment = /^\s*\/\/\s*not run\b:?\s*(.*)$/i;
const fileNameComment = /^\s*\/\/\s*([\w.-]+\.ts)\b/;

/** The ```ts blocks of one README (fences of three or more backticks; `typescript` counts too). */
export function extractExamples(markdown: string, readme: string): ReadmeExample[] {
  const folder = readme === 'README.md' ? 'root' : basename(dirname(readme));
  const lines = markdown.split('\n');
  const examples: ReadmeExample[] = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(`{3,})(ts|typescript)(?:\s+(.*))?$/.exec(lines[index] ?? '');
    if (!open) continue;
    const fence = open[1] ?? '```';
    const info = open[3] ?? '';
    const start = index + 1;
    let end = start;
    while (end < lines.length && !(lines[end]?.startsWith(fence) && lines[end]?.trim() === fence)) end++;
    if (end >= lines.length) throw new Error(`${readme}:${index + 1}: the \`\`\`ts block is never closed.`);
    const code = lines.slice(start, end).join('\n');
    // The markers are read from the block's leading comment lines.
    const leading = code.split('\n').filter((line) => line.trim() !== '');
    const firstCode = leading.findIndex((line) => !line.trim().startsWith('//'));
    const comments = leading.slice(0, firstCode === -1 ? leading.length : firstCode);
    const notRun = comments.map((line) => notRunComment.exec(line)).find((match) => match !== null) ?? null;
    const named = fileNameComment.exec(comments[0] ?? '');
    const ordinal = examples.length + 1;
    examples.push({
      readme,
      line: start + 1,
      code,
      file: `${folder}/${named?.[1] ?? `example-${ordinal}.ts`}`,
      run: notRun === null && !/\bno-run\b/.test(info),
      ...(notRun?.[1] ? { notRunReason: notRun[1].trim() } : {}),
    });
    index = end;
  }
  const files = new Set<string>();
  for (const example of examples) {
    if (files.has(example.file))
      throw new Error(`${readme}:${example.line}: a second block named ${example.file}.`);
    files.add(example.file);
  }
  return examples;
}

/** Every example of every README. */
export function collectExamples(): ReadmeExample[] {
  return readmePaths().flatMap((readme) =>
    extractExamples(readFileSync(join(repoRoot, readme), 'utf8'), readme),
  );
}

/**
 * Writes the examples into a new folder inside the repository (`.readme-examples-XXXXXX`) with a
 * `node_modules` that links every workspace package and every package a workspace package
 * installed, a `package.json` (`type: module`) and a `tsconfig.json` extending the base config.
 * Returns the folder; remove it with {@link removeExamples}.
 */
export function writeExamples(examples: readonly ReadmeExample[]): string {
  const dir = mkdtempSync(join(repoRoot, '.readme-examples-'));
  linkModules(join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ type: 'module', private: true }, null, 2)}\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    `${JSON.stringify({ extends: '../tsconfig.base.json', include: ['**/*.ts'], exclude: ['node_modules'] }, null, 2)}\n`,
  );
  for (const example of examples) {
    const target = join(dir, example.file);
    mkdirSync(dirname(target), { recursive: true });
    // A block without imports or exports would be a script: make every block a module (its own
    // scope, top-level await) without shifting its lines.
    const isModule = /^\s*(import|export)\s/m.test(example.code);
    writeFileSync(target, `${example.code}\n${isModule ? '' : 'export {};\n'}`);
  }
  return dir;
}

/** Removes a folder {@link writeExamples} made. */
export function removeExamples(dir: string): void {
  if (!basename(dir).startsWith('.readme-examples-')) throw new Error(`Refusing to remove ${dir}.`);
  rmSync(dir, { recursive: true, force: true });
}

/** Links the workspace packages first, then what the root and each workspace package installed. */
function linkModules(modules: string): void {
  mkdirSync(join(modules, '@closedloop'), { recursive: true });
  const workspaceDirs = ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(repoRoot, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(repoRoot, group, entry.name, 'package.json')))
      .map((entry) => join(repoRoot, group, entry.name)),
  );
  const linked = new Set<string>();
  const link = (name: string, target: string): void => {
    if (linked.has(name)) return;
    linked.add(name);
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(target, join(modules, name), 'dir');
  };
  for (const dir of workspaceDirs) {
    const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string };
    link(name, dir);
  }
  for (const dir of [repoRoot, ...workspaceDirs]) {
    const installed = join(dir, 'node_modules');
    if (!existsSync(installed)) continue;
    for (const entry of readdirSync(installed, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      if (entry.name.startsWith('@')) {
        for (const scoped of readdirSync(join(installed, entry.name))) {
          link(`${entry.name}/${scoped}`, join(installed, entry.name, scoped));
        }
      } else {
        link(entry.name, join(installed, entry.name));
      }
    }
  }
}

/** Typechecks every example in `dir` at once; errors are reported at their README lines. */
export function typecheckExamples(dir: string, examples: readonly ReadmeExample[]): ExampleDiagnostic[] {
  const configPath = join(dir, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, dir, undefined, configPath);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const byFile = new Map(examples.map((example) => [join(dir, example.file), example]));
  return ts.getPreEmitDiagnostics(program).map((diagnostic): ExampleDiagnostic => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
    const example = diagnostic.file && byFile.get(diagnostic.file.fileName);
    if (!diagnostic.file || !example || diagnostic.start === undefined) {
      return {
        readme: diagnostic.file ? relative(repoRoot, diagnostic.file.fileName) : '(config)',
        line: 0,
        message,
      };
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return { readme: example.readme, line: example.line + line, message };
  });
}

/** Runs one example with tsx (from `src/` through the source condition), in its own folder. */
export function runExample(dir: string, example: ReadmeExample, timeoutMs = 60_000): Promise<ExampleRun> {
  const file = join(dir, example.file);
  const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
  return new Promise((resolve) => {
    execFile(
      tsx,
      ['--conditions=@closedloop/source', file],
      { cwd: dirname(file), timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const timedOut = error !== null && (error as { killed?: boolean }).killed === true;
        const exitCode = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ exitCode, timedOut, stdout, stderr });
      },
    );
  });
}

async function main(): Promise<void> {
  const verbose = process.argv.includes('--verbose');
  const only = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
  const examples = collectExamples().filter((example) => only === undefined || example.readme.includes(only));
  const dir = writeExamples(examples);
  let failed = false;
  try {
    const diagnostics = typecheckExamples(dir, examples);
    for (const diagnostic of diagnostics)
      console.log(`${diagnostic.readme}:${diagnostic.line}: ${diagnostic.message}`);
    failed = diagnostics.length > 0;
    let ran = 0;
    for (const example of examples) {
      const where = `${example.readme}:${example.line}`;
      if (!example.run) {
        console.log(
          `typechecked  ${where}  (not run${example.notRunReason ? `: ${example.notRunReason}` : ''})`,
        );
        continue;
      }
      const outcome = await runExample(dir, example);
      ran++;
      const ok = outcome.exitCode === 0;
      failed ||= !ok;
      console.log(`${ok ? 'ran' : 'FAILED'}          ${where}${outcome.timedOut ? '  (timed out)' : ''}`);
      if (!ok) console.log(outcome.stderr || outcome.stdout);
      else if (verbose) console.log(outcome.stdout);
    }
    console.log(
      `${examples.length} examples in ${readmePaths().length} READMEs: ${examples.length} typechecked` +
        ` (${diagnostics.length} errors), ${ran} run.`,
    );
  } finally {
    removeExamples(dir);
  }
  if (failed) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
