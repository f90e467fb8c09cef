// pnpm hooks of the workspace.
//
// Published packages resolve to their build only. Inside the workspace every `exports` entry
// first names `@closedloop/source` (`./src/*.ts`), so typecheck, tests and tsx run on the sources
// without building; the tarballs ship `dist/` alone, so `pnpm pack` / `pnpm publish` drop that
// condition from the manifest they pack (the package.json on disk is unchanged).
const SOURCE_CONDITION = '@closedloop/source';

function beforePacking(pkg) {
  for (const conditions of Object.values(pkg.exports ?? {})) {
    if (typeof conditions === 'object' && conditions !== null) delete conditions[SOURCE_CONDITION];
  }
  return pkg;
}

module.exports = { hooks: { beforePacking } };
