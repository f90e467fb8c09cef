/**
 * Makefile targets added so that they run nothing: a recipe of only `echo`, `true`, `:` or
 * `exit 0` lines (`test:` → `@echo pytest`), or whose commands cannot fail (`-pytest`, which make
 * runs ignoring its exit status, `pytest || true`). `make test` then "passes" and tests nothing.
 * The Makefile counterpart of `addedHollowScripts` for package.json scripts.
 */

/** Makefiles by name. */
export const MAKEFILE = /(?:^|\/)(?:GNUmakefile|[Mm]akefile|[\w.-]+\.mk)$/;

/** The recipe lines of each target (`name:` at the start of a line, tab-indented lines after it). */
export function makeTargets(text: string): Map<string, string[]> {
  const targets = new Map<string, string[]>();
  let current: string[][] = [];
  for (const line of text.replace(/\\\n/g, ' ').split('\n')) {
    if (line.startsWith('\t')) {
      for (const recipe of current) recipe.push(line.trim());
      continue;
    }
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    const rule = /^([^:=#\s][^:=#]*?)\s*::?(?!=)(.*)$/.exec(line);
    current = [];
    if (rule === undefined || rule === null) continue;
    const inline = /;(.*)$/.exec(rule[2] ?? '')?.[1]?.trim();
    for (const name of (rule[1] ?? '').split(/\s+/)) {
      if (name === '' || name.startsWith('.')) continue;
      const recipe = inline ? [inline] : [];
      targets.set(name, recipe);
      current.push(recipe);
    }
  }
  return targets;
}

/** A recipe line that runs nothing or cannot fail. */
const HOLLOW_LINE =
  /^[@-]*\s*(?:echo\b[^|&;]*|printf\b[^|&;]*|true|:|exit\s+0)\s*$|\|\|\s*(?:true|:|exit\s+0|echo\b)|;\s*(?:exit\s+0|true)\s*$/;

/** Targets `after` has that `before` did not (or whose recipe changed) and whose recipe is hollow. */
export function addedHollowTargets(
  before: string | undefined,
  after: string,
): { name: string; recipe: string[] }[] {
  const was = makeTargets(before ?? '');
  const found: { name: string; recipe: string[] }[] = [];
  for (const [name, recipe] of makeTargets(after)) {
    const old = was.get(name);
    if (old !== undefined && old.join('\n') === recipe.join('\n')) continue;
    const lines = recipe.filter((line) => line !== '');
    // A recipe that ignores every failure (`-pytest`) or does nothing real.
    if (lines.length > 0 && lines.every((line) => HOLLOW_LINE.test(line) || /^@?-/.test(line)))
      found.push({ name, recipe: lines });
  }
  return found;
}
