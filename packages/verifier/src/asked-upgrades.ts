/**
 * Dependency upgrades asked by the description ("Upgrade `left-pad` to 1.3.0", "Bump lodash to
 * ^4.17.21") and what the workspace's own records say about the package afterwards: the manifest's
 * range, the version the lockfile resolves, the version installed in `node_modules`. A manifest
 * moved while the lockfile or the installed copy still holds another version is an upgrade in
 * appearance only: the install the project makes from its lockfile gets the old version.
 */
import { escapeRegExp } from './escape-reg-exp';

/** A package the description asks to move to a version. */
export interface AskedUpgrade {
  name: string;
  /** The version asked, without a range operator (`^4.17.21` → `4.17.21`). */
  version: string;
  /** "Pin requests to 2.31.0", "exact version": a range that allows other versions is not it. */
  pinned?: true;
}

const UPGRADE =
  /\b(?:upgrade|bump|update|downgrade|pin|move)\s+(?:the\s+)?(?:dependency\s+|package\s+)?[`'"]?(@?[a-z0-9][\w.-]*(?:\/[\w.-]+)?)[`'"]?(?:\s+(?:dev\s*|peer\s*|optional\s*)?(?:dependency|package|library|module))?\s+(?:from\s+[`'"]?v?[\w.^~-]+[`'"]?\s+)?to\s+(?:(?:version\s+|v)[`'"]?[\^~]?(\d+(?:\.\d+){0,2}(?:-[\w.]+)?)|[`'"]?[\^~]?(\d+\.\d+(?:\.\d+)?(?:-[\w.]+)?))\b/i;

/** The upgrade the description asks for, if it names a package and a version. */
export function askedUpgrade(description: string): AskedUpgrade | undefined {
  const match = UPGRADE.exec(description);
  const name = match?.[1];
  const version = match?.[2] ?? match?.[3];
  if (!name || !version || /^(?:the|a|an|all|it|them|dependencies|deps|packages|version)$/i.test(name))
    return undefined;
  const pinned =
    /^pin$/i.test(match?.[0].split(/\s/)[0] ?? '') ||
    /\b(?:pinn(?:ed|ing)|exact(?:ly)?)\s+(?:version|at|to)\b|\bexact\s+version\b/i.test(description);
  return pinned ? { name, version, pinned: true } : { name, version };
}

/** A range that admits only one version (`1.3.0`, `=1.3.0`, `==1.3.0`), not `^1.3.0`, `>=1.3.0`, `1.x`. */
const EXACT = /^(?:={0,3})\s*v?\d+(?:\.\d+){0,2}(?:-[\w.]+)?$/;

/** A Python requirement name as pip compares them (`Foo_Bar` is `foo-bar`). */
const pythonName = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/** The requirement of `name` in a requirements file: its version specifier (`''` when none). */
function requirement(text: string | undefined, name: string): string | undefined {
  if (text === undefined) return undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\s#.*$/, '').trim();
    const match = /^([A-Za-z0-9][\w.-]*)\s*(?:\[[^\]]*\])?\s*([^;]*)/.exec(line);
    if (match?.[1] !== undefined && pythonName(match[1]) === pythonName(name)) return (match[2] ?? '').trim();
  }
  return undefined;
}

/** Whether a resolved version is the asked one (`1.3` asks for any `1.3.x`). */
function sameVersion(resolved: string, asked: string): boolean {
  return resolved === asked || resolved.startsWith(`${asked}.`);
}

function json(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const field = (value: unknown, key: string): unknown =>
  value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;

/** The manifest's range for the package (`package.json` dependency groups). */
function manifestRange(text: string | undefined, name: string): string | undefined {
  const manifest = json(text);
  for (const key of ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    const range = field(field(manifest, key), name);
    if (typeof range === 'string') return range;
  }
  return undefined;
}

/** The version each lockfile resolves for the package (npm, yarn, pnpm), by file. */
function lockedVersions(read: (file: string) => string | undefined, name: string): [string, string][] {
  const found: [string, string][] = [];
  const npm = json(read('package-lock.json') ?? read('npm-shrinkwrap.json'));
  if (npm) {
    const version =
      field(field(field(npm, 'packages'), `node_modules/${name}`), 'version') ??
      field(field(field(npm, 'dependencies'), name), 'version');
    if (typeof version === 'string')
      found.push([
        read('package-lock.json') !== undefined ? 'package-lock.json' : 'npm-shrinkwrap.json',
        version,
      ]);
  }
  const yarn = read('yarn.lock');
  if (yarn) {
    // `left-pad@^1.1.0:` / `"left-pad@npm:^1.1.0":` then `  version "1.1.0"` / `  version: 1.1.0`
    const block = new RegExp(
      `^"?${escapeRegExp(name)}@[^\\n]*:\\s*\\n(?:[ \\t]+[^\\n]*\\n)*?[ \\t]+version:?\\s+"?([\\w.-]+)"?`,
      'm',
    ).exec(yarn);
    if (block?.[1]) found.push(['yarn.lock', block[1]]);
  }
  const pnpm = read('pnpm-lock.yaml');
  if (pnpm) {
    // `/left-pad@1.1.0:` (v6), `left-pad@1.1.0:` (v9), `/left-pad/1.1.0:` (v5)
    const entry = new RegExp(`^\\s+'?/?${escapeRegExp(name)}[@/](\\d[\\w.-]*)'?:`, 'm').exec(pnpm);
    if (entry?.[1]) found.push(['pnpm-lock.yaml', entry[1]]);
  }
  return found;
}

/**
 * Where the workspace disagrees with an asked upgrade: the manifest's range does not name the
 * version, a lockfile resolves another version, or `node_modules` holds another one. Undefined
 * when the manifest does not list the package (nothing to judge here) or everything agrees.
 */
export function upgradeDisagreement(
  upgrade: AskedUpgrade,
  read: (file: string) => string | undefined,
): string | undefined {
  const range = manifestRange(read('package.json'), upgrade.name);
  const named = new RegExp(`(?<![\\d.])${escapeRegExp(upgrade.version)}(?![\\d])`);
  if (range === undefined) {
    // Python: requirements.txt names the version (`==` when it was to be pinned).
    const spec = requirement(read('requirements.txt'), upgrade.name);
    if (spec === undefined) return undefined;
    if (!named.test(spec))
      return `requirements.txt asks for ${upgrade.name}${spec === '' ? ' with no version' : spec}`;
    if (upgrade.pinned && !/^===?\s*v?\d/.test(spec))
      return `requirements.txt asks for ${upgrade.name}${spec}, a range, not the pinned version`;
    return undefined;
  }
  if (!named.test(range)) return `package.json still asks for ${upgrade.name}@${range}`;
  if (upgrade.pinned && !EXACT.test(range.trim()))
    return `package.json asks for ${upgrade.name}@${range}, a range, not the pinned version`;
  for (const [file, version] of lockedVersions(read, upgrade.name))
    if (!sameVersion(version, upgrade.version))
      return `package.json asks for ${upgrade.name}@${range}, but ${file} still resolves ${version}`;
  const installed = field(json(read(`node_modules/${upgrade.name}/package.json`)), 'version');
  if (typeof installed === 'string' && !sameVersion(installed, upgrade.version))
    return `package.json asks for ${upgrade.name}@${range}, but node_modules/${upgrade.name} is still ${installed}`;
  return undefined;
}
