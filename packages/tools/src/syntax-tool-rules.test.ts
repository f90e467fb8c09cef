import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCommand } from './command-policy';
import { ToolError } from './tool-error';

let root: string;
beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(tmpdir(), 'closedloop-syntax-rules-')));
  for (const file of ['main.go', 'lib.rs', 'Main.java', 'index.php', 'args.txt'])
    await writeFile(path.join(root, file), '');
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function denial(argv: string[]): Promise<string | undefined> {
  try {
    await checkCommand(argv, { root });
    return undefined;
  } catch (error) {
    if (!ToolError.isInstance(error)) throw error;
    return error.message;
  }
}

const javacParseOnly = ['-XDshould-stop.ifError=PARSE', '-XDshould-stop.ifNoError=PARSE', '-proc:none'];

describe('syntax toolchains under the default policy', () => {
  it.each([
    [['gofmt', '-e']],
    [['gofmt', '-l', 'main.go']],
    [['rustfmt', '--edition', '2021', '--emit', 'stdout']],
    [['rustfmt', '--check', 'lib.rs']],
    [['javac', ...javacParseOnly, '-implicit:none', '-encoding', 'UTF-8', 'Main.java']],
    [['php', '-n', '-l']],
    [['php', '-l', 'index.php']],
    [['php', '--version']],
  ])('allows the parse-only form %j', async (argv) => {
    expect(await denial(argv)).toBeUndefined();
  });

  it.each([
    [['gofmt', '-w', 'main.go'], /rewrites files/],
    [['gofmt', '-e', '/etc/passwd'], /workspace|outside/i],
    [['rustfmt', '--emit', 'files', 'lib.rs'], /--emit stdout/],
    [['rustfmt', '--config-path', 'x'], /not an option/],
    [['javac', 'Main.java'], /parse check/],
    [
      [
        'javac',
        '-XDshould-stop.ifError=GENERATE',
        '-XDshould-stop.ifNoError=PARSE',
        '-proc:none',
        'Main.java',
      ],
      /PARSE/,
    ],
    [['javac', ...javacParseOnly, '@args.txt'], /argfile/],
    [['javac', ...javacParseOnly, '-processorpath', 'x', 'Main.java'], /not an option/],
    [['javac', ...javacParseOnly, '-d', '/tmp', 'Main.java'], /not an option/],
    [['php', 'index.php'], /syntax check/],
    [['php', '-r', 'echo 1;'], /not an option/],
    [['php', '-d', 'auto_prepend_file=x', '-l', 'index.php'], /not an option/],
    [['php', '-l', '/etc/passwd'], /workspace|outside/i],
  ])('refuses %j', async (argv, reason) => {
    expect(await denial(argv)).toMatch(reason);
  });
});
