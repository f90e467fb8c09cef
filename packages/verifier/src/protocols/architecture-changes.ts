import { canFindSymbols, listSymbols } from '../find-symbol';
import type { ProtocolContext } from '../protocol';
import type { WorkspaceFacts } from '../workspace-facts';

/** Structural changes of a workspace that call for an architecture review (the ARCHITECT protocol). */
export interface ArchitectureChanges {
  /** Files that did not exist at the base (untracked or added). */
  newFiles: string[];
  /** Manifests whose dependencies changed, with added/removed package names. */
  dependencyChanges: { file: string; added: string[]; removed: string[] }[];
  /** Exports (public symbols) that disappeared from modified source files (API signature changes). */
  removedExports: { file: string; name: string }[];
  /** Exports (public symbols) added to modified source files. */
  addedExports: { file: string; name: string }[];
  /** Changed files that look security-sensitive (auth, crypto, secrets, CI workflows…). */
  securitySensitive: string[];
}

const MANIFESTS =
  /(?:^|\/)(?:package\.json|requirements[^/]*\.txt|pyproject\.toml|go\.mod|Cargo\.toml|Gemfile)$/;
const SECURITY_WORDS = new Set(
  'auth authn authz authentication authorization oauth oidc saml security secure crypto cryptography encrypt encryption decrypt secret secrets credential credentials password passwords passwd permission permissions acl rbac jwt session sessions login signin token tokens'.split(
    ' ',
  ),
);
const SECURITY_FILES =
  /(?:^|\/)\.env(?:\.[^/]*)?$|\.(?:pem|key|p12|pfx|crt)$|(?:^|\/)id_(?:rsa|ed25519|ecdsa)|(?:^|\/)\.github\/workflows\//i;

/** True when a path looks security-sensitive (auth, crypto, secrets, keys, CI workflows…). */
export function isSecuritySensitive(file: string): boolean {
  if (SECURITY_FILES.test(file)) return true;
  const words = file
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => SECURITY_WORDS.has(word));
}

function dependencyNames(file: string, text: string | undefined): Set<string> {
  const names = new Set<string>();
  if (text === undefined) return names;
  if (file.endsWith('package.json')) {
    try {
      const json = JSON.parse(text) as Record<string, unknown>;
      for (const key of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
        const deps = json[key];
        if (typeof deps === 'object' && deps !== null) for (const name of Object.keys(deps)) names.add(name);
      }
    } catch {
      // unparsable manifest: SYNTAX reports it
    }
    return names;
  }
  for (const line of text.split('\n')) {
    const match = /^\s*["']?([A-Za-z0-9_.@/-]+)["']?\s*(?:[=<>~!^ ]|$)/.exec(line);
    if (match?.[1] && !line.trim().startsWith('#') && !line.trim().startsWith('[')) names.add(match[1]);
  }
  return names;
}

async function baseVersion(ctx: ProtocolContext, file: string, baseRef: string): Promise<string | undefined> {
  if (ctx.facts.gitTop === undefined) return undefined;
  const result = await ctx.run(['git', 'show', `${baseRef}:./${file}`], { timeoutMs: 15_000 });
  return result.exitCode === 0 ? result.stdout : undefined;
}

const cache = new WeakMap<WorkspaceFacts, Promise<ArchitectureChanges>>();

/**
 * Detects new files, dependency changes, removed/added exports and security-sensitive changes
 * from git (base vs working tree) and the files' syntax trees (every language the verifier
 * parses). Cached per verification.
 */
export function detectArchitectureChanges(ctx: ProtocolContext): Promise<ArchitectureChanges> {
  const baseRef = ctx.baseRef;
  const cached = cache.get(ctx.facts);
  if (cached) return cached;
  const promise = (async (): Promise<ArchitectureChanges> => {
    const changes = await ctx.facts.changes();
    const result: ArchitectureChanges = {
      newFiles: [],
      dependencyChanges: [],
      removedExports: [],
      addedExports: [],
      securitySensitive: [],
    };
    const changed = changes
      ? [...changes.values()]
      : (await ctx.changedFiles()).map((path) => ({ path, kind: 'other' as const }));
    let astBudget = 20;
    for (const change of changed) {
      if (isSecuritySensitive(change.path)) result.securitySensitive.push(change.path);
      if (change.kind === 'untracked' || change.kind === 'added') result.newFiles.push(change.path);
      if (MANIFESTS.test(change.path)) {
        const before = dependencyNames(change.path, await baseVersion(ctx, change.path, baseRef));
        const after = dependencyNames(change.path, ctx.facts.read(change.path));
        const added = [...after].filter((name) => !before.has(name));
        const removed = [...before].filter((name) => !after.has(name));
        if (added.length > 0 || removed.length > 0)
          result.dependencyChanges.push({ file: change.path, added, removed });
      }
      if (change.kind === 'modified' && canFindSymbols(change.path) && astBudget > 0) {
        astBudget -= 1;
        const beforeText = await baseVersion(ctx, change.path, baseRef);
        const afterText = ctx.facts.read(change.path);
        if (beforeText === undefined || afterText === undefined) continue;
        const exportsOf = async (text: string) =>
          new Set(
            (await listSymbols(change.path, text))
              .filter((symbol) => symbol.exported && symbol.declaration !== 'import')
              .map((symbol) => symbol.name),
          );
        const before = await exportsOf(beforeText);
        const after = await exportsOf(afterText);
        for (const name of before)
          if (!after.has(name)) result.removedExports.push({ file: change.path, name });
        for (const name of after)
          if (!before.has(name)) result.addedExports.push({ file: change.path, name });
      }
    }
    return result;
  })();
  cache.set(ctx.facts, promise);
  return promise;
}

/** True when the changes are structural (new files, dependencies, removed exports). */
export function isArchitectureChange(changes: ArchitectureChanges): boolean {
  return (
    changes.newFiles.length > 0 || changes.dependencyChanges.length > 0 || changes.removedExports.length > 0
  );
}
