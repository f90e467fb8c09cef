import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { inspectInside } from './inspect-inside';
import { readBoundedText } from './read-bounded';
import { resolveInWorkspace } from './resolve-in-workspace';
import { ToolError } from './tool-error';

/** The most a TypeScript configuration is read. */
const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/** Compiler options that name where `tsc` writes. */
const outputOptions = ['outDir', 'outFile', 'out', 'declarationDir', 'tsBuildInfoFile'] as const;

function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** Parses JSON with comments and trailing commas (what `tsconfig.json` allows). */
export function parseJsonc(text: string): unknown {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (inString) {
      out += char;
      if (char === '\\') out += text[++i] ?? '';
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') {
      inString = true;
      out += char;
    } else if (char === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (char === '/' && text[i + 1] === '*') {
      i += 2;
      while (i < text.length && !(text[i] === '*' && text[i + 1] === '/')) i++;
      i++;
    } else out += char;
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
}

async function isFile(target: string): Promise<boolean> {
  return (await stat(target).catch(() => undefined))?.isFile() ?? false;
}

async function isDirectory(target: string): Promise<boolean> {
  return (await stat(target).catch(() => undefined))?.isDirectory() ?? false;
}

/** Where `extends: "<spec>"` points, as TypeScript resolves it (relative file or package). */
async function resolveExtends(spec: string, fromDir: string): Promise<string | undefined> {
  if (spec.startsWith('.') || path.isAbsolute(spec)) {
    const base = path.resolve(fromDir, spec);
    for (const candidate of [base, `${base}.json`, path.join(base, 'tsconfig.json')]) {
      if (await isFile(candidate)) return candidate;
    }
    return undefined;
  }
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const base = path.join(dir, 'node_modules', spec);
    for (const candidate of [base, `${base}.json`, path.join(base, 'tsconfig.json')]) {
      if (await isFile(candidate)) return candidate;
    }
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The config `tsc` uses when none is given: the nearest `tsconfig.json` from `cwd` up. */
async function findConfig(cwd: string): Promise<string | undefined> {
  for (let dir = cwd; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'tsconfig.json');
    if (await isFile(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * True when `target` (inside `root` as written) really is outside: a folder on the way is a link
 * out (`outDir: "out/dist"` with `out -> /etc`), followed as `tsc` would follow it to write.
 */
async function leadsOutside(root: string, target: string): Promise<boolean> {
  try {
    await resolveInWorkspace(root, target);
    return false;
  } catch (error) {
    if (ToolError.isInstance(error) && error.code === 'path-escape') return true;
    throw error;
  }
}

interface Visit {
  root: string;
  seen: Set<string>;
  build: boolean;
}

async function checkConfig(file: string, visit: Visit, depth: number): Promise<string | undefined> {
  if (depth > 16) return `tsconfig chain too deep at ${file}`;
  if (visit.seen.has(file)) return undefined;
  visit.seen.add(file);
  if (!isInside(visit.root, file)) return `the TypeScript configuration ${file} is outside the workspace`;
  // Read only inside the workspace, or in an installed package (a `node_modules` link of a monorepo
  // package to its root's store): a link a command left could name any file of the host, and the
  // parse error (its first characters) would be in the denial the model reads.
  const real = await realpath(file).catch(() => file);
  const inside = isInside(await realpath(visit.root).catch(() => visit.root), real);
  const installed = !inside && real.split(path.sep).includes('node_modules');
  if (!inside && !installed)
    return `the TypeScript configuration ${path.relative(visit.root, file)} links outside the workspace`;
  let config: Record<string, unknown>;
  try {
    const text = inside
      ? (() => {
          const entry = inspectInside(visit.root, file, MAX_CONFIG_BYTES);
          return entry.type === 'file' ? entry.content.toString('utf8') : undefined;
        })()
      : await readBoundedText(real, MAX_CONFIG_BYTES);
    if (text === undefined) throw new Error('not a regular file of at most 16 MiB');
    const parsed = parseJsonc(text);
    config = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch (error) {
    // What a file outside the workspace holds stays out of the message.
    return `the TypeScript configuration ${path.relative(visit.root, file)} cannot be read to check where it writes${inside ? ` (${(error as Error).message})` : ''}`;
  }
  const dir = path.dirname(file);
  const compilerOptions = (config.compilerOptions ?? {}) as Record<string, unknown>;
  for (const option of outputOptions) {
    const value = compilerOptions[option];
    if (typeof value !== 'string') continue;
    const resolved = path.resolve(dir, value.replace(/\$\{configDir\}/g, dir));
    if (!isInside(visit.root, resolved) || (await leadsOutside(visit.root, resolved)))
      return `${path.relative(visit.root, file) || file} sets ${option} to ${JSON.stringify(value)}, outside the workspace`;
  }
  const extendsList =
    typeof config.extends === 'string'
      ? [config.extends]
      : Array.isArray(config.extends)
        ? config.extends
        : [];
  for (const spec of extendsList) {
    if (typeof spec !== 'string') continue;
    const target = await resolveExtends(spec, dir);
    if (target === undefined) continue; // tsc will fail on it
    const reason = await checkConfig(target, visit, depth + 1);
    if (reason) return reason;
  }
  if (visit.build && Array.isArray(config.references)) {
    for (const reference of config.references as { path?: unknown }[]) {
      if (typeof reference?.path !== 'string') continue;
      const target = path.resolve(dir, reference.path);
      const referenced = (await isDirectory(target)) ? path.join(target, 'tsconfig.json') : target;
      const reason = await checkConfig(referenced, visit, depth + 1);
      if (reason) return reason;
    }
  }
  return undefined;
}

/**
 * Checks that `tsc` with these arguments writes only inside `root`: the configuration it reads
 * (`-p`/`--project`, the projects of `--build`, or the nearest `tsconfig.json` from `cwd` up),
 * everything it `extends`, and with `--build` every project it `references`, must be inside the
 * workspace and name `outDir`, `outFile`, `declarationDir` and `tsBuildInfoFile` inside it.
 * Returns a reason when they do not.
 */
export async function checkTypeScriptOutputs(options: {
  root: string;
  cwd: string;
  build: boolean;
  project: string | undefined;
  positionals: readonly string[];
}): Promise<string | undefined> {
  const visit: Visit = { root: options.root, seen: new Set(), build: options.build };
  const configs: string[] = [];
  const toConfig = async (value: string) => {
    const target = path.resolve(options.cwd, value);
    return (await isDirectory(target)) ? path.join(target, 'tsconfig.json') : target;
  };
  if (options.project !== undefined) configs.push(await toConfig(options.project));
  else if (options.build && options.positionals.length > 0) {
    for (const value of options.positionals) configs.push(await toConfig(value));
  } else if (options.positionals.length === 0 || options.build) {
    const found = await findConfig(options.cwd);
    if (found !== undefined) configs.push(found);
  }
  for (const config of configs) {
    if (!(await isFile(config))) continue; // tsc reports the missing file itself
    const reason = await checkConfig(config, visit, 0);
    if (reason) return reason;
  }
  return undefined;
}
