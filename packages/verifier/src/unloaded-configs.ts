import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { WorkspaceFacts } from './workspace-facts';

/**
 * Tool configuration written to a file the tool does not load on its own: a
 * `tsconfig.strict.json` that no `tsconfig.json` extends or references and no script passes to
 * `tsc -p`, a `.eslintrc.strict.json` nothing names. The step changed a file; the build runs as
 * before. Only variants of a default name count (the default file itself is always loaded), and
 * only when the description does not name the file (then writing it is what was asked).
 */

/** `tsconfig.<variant>.json`, `jsconfig.<variant>.json`, `.eslintrc.<variant>.json`, `jest.config.<variant>.js`… */
const VARIANT_CONFIG =
  /(?:^|\/)(?:(?:tsconfig|jsconfig)\.(?!json$)[\w-]+(?:\.[\w-]+)*\.json|\.eslintrc\.(?!(?:js|cjs|mjs|json|ya?ml)$)[\w-]+\.(?:js|cjs|json|ya?ml)|(?:jest|vitest|vite|babel|webpack|rollup)\.config\.(?!(?:[cm]?[jt]s|json)$)[\w-]+\.(?:[cm]?[jt]s|json))$/;

/** Whether `file` is a variant of a tool's default configuration file (loaded only when named). */
export function isVariantConfig(file: string): boolean {
  return VARIANT_CONFIG.test(file);
}

/**
 * Whether some text of the workspace names the config file: by its base name, its relative path
 * or its path from the workspace root. `texts` are the files that could load it (manifests,
 * other configs, scripts, CI files), each with its workspace-relative path.
 */
export function configNamed(file: string, texts: readonly { file: string; text: string }[]): boolean {
  const base = path.posix.basename(file);
  const stem = base.replace(/\.json$/, '');
  return texts.some(({ file: other, text }) => {
    if (other === file) return false;
    const relative = path.posix.relative(path.posix.dirname(other), file);
    return [base, file, relative, `./${relative}`, stem].some(
      (name) => name.length > 0 && text.includes(name),
    );
  });
}

const MAX_TEXT = 256 * 1024;

/**
 * The texts that could load `file`: every file of its folder and of the workspace root (package
 * manifests, other configs, Makefiles, scripts), read through the workspace facts.
 */
export function nearbyTexts(facts: WorkspaceFacts, file: string): { file: string; text: string }[] {
  const texts: { file: string; text: string }[] = [];
  for (const dir of new Set(['.', path.posix.dirname(file)])) {
    let names: string[];
    try {
      names = readdirSync(facts.absolute(dir));
    } catch {
      continue;
    }
    for (const name of names.slice(0, 500)) {
      const rel = dir === '.' ? name : `${dir}/${name}`;
      if (rel === file || !facts.isFile(rel)) continue;
      const text = facts.read(rel);
      if (text !== undefined && text.length <= MAX_TEXT) texts.push({ file: rel, text });
    }
  }
  return texts;
}
