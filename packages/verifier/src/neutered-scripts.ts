/**
 * A check script in package.json (`test`, `build`, `lint`, `typecheck`, `check`…) rewritten so it
 * exits 0 whatever happens: its failure masked (`|| true`, `; exit 0`), or replaced by a command
 * that runs none of the programs it ran (`node build.js` → `node -e 0`, `eslint .` → `echo ok`).
 * `npm run build` then "passes" and checks nothing. Changing a script is the work when the
 * description talks about scripts or package.json.
 */

/** Script names that check something: a pass of theirs is evidence. */
const CHECK_SCRIPT =
  /^(?:(?:pre|post)?(?:test|build|lint|typecheck|type-check|types|tsc|check|verify|validate|ci|e2e|format:check|fmt:check)(?::[\w:-]+)?|(?:test|build|lint|check|typecheck):[\w:-]+)$/;
const SCRIPTS_ASKED = /\bscripts?\b|package\.json|\bnpm\s+scripts?\b/i;
/** A failure masked: `cmd || true`, `cmd || exit 0`, `cmd; exit 0`, `exit 0`, `true`, `:`. */
const MASKED =
  /\|\|\s*(?:true|:|exit\s+0|echo\b)|;\s*(?:exit\s+0|true)\s*$|^\s*(?:exit\s+0|true|:)\s*$|^\s*echo\b[^|&;]*$/;
/** Runners that take the program to run as their next word. */
const RUNNERS = new Set([
  'npx',
  'pnpm',
  'yarn',
  'bunx',
  'npm',
  'exec',
  'dlx',
  'run',
  'cross-env',
  'dotenv',
  'env',
]);

/** The programs a script line runs (first words of its commands, after runners and env assignments). */
function programs(script: string): Set<string> {
  const found = new Set<string>();
  for (const command of script.split(/&&|\|\||;|\|/)) {
    const words = command
      .trim()
      .split(/\s+/)
      .filter((word) => word !== '' && !/^\w+=/.test(word));
    for (const word of words) {
      if (word.startsWith('-')) continue;
      found.add(word.replace(/^.*\//, ''));
      if (!RUNNERS.has(word)) break;
    }
  }
  // A node one-liner checks nothing by its name: `node -e 0` runs no file.
  if (/^\s*node\s+(?:-e|--eval|-p|--print)\b/.test(script)) found.delete('node');
  return found;
}

/** The `scripts` of a package.json text; `undefined` when it does not parse. */
function scriptsOf(text: string | undefined): Record<string, string> | undefined {
  if (text === undefined) return undefined;
  try {
    const scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
    if (scripts === null || typeof scripts !== 'object') return {};
    return Object.fromEntries(
      Object.entries(scripts).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
    );
  } catch {
    return undefined;
  }
}

/** Whether the description asks for work on scripts (then changing them is the work). */
export function scriptsAsked(description: string): boolean {
  return SCRIPTS_ASKED.test(description);
}

/**
 * The check scripts of one package.json that the change neutered: masked where they were not, or
 * now running none of the programs they ran.
 *
 * @example
 * neuteredScripts('{"scripts":{"build":"tsc"}}', '{"scripts":{"build":"tsc || true"}}');
 * // [{ name: 'build', was: 'tsc', now: 'tsc || true' }]
 */
export function neuteredScripts(
  before: string | undefined,
  after: string | undefined,
): { name: string; was: string; now: string }[] {
  const was = scriptsOf(before);
  const now = scriptsOf(after);
  if (was === undefined || now === undefined) return [];
  return Object.entries(was).flatMap(([name, script]) => {
    const next = now[name];
    if (!CHECK_SCRIPT.test(name) || next === undefined || next === script) return [];
    const masked = MASKED.test(next) && !MASKED.test(script);
    const before = programs(script);
    const after = programs(next);
    const replaced = before.size > 0 && ![...before].some((program) => after.has(program));
    return masked || replaced ? [{ name, was: script, now: next }] : [];
  });
}
