import { type ChatModel, generateObject } from '@closedloop/model';
import { z } from 'zod';
import { type Claim, dedupeClaims } from './claim-types';
import { findPaths } from './find-paths';
import { splitCommandLine } from './split-command-line';

/** The claims a model lists for a step's text: data, each then checked deterministically. */
export const modelClaimsSchema = z.object({
  claims: z
    .array(
      z.object({
        kind: z.enum([
          'file-created',
          'file-modified',
          'file-deleted',
          'file-moved',
          'symbol-added',
          'command-passed',
          'tests-passed',
          'build-passed',
          'lint-passed',
          'typecheck-passed',
          'git-commit',
          'git-branch',
          'git-tag-created',
          'git-tag-deleted',
          'git-push',
          'dependency-installed',
        ]),
        /** The file (or the source of a move). */
        file: z.string().optional(),
        /** The destination of a move. */
        to: z.string().optional(),
        /** A symbol, branch, tag or package name. */
        name: z.string().optional(),
        /** A command line. */
        command: z.string().optional(),
        /** A claimed number of passing tests. */
        count: z.number().int().nonnegative().optional(),
        /** The words of the text that make the claim. */
        quote: z.string(),
      }),
    )
    .max(100),
});

/** The instructions of the factored extraction call. */
export const claimExtractionSystemPrompt = [
  'You list the checkable claims a software agent made about its OWN work, as data.',
  'A claim is an action the agent reports as done on an object: a file it created, modified, deleted or moved;',
  'a function or class it added; a command or test suite it says passed (with the number of tests if given);',
  'a commit, branch, git tag (created or deleted) or push it made; a dependency it installed.',
  'Do NOT list: files it only read, mentioned or based its work on ("based on the Id type in src/types.ts"),',
  'plans, intentions, negated or failed actions ("could not create X", "will add Y"), or anything it did not claim.',
  'Quote the words that make each claim. If there are none, return an empty list.',
].join('\n');

/**
 * Factored claim extraction: one `generateObject` call that sees only the step's text (never the
 * ledger or the workspace) and lists its claims as data; each is checked like any other claim.
 * A model failure returns no claims (the deterministic extractor has already run). Paths must
 * look like paths and quotes must occur in the text, so the model cannot invent claims.
 *
 * @example
 * const claims = await extractClaimsWithModel(model, '[SUCCESS]: created src/a.ts; 4 tests pass');
 */
export async function extractClaimsWithModel(
  model: ChatModel,
  text: string,
  options: { signal?: AbortSignal } = {},
): Promise<Claim[]> {
  if (text.trim() === '') return [];
  let listed: z.infer<typeof modelClaimsSchema>['claims'];
  try {
    const result = await generateObject(model, modelClaimsSchema, {
      system: claimExtractionSystemPrompt,
      prompt: `The agent's text:\n"""\n${text.slice(0, 20_000)}\n"""`,
      name: 'claims',
      temperature: 0,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    listed = result.object.claims;
  } catch (error) {
    if (options.signal?.aborted) throw error;
    return [];
  }
  const haystack = text.toLowerCase();
  const claims: Claim[] = [];
  const isPath = (value: string | undefined): value is string =>
    value !== undefined && findPaths(value).length === 1;
  for (const item of listed) {
    if (!haystack.includes(item.quote.trim().toLowerCase().slice(0, 60))) continue;
    const context = { source: 'model' as const, text: item.quote.slice(0, 200) };
    const tests = item.count !== undefined ? { tests: { count: item.count, all: false } } : {};
    switch (item.kind) {
      case 'file-created':
      case 'file-modified':
        if (isPath(item.file))
          claims.push({
            kind: 'file-written',
            file: item.file,
            action: item.kind === 'file-created' ? 'created' : 'modified',
            ...context,
          });
        break;
      case 'file-deleted':
        if (isPath(item.file)) claims.push({ kind: 'file-deleted', file: item.file, ...context });
        break;
      case 'file-moved':
        if (isPath(item.file) && isPath(item.to))
          claims.push({ kind: 'file-moved', from: item.file, to: item.to, ...context });
        break;
      case 'symbol-added':
        if (item.name !== undefined && /^[A-Za-z_$][\w$.]*$/.test(item.name))
          claims.push({
            kind: 'symbol-added',
            name: item.name,
            ...(isPath(item.file) ? { file: item.file } : {}),
            symbolKind: 'any',
            ...context,
          });
        break;
      case 'command-passed': {
        const argv = item.command !== undefined ? splitCommandLine(item.command) : [];
        if (argv.length > 0) claims.push({ kind: 'command-passed', argv, ...tests, ...context });
        break;
      }
      case 'tests-passed':
        claims.push({ kind: 'check-passed', check: 'test', ...tests, ...context });
        break;
      case 'build-passed':
      case 'lint-passed':
      case 'typecheck-passed':
        claims.push({
          kind: 'check-passed',
          check: item.kind.replace('-passed', '') as 'build' | 'lint' | 'typecheck',
          ...context,
        });
        break;
      case 'git-commit':
        claims.push({
          kind: 'git-commit',
          ...(item.name && /^[0-9a-f]{7,40}$/.test(item.name) ? { hash: item.name } : {}),
          ...context,
        });
        break;
      case 'git-branch':
        if (item.name) claims.push({ kind: 'git-branch', name: item.name, ...context });
        break;
      case 'git-tag-created':
      case 'git-tag-deleted':
        if (item.name)
          claims.push({
            kind: 'git-tag',
            name: item.name,
            action: item.kind === 'git-tag-created' ? 'create' : 'delete',
            ...context,
          });
        break;
      case 'git-push':
        claims.push({ kind: 'git-push', ...context });
        break;
      case 'dependency-installed':
        claims.push({ kind: 'dependency-installed', ...(item.name ? { name: item.name } : {}), ...context });
        break;
    }
  }
  return dedupeClaims(claims);
}
