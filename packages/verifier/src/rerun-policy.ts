import type { ToolCallRecord } from '@closedloop/plan';
import { normalizeToolArguments } from '@closedloop/tools/internal';
import type { Tooling } from './detect-tooling';

/** Decides whether a command a claim names may be re-run to check the claim. */
export type RerunPolicy = (argv: readonly string[]) => boolean | Promise<boolean>;

/** Tools whose calls run an argv (their `argv` argument). */
const commandTools: ReadonlySet<string> = new Set(['run_command']);

const packageManagers: ReadonlySet<string> = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const scriptAliases: Readonly<Record<string, string>> = {
  test: 'test',
  t: 'test',
  tst: 'test',
  start: 'start',
};

/** `npm test`, `npm t` and `npm run test` are one command; so are `pnpm test` and `pnpm run test`. */
function canonical(argv: readonly string[]): readonly string[] {
  const [program, first, ...rest] = argv;
  if (program === undefined || first === undefined || !packageManagers.has(program)) return argv;
  if (first === 'run' || first === 'run-script') return [program, 'run', ...rest];
  const alias = scriptAliases[first];
  return alias === undefined ? argv : [program, 'run', alias, ...rest];
}

function sameArgv(a: readonly string[], b: readonly string[]): boolean {
  const left = canonical(a);
  const right = canonical(b);
  return left.length === right.length && left.every((arg, index) => arg === right[index]);
}

/** The argv of a ledger call of a command tool that ran, or undefined. */
function ranArgv(call: ToolCallRecord): string[] | undefined {
  if (!commandTools.has(call.tool) || call.status !== 'success') return undefined;
  const args = normalizeToolArguments(call.args) as { argv?: unknown } | undefined;
  const argv = args?.argv;
  return Array.isArray(argv) && argv.every((arg) => typeof arg === 'string') ? argv : undefined;
}

/**
 * The workspace's detected commands, plus the command line of each detected package script
 * when it is a plain argv (`"test": "node --test"` → `node --test`; scripts with shell syntax
 * only count as `npm run <name>`).
 */
function projectCommands(tooling: Tooling): (readonly string[])[] {
  const commands: (readonly string[])[] = [];
  for (const command of Object.values(tooling.commands)) {
    if (command === undefined) continue;
    commands.push(command.argv);
    const [, run, name] = command.argv;
    const body = run === 'run' && name !== undefined ? tooling.scripts[name] : undefined;
    if (body !== undefined && !/[|&;<>()$`\\"'*?[\]{}~\n]/.test(body)) {
      const words = body.trim().split(/\s+/);
      if (words.length > 0 && words[0] !== '') commands.push(words);
    }
  }
  return commands;
}

/**
 * The default policy for re-running claimed commands: a claimed argv runs again only when that
 * exact argv already ran in the step's ledger (a successful `run_command` call — it passed the
 * command policy and the guard then), or when it is one of the workspace's own detected project
 * commands (build, typecheck, lint, test…, see `detectTooling`). An argv that appears only in a
 * claim — `mark_step` notes, the model's story — never runs. Whatever runs still goes through the
 * one command policy and sandbox.
 *
 * @example
 * const mayRerun = createRerunPolicy({ ledger: step.ledger, tooling: () => detectTooling(root) });
 * await mayRerun(['npm', 'test']); // true when the step ran it, or when it is the test script
 */
export function createRerunPolicy(options: {
  ledger: readonly ToolCallRecord[];
  tooling: () => Promise<Tooling>;
}): RerunPolicy {
  const ran = options.ledger.map(ranArgv).filter((argv): argv is string[] => argv !== undefined);
  return async (argv) => {
    if (ran.some((known) => sameArgv(known, argv))) return true;
    let tooling: Tooling;
    try {
      tooling = await options.tooling();
    } catch {
      return false;
    }
    return projectCommands(tooling).some((command) => sameArgv(command, argv));
  };
}
