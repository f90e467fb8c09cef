import { type Command, InvalidArgumentError, Option } from 'commander';
import { DemoError } from '../demo-error';
import { providerNames } from '../runner/provider-names';
import type { CliContext } from './cli-context';

/** Flags of the commands that start or continue runs (commander's camelCase keys). */
export interface RunFlags {
  mode: 'single' | 'auto';
  workspace?: string;
  concurrency: number;
  maxIterations: number;
  budget?: number;
  /** `--journal`; absent: the per-user default (`runner/journal-dir.ts`). */
  journal?: string;
  /** `--store redis://…`: the run lives in Redis instead of `journal`. */
  store?: string;
  /** `--group`: with `--store`, only workers of this group run the steps. */
  group?: string;
  json: boolean;
}

/** Flags that choose the model of typed tasks. */
export interface ModelFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
}

/** A commander parser for whole numbers from `min` to `max` (`It must be …` otherwise). */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < min || parsed > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `≥ ${min}` : `from ${min} to ${max}`;
      throw new InvalidArgumentError(`It must be a whole number ${range}.`);
    }
    return parsed;
  };
}

/** `--port`: 0–65535 (0 = any free port). */
export const portNumber = wholeNumber(0, 65_535);

/** Adds `--provider`, `--model`, `--base-url`. */
export function addModelOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--provider <name>',
        'the model provider (default: from OPENAI_API_KEY / ANTHROPIC_API_KEY)',
      ).choices(providerNames),
    )
    .option('--model <id>', 'model id, e.g. gpt-4.1, claude-sonnet-4-6, llama3.1')
    .option('--base-url <url>', 'an OpenAI-compatible server, e.g. http://localhost:11434/v1 (Ollama)');
}

/**
 * Adds `--journal`. Its default is a per-user state directory (`runner/journal-dir.ts`), outside
 * the workspace, so `--workspace .` works with it.
 */
export function addJournalOption(command: Command): Command {
  return command.option(
    '--journal <dir>',
    'where run journals are kept (default: $XDG_STATE_HOME/closedloop/runs, else ~/.local/state/closedloop/runs)',
  );
}

/** Adds the flags of commands that run a task. */
export function addRunOptions(command: Command): Command {
  addJournalOption(
    command
      .addOption(
        new Option('--mode <mode>', 'single: one successful action per step; auto: up to five')
          .choices(['single', 'auto'])
          .default('auto'),
      )
      .option('--workspace <dir>', 'folder the agent works in (default: a fresh temp folder)')
      .option('--concurrency <n>', 'steps run at once', wholeNumber(1), 4)
      .option('--max-iterations <n>', 'goal-level iterations', wholeNumber(1), 3)
      .option('--budget <tokens>', 'stop once this many tokens were used', wholeNumber(1)),
  );
  addGroupOption(addStoreOption(command));
  return addJsonOption(command, 'print the full RunResult as JSON on stdout');
}

/** Adds `--store`: runs live in Redis (scale-out: coordinators and workers drive them), not in `--journal`. */
export function addStoreOption(command: Command): Command {
  return command.option(
    '--store <redis-url>',
    'keep runs in Redis (redis://host:6379): coordinators and workers drive them, any machine reads them',
  );
}

/** Adds `--group`: with `--store`, the run's steps go only to the workers of this group. */
export function addGroupOption(command: Command): Command {
  return command.option(
    '--group <name>',
    'with --store: run the steps only on workers started with --group <name> (the machines that hold the workspace)',
  );
}

/** Adds `--json`. */
export function addJsonOption(command: Command, description: string): Command {
  return command.option('--json', description, false);
}

/**
 * After a usage error, print the command's usage line and where the full help is (commander
 * prints the error line itself), plus an optional hint.
 */
export function usageAfterError(command: Command, hint?: string): Command {
  const name = `closedloop ${command.name()}`;
  return command.showHelpAfterError(
    [
      `Usage: ${name} ${command.usage()}`,
      `Run "${name} --help" for every option.`,
      ...(hint ? [hint] : []),
    ].join('\n'),
  );
}

/**
 * Wraps a command's action: it stores the exit code, and turns a `DemoError` into commander's
 * error output (one line, exit 2; the usage lines too when a flag or argument was wrong).
 */
export function action<Args extends unknown[]>(
  command: Command,
  context: CliContext,
  run: (...args: Args) => Promise<number>,
): Command {
  return command.action(async (...args: unknown[]) => {
    try {
      context.exitCode = await run(...(args as Args));
    } catch (error) {
      if (!DemoError.isInstance(error)) throw error;
      if (error.code === 'invalid-argument') {
        command.error(`error: ${error.message}`, { exitCode: 2, code: `closedloop.${error.code}` });
      }
      context.io.stderr.write(`error: ${error.message}\n`);
      context.exitCode = 2;
    }
  });
}
