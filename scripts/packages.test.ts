import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { afterAll, describe, expect, it } from 'vitest';
import { installConsumer, installOptionalPeers, loadInNode, typecheckConsumer } from './consumer-project';
import { extraNodeVersions, nodeBinary } from './node-versions.mjs';
import {
  entrySpecifiers,
  entrySubpaths,
  type PackedPackage,
  packPublished,
  publishedPackages,
  repoRoot,
} from './packed-packages';

const run = promisify(execFile);
const published = publishedPackages();

/** The packed packages load on this Node and on every other version CI tests (22, 24). */
const nodes = [
  { label: `Node ${process.versions.node}`, binary: async () => process.execPath },
  ...extraNodeVersions.map((version: string) => ({
    label: `Node ${version}`,
    binary: (): Promise<string> => nodeBinary(version),
  })),
];

/** Runs at most `size` CPU-heavy jobs (attw, tsc) at once; the rest wait their turn. */
function limit(size: number): <T>(job: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (job) => {
    while (running >= size) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await job();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** Memoises an async step several tests wait for. */
function once<T>(step: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => {
    result ??= step();
    return result;
  };
}

const cpu = limit(Math.max(1, Math.min(2, availableParallelism())));
const workDir = once(() => mkdtemp(join(tmpdir(), 'closedloop-packages-')));
/** One `pnpm pack` of every published package, shared by publint, attw and the consumer projects. */
const packAll = once(async () => packPublished(join(await workDir(), 'packs')));
const packed = async (folder: string): Promise<{ pkg: PackedPackage; all: PackedPackage[] }> => {
  const all = await packAll();
  const pkg = all.find((candidate) => candidate.folder === folder);
  if (!pkg) throw new Error(`no tarball for packages/${folder}`);
  return { pkg, all };
};

afterAll(async () => {
  const dir = await workDir();
  await rm(dir, { recursive: true, force: true });
});

const slow = { timeout: 600_000 };

/**
 * Every published package has one ESM build that both ESM and CommonJS consumers load: each
 * `exports` entry lists the source condition (for the workspace), `types`, `import`, and ends in
 * `default` (the same file), which `require()` resolves to on Node >= 20.19. Then its packed
 * tarball is installed alone into an empty npm project and used the ways a consumer would.
 * Runs on the built `dist/` that `pnpm check` produces before vitest starts.
 */
describe.concurrent('published packages', () => {
  for (const { folder, manifest } of published) {
    const consumerDir = async () => join(await workDir(), `consumer-${folder}`);
    /** Installed alone; the root entry must load without any optional peer dependency. */
    const installedAlone = once(async () => {
      const { pkg, all } = await packed(folder);
      const dir = await consumerDir();
      await installConsumer(dir, pkg, all);
      await loadInNode(dir, [manifest.name], { mode: 'import', node: process.execPath });
      await loadInNode(dir, [manifest.name], { mode: 'require', node: process.execPath });
      return { dir, pkg };
    });
    /** Then with its optional peers, so every subpath can load. */
    const installedFully = once(async () => {
      const installed = await installedAlone();
      await installOptionalPeers(installed.dir, installed.pkg);
      return installed;
    });

    describe(manifest.name, () => {
      it('is ESM with side-effect-free modules, for Node >= 20.19', () => {
        expect(manifest.type).toBe('module');
        expect(manifest.sideEffects).toBe(false);
        expect(manifest.engines?.node).toBe('>=20.19');
      });

      it('ends every exports entry in a default condition (require() of the ESM build)', () => {
        expect(manifest.exports['./package.json']).toBe('./package.json');
        for (const subpath of entrySubpaths(manifest)) {
          const conditions = manifest.exports[subpath];
          expect(typeof conditions, subpath).toBe('object');
          const map = conditions as Record<string, string>;
          expect(Object.keys(map), subpath).toEqual(['@closedloop/source', 'types', 'import', 'default']);
          expect(map.default, subpath).toBe(map.import);
          expect(map.types, subpath).toBe(map.import?.replace(/\.js$/, '.d.ts'));
        }
        // TypeScript's node10 resolution (`moduleResolution: node`) ignores `exports`: subpaths
        // reach their types through `typesVersions`, the root through `types`.
        const subpaths = entrySubpaths(manifest).filter((subpath) => subpath !== '.');
        const mapped = manifest.typesVersions?.['*'] ?? {};
        expect(Object.keys(mapped).sort()).toEqual(subpaths.map((subpath) => subpath.slice(2)).sort());
        for (const subpath of subpaths) {
          expect(mapped[subpath.slice(2)], subpath).toEqual([
            (manifest.exports[subpath] as Record<string, string>).types,
          ]);
        }
      });

      it('packs its build alone: no sources, source maps, tests, fixtures or benchmarks', slow, async () => {
        const { pkg } = await packed(folder);
        const { stdout } = await run('tar', ['-tzf', pkg.tarball], { maxBuffer: 16 * 1024 * 1024 });
        const files = stdout.split('\n').filter((line) => line !== '');
        expect(files).toContain('package/dist/index.js');
        expect(files).toContain('package/dist/index.d.ts');
        expect(
          files.filter(
            (file) => !/^package\/(?:dist\/|package\.json$|README\.md$|LICENSE$|CHANGELOG\.md$)/.test(file),
          ),
        ).toEqual([]);
        expect(files.filter((file) => /\.map$|\.test(-d)?\.|__fixtures__|__snapshots__/.test(file))).toEqual(
          [],
        );
        // The workspace's source condition (`./src/*.ts`) is dropped when packing (.pnpmfile.cjs):
        // the tarball resolves to its build only.
        const { stdout: packedManifest } = await run('tar', ['-xzOf', pkg.tarball, 'package/package.json']);
        const { exports } = JSON.parse(packedManifest) as { exports: Record<string, unknown> };
        for (const [subpath, conditions] of Object.entries(exports)) {
          if (typeof conditions === 'object' && conditions !== null)
            expect(Object.keys(conditions), subpath).toEqual(['types', 'import', 'default']);
        }
      });

      it('passes publint', slow, async () => {
        const { pkg } = await packed(folder);
        const tarball = await readFile(pkg.tarball);
        const { messages } = await publint({
          pack: {
            tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength),
          },
          strict: true,
        });
        expect(
          messages.map((message) => `${message.type}: ${message.code} ${JSON.stringify(message.args)}`),
        ).toEqual([]);
      });

      // Full profile: node10, node16 from CJS, node16 from ESM, bundler. One rule is ignored, on
      // purpose: attw (TypeScript 5.6 inside) models node16, where a CommonJS `require()` of an ES
      // module is an error, so it marks every ESM-only package "ESM (dynamic import only)" from
      // CJS (attw issue #252: require(esm) is not modelled yet). Node >= 20.19 loads ESM through
      // require(), and TypeScript >= 5.8 accepts it under `module: nodenext`: the consumer tests
      // below run and typecheck exactly that CommonJS consumer.
      it('passes attw (full profile; require(esm) is checked by the consumer tests)', slow, async () => {
        const { pkg } = await packed(folder);
        const attw = join(repoRoot, 'node_modules', '.bin', 'attw');
        const outcome = await cpu(() =>
          run(attw, [pkg.tarball, '--ignore-rules', 'cjs-resolves-to-esm', '--format', 'table-flipped'], {
            maxBuffer: 64 * 1024 * 1024,
            env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
          }).then(
            () => 'ok',
            (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
          ),
        );
        expect(outcome).toBe('ok');
      });

      it(
        'installs alone from its tarball; its root loads with import and require without optional peers',
        slow,
        async () => {
          await installedAlone();
        },
      );

      for (const { label, binary } of nodes) {
        it(`loads every entry with import and with require() (${label})`, slow, async () => {
          const { dir } = await installedFully();
          const node = await binary();
          const specifiers = entrySpecifiers(manifest);
          const imported = await loadInNode(dir, specifiers, { mode: 'import', node });
          const required = await loadInNode(dir, specifiers, { mode: 'require', node });
          expect(required).toBe(imported);
        });
      }

      it('typechecks a nodenext consumer, as an ES module and as CommonJS', slow, async () => {
        const { dir, pkg } = await installedFully();
        expect(await cpu(() => typecheckConsumer(dir, pkg, 'nodenext'))).toEqual([]);
      });

      it('typechecks a bundler-resolution consumer', slow, async () => {
        const { dir, pkg } = await installedFully();
        expect(await cpu(() => typecheckConsumer(dir, pkg, 'bundler'))).toEqual([]);
      });
    });
  }
});
