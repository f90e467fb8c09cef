import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectExamples,
  type ExampleDiagnostic,
  readmePaths,
  removeExamples,
  repoRoot,
  runExample,
  typecheckExamples,
  writeExamples,
} from './readme-examples';

/** Every ```ts block of the root README and of each package's README typechecks, and runs. */
const examples = collectExamples();
let dir: string;

beforeAll(() => {
  dir = writeExamples(examples);
});
afterAll(() => {
  if (dir) removeExamples(dir);
});

describe('README examples', () => {
  it('has a runnable example in the root README and in every published package README', () => {
    // A private package (the side-by-side benchmark) is a command, not an API: its README shows it.
    const isPrivate = (readme: string) =>
      JSON.parse(readFileSync(join(repoRoot, dirname(readme), 'package.json'), 'utf8')).private === true;
    const readmes = readmePaths().filter(
      (readme) => readme === 'README.md' || (readme.startsWith('packages/') && !isPrivate(readme)),
    );
    for (const readme of readmes) {
      expect(
        examples.some((example) => example.readme === readme),
        `${readme} has no \`\`\`ts example`,
      ).toBe(true);
    }
    for (const readme of readmes.filter((readme) => readme.startsWith('packages/'))) {
      expect(
        examples.some((example) => example.readme === readme && example.run),
        `${readme} has no example that runs`,
      ).toBe(true);
    }
  });

  it('typechecks every example against the workspace packages', { timeout: 240_000 }, () => {
    const diagnostics: ExampleDiagnostic[] = typecheckExamples(dir, examples);
    expect(
      diagnostics.map((diagnostic) => `${diagnostic.readme}:${diagnostic.line}: ${diagnostic.message}`),
    ).toEqual([]);
  });

  it.each(
    examples
      .filter((example) => example.run)
      .map((example) => [`${example.readme}:${example.line}`, example]),
  )('runs %s', async (_where, example) => {
    const outcome = await runExample(dir, example, 90_000);
    expect(outcome.timedOut, 'timed out').toBe(false);
    expect(outcome.exitCode, outcome.stderr || outcome.stdout).toBe(0);
  });
});
