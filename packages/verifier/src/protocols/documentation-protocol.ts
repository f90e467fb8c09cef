import path from 'node:path';
import { codeLanguageOf } from '../code-parser';
import type { Finding } from '../finding';
import type { Protocol, ProtocolContext } from '../protocol';
import { detectArchitectureChanges } from './architecture-changes';

/** READMEs, changelogs, docs folders, markdown/reST/AsciiDoc files and changesets. */
const DOC_FILE =
  /(?:^|\/)(?:README|CHANGELOG|CHANGES|HISTORY|RELEASE[-_ ]?NOTES|MIGRATION|UPGRADING)[^/]*$|(?:^|\/)(?:docs?|documentation)\/|(?:^|\/)\.changeset\/[^/]+\.md$|\.(?:md|mdx|rst|adoc)$/i;
const TEST_FILE =
  /(?:^|\/)(?:tests?|__tests__|spec|testdata|__fixtures__|fixtures)\/|\.(?:test|spec)\.[^/]+$|_test\.(?:go|py)$|(?:^|\/)test_[^/]+\.py$|Tests?\.(?:java|cs)$/;

/** True for a documentation file (README, CHANGELOG, docs/…, *.md, changesets). */
export function isDocumentationFile(file: string): boolean {
  return DOC_FILE.test(file);
}

function entryPoints(ctx: ProtocolContext): Set<string> {
  const entries = new Set<string>();
  const text = ctx.facts.read('package.json');
  if (text === undefined) return entries;
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const collect = (value: unknown): void => {
      if (typeof value === 'string') entries.add(path.posix.normalize(value.replace(/^\.\//, '')));
      else if (typeof value === 'object' && value !== null)
        for (const inner of Object.values(value)) collect(inner);
    };
    collect(json.main);
    collect(json.module);
    collect(json.exports);
  } catch {
    // an unparsable package.json is SYNTAX's business
  }
  return entries;
}

/**
 * True when a file's exported names are a public API: any source file in languages whose
 * visibility is the API (Go, Rust, Java, C++, PHP), entry points in JS/TS and Python (`index.*`,
 * `main.*`, `__init__.py`, package.json `main`/`module`/`exports` targets). Tests never are.
 */
function isApiFile(file: string, entries: ReadonlySet<string>): boolean {
  if (TEST_FILE.test(file)) return false;
  const language = codeLanguageOf(file);
  if (language === undefined) return false;
  if (!['javascript', 'typescript', 'tsx', 'python'].includes(language)) return true;
  if (entries.has(file)) return true;
  return /(?:^|\/)(?:index|main|mod|__init__|public-api|public_api|api)\.[^/]+$/.test(file);
}

/** The public API changes of a change: exports added or removed in API files. */
export async function publicApiChanges(
  ctx: ProtocolContext,
): Promise<{ file: string; name: string; change: 'added' | 'removed' }[]> {
  const changes = await detectArchitectureChanges(ctx);
  const entries = entryPoints(ctx);
  return [
    ...changes.addedExports.map((item) => ({ ...item, change: 'added' as const })),
    ...changes.removedExports.map((item) => ({ ...item, change: 'removed' as const })),
  ].filter((item) => isApiFile(item.file, entries));
}

/**
 * DOCUMENTATION (layer 1, P2): when the change alters a public API (exports added to or removed
 * from an entry point, public symbols of Go/Rust/Java files — read from syntax trees against
 * the base), a README, CHANGELOG, docs/ file or changeset changed in the same step (or run, at
 * goal level). No public API change → the protocol does not apply.
 */
export const documentationProtocol: Protocol = {
  name: 'DOCUMENTATION',
  description: 'A public API change comes with a README, CHANGELOG, docs or changeset update.',
  priority: 'P2',
  layer: 1,
  group: 2,
  timeoutMs: 60_000,
  async appliesTo(ctx) {
    return (await publicApiChanges(ctx)).length > 0;
  },
  async run(ctx): Promise<Finding[]> {
    const api = await publicApiChanges(ctx);
    if (api.length === 0) return [];
    const docs = (await ctx.facts.changes())
      ? [...((await ctx.facts.changes())?.values() ?? [])]
          .map((change) => change.path)
          .filter(isDocumentationFile)
      : (await ctx.changedFiles()).filter(isDocumentationFile);
    const described = api
      .slice(0, 6)
      .map((item) => `${item.change} ${item.name} in ${item.file}`)
      .join(', ');
    const more = api.length > 6 ? ` and ${api.length - 6} more` : '';
    if (docs.length > 0) {
      return [
        {
          check: 'DOCUMENTATION',
          priority: 'P2',
          status: 'pass',
          message: `Public API changed (${described}${more}) and documentation changed too (${docs.slice(0, 5).join(', ')}).`,
        },
      ];
    }
    return [
      {
        check: 'DOCUMENTATION',
        priority: 'P2',
        status: 'fail',
        message: `Public API changed (${described}${more}) but no README, CHANGELOG, docs or changeset file changed.`,
        ...(api[0] ? { evidence: { file: api[0].file } } : {}),
      },
    ];
  },
};
